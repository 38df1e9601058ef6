// The dashboard's demo store, built offline from the examples: persona evaluations of the ensemble over
// three weeks (with a slope and one regression), two analysed sessions, a conversation run, gate checks,
// and a transcript that tries script and HTML injection. Every verdict is hand-written (see `vary` below).
//
//   node --import tsx scripts/demo-store.ts [DIR]      builds the store in DIR (default: a temp folder)
//   npm run demo:serve [-- --port N]                   builds it in a temp folder and serves it (port 4477)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { evaluatePersonas } from "../src/personas/index.ts";
import { analyzeSession } from "../src/sessions/index.ts";
import { openStore, type Store } from "../src/store/index.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const at = (path: string) => join(ROOT, path);
/** A path as the demo's records name it: relative to where the demo runs, as a user would type it. */
const shown = (path: string) => relative(process.cwd(), at(path)) || ".";

export const DEMO_BASELINES = at("examples/ensemble/baselines");
/** The agent whose adherence falls below its baseline in the last run. */
export const REGRESSING_AGENT = "dov";
/** The agent of the injection transcript. */
export const INJECTION_AGENT = "mallory";

interface FixtureVerdict {
  dimension: string;
  proposition_id: string;
  agent_id?: string;
  message_id?: string;
  score?: number;
  [key: string]: unknown;
}

const DAY = 24 * 60 * 60 * 1000;
/** Six weekly-ish runs over three weeks, ending on a fixed day so screenshots do not change. */
const RUN_DAYS = [0, 4, 8, 12, 16, 20];
const START = Date.parse("2026-11-01T09:00:00Z");

const clamp = (n: number) => Math.min(9, Math.max(0, Math.round(n)));

/**
 * Run `k`'s verdicts: the example's hand-written ones, moved by hand-chosen amounts so that the chart has
 * something to show — Wendell's fluency slides a point a week, Priya's adherence climbs, and in the last
 * run Dov's adherence drops three points (an inverted proposition rises instead): the regression.
 */
function vary(verdicts: readonly FixtureVerdict[], k: number, last: boolean): FixtureVerdict[] {
  return verdicts.map((v) => {
    if (typeof v.score !== "number") return v;
    const inverted = v.proposition_id === "breaks-character";
    let delta = 0;
    if (v.agent_id === "wendell" && v.dimension === "fluency") delta = -Math.floor(k / 2);
    if (v.agent_id === "priya" && v.dimension === "adherence") delta = Math.floor(k / 3) - 1;
    if (v.agent_id === "ines" && v.dimension === "consistency") delta = k % 2 === 0 ? 0 : -1;
    if (last && v.agent_id === REGRESSING_AGENT && v.dimension === "adherence") {
      // The regression's verdicts say what fell, so that the story the chart tells holds up when opened.
      const reasoning = DOV_FELL[v.message_id ? `${v.proposition_id}@${v.message_id}` : v.proposition_id];
      return { ...v, score: clamp(v.score + (inverted ? 3 : -3)), ...(reasoning ? { reasoning } : {}) };
    }
    return { ...v, score: clamp(v.score + (inverted ? -delta : delta)) };
  });
}

/**
 * Hand-written reasonings of the demo's last run for Dov's adherence (hand-written, like every demo verdict):
 * his voice gave way to the station's stock lines, which is what a three-point fall looks like when read.
 */
const DOV_FELL: Readonly<Record<string, string>> = {
  "persona-traits":
    "Some exuberance is left in the opener, but most of his messages now read as cautious and scripted, not impulsive or generous.",
  "persona-style":
    "The capitals and segment names are gone from half his messages; the catchphrase still lands where it should not.",
  "persona-knowledge": "He still knows the pledge mechanics, but he recites them instead of selling them.",
  "breaks-character":
    "Twice he speaks like a station announcement rather than a breakfast-show host: close to breaking character.",
  "dov-warm-showman":
    "He stops naming listeners and segments; the warmth is generic, as if anyone on the team had written it.",
  "dov-flat-delivery": "Several messages are delivered flat, a notice read out rather than a show.",
  "persona-style@m34": "The opener keeps his volume, the one message of this run that sounds fully like him.",
  "dov-warm-showman@m34":
    "The on-air opener still names the drive and the pledge line, though with less of the kettle-and-sunrise colour.",
  "dov-warm-showman@m43": "Reading the pledges out is still kind, but he no longer makes a segment of it.",
  "persona-traits@m36":
    "'Love that for us' in reply to a listener's power cut is tone-deaf, and this time he does not correct it.",
  "dov-warm-showman@m36":
    "He greets June by name, then the reflexive catchphrase lands on her bad news and stays there.",
  "persona-style@m46":
    "'We're all in this together … stay tuned' is the station's stock slogan, with nothing of his own riffing.",
  "dov-warm-showman@m46": "The sign-off is generic: no names, no segments, no host.",
  "persona-style@m50": "The slogan repeated word for word: the station's voice, not Dov's.",
  "dov-warm-showman@m50": "Even the pledge nudge at the end reads like a template.",
  "dov-flat-delivery@m50": "The slogan reads like a notice being recited, flat from start to end.",
};

/** Moves an evaluation and its runs (and their verdicts) to another time: the demo's three weeks. */
async function backdate(store: Store, evaluationId: string, when: Date): Promise<void> {
  if (!store.db) return; // memory:// keeps its own clock
  const t = when.toISOString();
  await store.db.query("UPDATE evaluations SET created_at = $2 WHERE id = $1", [evaluationId, t]);
  await store.db.query(
    `UPDATE evaluation_runs SET created_at = $2, started_at = $2, completed_at = $2::timestamptz + interval '40 seconds'
      WHERE evaluation_id = $1`,
    [evaluationId, t],
  );
}

async function personaRuns(store: Store, temp: string): Promise<void> {
  const fixtures = JSON.parse(readFileSync(at("examples/ensemble/judge-fixtures.json"), "utf8"));
  for (const [k, day] of RUN_DAYS.entries()) {
    const file = join(temp, `ensemble-run-${k}.judge-fixtures.json`);
    writeFileSync(
      file,
      JSON.stringify({
        ...fixtures,
        note: `${fixtures.note} For the dashboard demo, run ${k + 1} moves some scores by hand-chosen amounts.`,
        verdicts: vary(fixtures.verdicts, k, k === RUN_DAYS.length - 1),
      }),
    );
    const result = await evaluatePersonas({
      transcript: at("examples/ensemble/transcript.json"),
      propositions: at("examples/ensemble/propositions"),
      judge: `fixtures:${file}`,
      store,
      source: "examples/ensemble/transcript.json",
    });
    await backdate(store, result.evaluation_id, new Date(START + day * DAY));
  }
}

/** The latest ensemble run against the example labels (hand-written, ours, not a study): the calibration page's. */
async function calibration(store: Store): Promise<void> {
  const [latest] = await store.runs.list({ agent: REGRESSING_AGENT, limit: 1 });
  const { calibrate } = await import("../src/calibration/index.ts");
  const result = await calibrate({
    store,
    run: latest!.evaluation_id!,
    labels: [shown("examples/ensemble/labels/rater-a.yaml"), shown("examples/ensemble/labels/rater-b.csv")],
    resamples: 200,
  });
  await backdate(store, result.evaluation_id!, new Date(START + 21 * DAY));
}

async function injectionRun(store: Store): Promise<void> {
  const file = at("test/fixtures/web/injection.transcript.json");
  const transcript = JSON.parse(readFileSync(file, "utf8"));
  await store.messages.import("injection.transcript.json", transcript.messages);
  const result = await evaluatePersonas({
    transcript: file,
    dimensions: ["adherence"],
    agents: [INJECTION_AGENT],
    judge: `fixtures:${shown("test/fixtures/web/injection.judge-fixtures.json")}`,
    store,
    source: "injection.transcript.json",
  });
  await backdate(store, result.evaluation_id, new Date(START + 19 * DAY));
}

async function sessions(store: Store): Promise<void> {
  await analyzeSession(shown("examples/sessions/refund.session.json"), {
    judge: `fixtures:${shown("examples/sessions/refund.judge-fixtures.json")}`,
    store,
    source: "examples/sessions/refund.session.json",
  });
  await analyzeSession(shown("examples/sessions/recorded-agno-mixed-tools.chat.json"), {
    judge: "none",
    store,
    source: "examples/sessions/recorded-agno-mixed-tools.chat.json",
  });
}

/** The demo conversation job against the reference agent (its model scripted), offline, as `npm run demo:converse`. */
async function conversation(store: Store, temp: string): Promise<void> {
  const { startFakeOpenAIServer } = await import("../src/testing/index.ts");
  const { createJudgeModel } = await import("../src/judge/index.ts");
  const { runConversation } = await import("../src/conversations/index.ts");
  const { startReferenceAgent } = await import("../examples/reference-agent/agent.ts");
  const { agentModelResponder, loadConversationScript, simulatedUserResponder } = await import(
    "../examples/reference-agent/scripted-replies.ts"
  );
  const script = loadConversationScript(at("examples/reference-agent/demo.script.json"));
  const model = await startFakeOpenAIServer({ respond: agentModelResponder(script), recordRequests: false });
  const user = await startFakeOpenAIServer({
    respond: simulatedUserResponder(script),
    recordRequests: false,
  });
  const agent = await startReferenceAgent({ modelUrl: model.url });
  try {
    // The job names port 8081; the agent listens on a free port, so the job is copied to point at it.
    const job = join(temp, "demo.job.yml");
    writeFileSync(
      job,
      readFileSync(at("examples/reference-agent/demo.job.yml"), "utf8").replaceAll(
        "http://127.0.0.1:8081",
        agent.url,
      ),
    );
    await runConversation(job, {
      userModel: createJudgeModel("openai-compatible:demo-user", { baseUrl: user.url }).model,
      judge: `fixtures:${shown("examples/reference-agent/demo.judge-fixtures.json")}`,
      store,
      name: "examples/reference-agent/demo.job.yml",
    });
  } finally {
    await agent.close();
    await user.close();
    await model.close();
  }
}

const gate = (score: number, reasoning: string, threshold = 7) => ({
  score,
  reasoning,
  passed: score >= threshold,
});

/** Hand-written gate checks over the three weeks: mostly passes, some retries, one forced through. */
async function corrections(store: Store): Promise<void> {
  const checks = [
    {
      day: 1,
      agent_id: "wendell",
      outcome: "passed",
      attempt: 1,
      text: "Back in '79 we had a storm like this.",
      scores: { adherence: gate(8, "In voice: a dated anecdote.") },
    },
    {
      day: 3,
      agent_id: "dov",
      outcome: "passed",
      attempt: 1,
      text: "PLEDGE NOW and win a co-hosting slot!",
      scores: { adherence: gate(8, "Dov's capitals and showmanship.") },
    },
    {
      day: 5,
      agent_id: "wendell",
      outcome: "corrected",
      attempt: 2,
      text: "As an AI, I cannot recall the storm.",
      corrected: "I can't recall that storm, and I remember most of them.",
      scores: {
        adherence: gate(
          3,
          "Breaks character: mentions being an AI. Stay Wendell, a retired fisherman, and never refer to being an AI.",
        ),
      },
    },
    {
      day: 8,
      agent_id: "priya",
      outcome: "passed_after_retry",
      attempt: 2,
      text: "the uplink is at 3.2 dB margin",
      scores: {
        fluency: gate(6, "Repeats the margin figure from her last three messages; vary the wording."),
      },
    },
    {
      day: 10,
      agent_id: "dov",
      outcome: "passed",
      attempt: 1,
      text: "Folks, the phones are OPEN!",
      scores: { adherence: gate(9, "Warm showman, as written.") },
    },
    {
      day: 13,
      agent_id: "wendell",
      outcome: "passed",
      attempt: 1,
      text: "That generator is older than me.",
      scores: { fluency: gate(8, "Natural and varied.") },
    },
    {
      day: 15,
      agent_id: "dov",
      outcome: "corrected",
      attempt: 2,
      text: "Here is a summary of the pledge options: 1) … 2) …",
      corrected: "Three ways to give, folks, and every one of them keeps the lights on!",
      scores: { adherence: gate(4, "Assistant-style list and summary; Dov would pitch it on air instead.") },
    },
    {
      day: 18,
      agent_id: "dov",
      outcome: "forced_through",
      attempt: 3,
      text: "I'd be happy to help you with your pledge today.",
      scores: {
        adherence: gate(3, "Customer-service register, not Dov's voice. Drop the assistant phrasing."),
        fluency: gate(5, "Stock phrase repeated from the previous attempt."),
      },
    },
    {
      day: 20,
      agent_id: "priya",
      outcome: "passed",
      attempt: 1,
      text: "antenna swr is 1.4, fine for tonight",
      scores: { fluency: gate(8, "Terse and technical, as she speaks.") },
    },
  ] as const;
  const stored = await store.corrections.add(
    checks.map((c) => ({
      agent_id: c.agent_id,
      original_text: c.text,
      corrected_text: "corrected" in c ? c.corrected : null,
      dimension_scores: c.scores,
      attempt_number: c.attempt,
      outcome: c.outcome,
      total_score: Object.values(c.scores).reduce((sum, s) => sum + s.score, 0),
    })),
  );
  if (!store.db) return;
  for (const [i, row] of stored.entries())
    await store.db.query("UPDATE correction_logs SET created_at = $2 WHERE id = $1", [
      row.id,
      new Date(START + checks[i]!.day * DAY + i * 60_000).toISOString(),
    ]);
}

/**
 * Builds the demo store at a location (a PGlite folder to get the three weeks; memory:// keeps today's dates),
 * or into an open store, left open.
 */
export async function buildDemoStore(location: string | Store): Promise<void> {
  const temp = mkdtempSync(join(tmpdir(), "dramaturg-demo-store-"));
  const store = typeof location === "string" ? await openStore(location) : location;
  try {
    await personaRuns(store, temp);
    await injectionRun(store);
    await sessions(store);
    await conversation(store, temp);
    await corrections(store);
    await calibration(store);
  } finally {
    if (typeof location === "string") await store.close();
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * `--serve`: builds the demo store in a temp folder (or DIR) and serves it until Ctrl-C, then deletes the temp
 * folder. The port is taken before the build, so a busy one fails in a second: a plain message, exit 2 when
 * `--port` named it, 3 when the default was taken; the temp folder goes whenever it fails.
 */
async function serveDemo(dir: string, location: string, temporary: boolean, port: number | undefined) {
  const { DramaturgError, InputError } = await import("../src/core/index.ts");
  const { startServer } = await import("../src/server/index.ts");
  const { readBaselineFolder } = await import("../src/regression/index.ts");
  const removeTemp = () => temporary && rmSync(dir, { recursive: true, force: true });
  try {
    const store = await openStore(location);
    const server = await startServer({
      db: store,
      port: port ?? 4477,
      baselines: readBaselineFolder(DEMO_BASELINES),
    }).catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    const started = Date.now();
    await buildDemoStore(store);
    process.stdout.write(`demo store: ${location} (${Date.now() - started} ms)\n`);
    process.stdout.write(`dramaturg: serving the demo on ${server.url}; Ctrl-C stops and deletes it\n`);
    const stop = async () => {
      await server.close();
      await store.close();
      removeTemp();
      process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  } catch (error) {
    removeTemp();
    if (!DramaturgError.isInstance(error)) throw error;
    const defaultPortTaken = port === undefined && InputError.isInstance(error) && error.place === "--port";
    process.stderr.write(`demo:serve: ${error.message}\n`);
    process.exitCode = defaultPortTaken ? 3 : error.exitCode;
  }
}

/** `--port N` or `--port=N` (a whole number from 0 to 65535), or undefined; exits 2 on a bad one. */
function portFlag(args: readonly string[]): number | undefined {
  const i = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
  if (i < 0) return undefined;
  const text = args[i]!.startsWith("--port=") ? args[i]!.slice("--port=".length) : args[i + 1];
  const port = Number(text);
  if (text === undefined || text === "" || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(
      `demo:serve: --port: expected a whole number from 0 to 65535, got "${text ?? ""}"\n`,
    );
    process.exit(2);
  }
  return port;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const port = portFlag(args);
  const named = args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--port");
  const dir = named ?? mkdtempSync(join(tmpdir(), "dramaturg-demo-"));
  const location = named ?? join(dir, "store");
  if (args.includes("--serve")) await serveDemo(dir, location, !named, port);
  else {
    const started = Date.now();
    await buildDemoStore(location);
    process.stdout.write(`demo store: ${location} (${Date.now() - started} ms)\n`);
  }
}
