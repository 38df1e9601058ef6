// Issue 36's benchmark: each built-in scenario at `--scale 0.1`, run as `dramaturg experiment run` runs it (the
// compiled library, dist/, in a fresh Node process with the command's Node flags, a new store folder, a
// hand-written population of the right size), its agents and its judge on two fake OpenAI-compatible servers at
// 200 ms on a worker thread of the bench (agents answer with one `send_message` in the scenario's channel, its
// words a function of the request; the judge answers with the default responder's hashed scores, so the gate
// fails and redrafts as a real one might, and the same every time).
//
// The bound a run is held to is the larger of two lower bounds on its wall time, both computed from what the
// run actually did (the child counts every agent draft by arm, environment and agent, and every judge request
// by kind):
//   throughput  = (agent calls + judge calls, as the servers saw them) × L / C     (L = 200 ms, C = 16)
//   path        = max over environment runs r of  L × [ Σ_{s=1..W} ( V_s·v + max_a d_{s,a} · (1 + g·gate) )
//                                                       + d_rapporteur · (1 + g·gate) + D ]
// where W is the world steps (the intro step and `steps`), d_{s,a} agent a's drafts at step s (its act and
// every redraft the gate asked for; each one agent call), gate whether the arm turns the action gate on, g the
// judge calls in sequence of one gate round (each draft is judged once, after it is written, before the next),
// V_s the intervention checks at step s (one after another, v calls each: anti-convergence every step, variety
// once an agent has sent `variety_message_threshold` messages), and D the judge calls in sequence of one judged
// verdict (2 with double_check): extraction, task completion and the persona dimensions are judged at once
// after the rapporteur. The target: wall (spawn to exit, start-up included) ≤ 1.3 × max(throughput, path).
// The model behind `path` is checked against the run (the intervention checks, gate rounds and agent calls it
// adds up must equal those counted), and C caps the judge only: agent calls are capped by the runner's
// environment concurrency (concurrency ÷ group size runs, group size agents each).
//
// A second pass runs every environment run at once (`environmentConcurrency`), for information, where the
// runner's default would not: what that default costs. Roles of this file: the bench (benchExperimentRun, from
// run.ts), the servers' worker thread, and the child (`--experiment-child ARGS.json`, through
// measure-process.mjs for its peak RSS and CPU).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type { LanguageModel } from "ai";
import type { FakeChatRequest, FakeReply, FakeServerStats } from "../src/testing/index.ts";
import { cliNodeOptions } from "./cli-run.bench.ts";
import { type Check, fmt, log } from "./report.ts";

type Library = typeof import("../src/index.ts") & typeof import("../src/entries/experiments.ts");
type ResultDocument = import("../src/entries/experiments.ts").ExperimentResultDocument;
type Judge = import("../src/index.ts").Judge;
type JudgeRequest = import("../src/index.ts").JudgeRequest;

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);
const MEASURE = fileURLToPath(new URL("./measure-process.mjs", import.meta.url));
const SERVERS_ROLE = "experiment-run-servers";
const CHILD_FLAG = "--experiment-child";

/** The four built-in scenarios (Table 1's order). */
const SCENARIOS = [
  "brainstorming-average",
  "brainstorming-difficult-full",
  "brainstorming-difficult-variety",
  "debate-controversial",
] as const;
const SCALE = 0.1;
const MAX_RATIO = 1.3;
const MAX_RSS_MB = 400;
/** The gate's switches in an arm's corrections: any one on, every draft is judged before it is committed. */
const GATE_SWITCHES = [
  "gate_adherence_enabled",
  "gate_consistency_enabled",
  "gate_fluency_enabled",
  "gate_suitability_enabled",
];
/** What a redraft's prompt says (persona-agent.ts): a draft the gate sent back. */
const REDRAFT = /Send attempt \d+ with send_message/;

// ── The population: hand-written people, as many as the scaled scenario needs ─────────────────────────────

const PEOPLE = [
  {
    name: "Maren Holt",
    age: 41,
    occupation: "night-shift nurse at a regional hospital",
    residence: "Duluth, Minnesota",
    traits: ["practical", "dry humour", "impatient with waste"],
    style: "short sentences, asks what things cost, tells stories from the ward",
    beliefs: ["care should not depend on a postcode", "tools should work at 3 a.m. with gloves on"],
  },
  {
    name: "Teodor Vasquez",
    age: 29,
    occupation: "freelance app developer and weekend cyclist",
    residence: "Austin, Texas",
    traits: ["curious", "talks fast", "sceptical of subscriptions"],
    style: "enthusiastic, technical asides, compares everything to software",
    beliefs: ["people should own their data", "cities should be built for bikes"],
  },
  {
    name: "Amara Okafor",
    age: 52,
    occupation: "owner of a family grocery store",
    residence: "Columbus, Ohio",
    traits: ["warm", "stubborn", "counts every penny"],
    style: "speaks from experience with customers, proverbs from her mother",
    beliefs: ["small shops hold a neighbourhood together", "trust is earned over years"],
  },
  {
    name: "Linus Bergstrom",
    age: 67,
    occupation: "retired civil engineer who volunteers at a repair café",
    residence: "Portland, Maine",
    traits: ["methodical", "patient", "distrusts hype"],
    style: "precise, numbers and tolerances, long pauses before disagreeing",
    beliefs: ["anything built well can be mended", "regulation protects people"],
  },
  {
    name: "Priya Raman",
    age: 35,
    occupation: "secondary-school chemistry teacher and mother of two",
    residence: "Sacramento, California",
    traits: ["organised", "direct", "protective of her time"],
    style: "lists, examples from the classroom, no patience for vagueness",
    beliefs: ["education is the best investment", "families need less screen time"],
  },
];

/** Writes `size` people into `dir`, one persona file each (a folder as a user writes it by hand). */
function writePopulation(dir: string, size: number): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < size; i++) {
    const p = PEOPLE[i % PEOPLE.length]!;
    const name = i < PEOPLE.length ? p.name : `${p.name} ${Math.floor(i / PEOPLE.length) + 1}`;
    const { name: _, ...persona } = p;
    writeFileSync(
      join(dir, `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.json`),
      `${JSON.stringify({ name, persona }, null, 2)}\n`,
    );
  }
}

// ── The fake servers, on a worker thread of the bench ─────────────────────────────────────────────────────

const IDEAS = [
  "Shelf Swap",
  "Night Pantry",
  "Fix-It Friday",
  "Ride Ledger",
  "Quiet Hours Kit",
  "Bulk Buddy",
  "Tool Circle",
  "Meal Map",
];

/**
 * An agent's answer: one send_message in its channel (read from its system prompt), its words a function of
 * the request alone, so a redraft differs from its draft and a run is the same whatever order calls arrive in
 * (the judge's hashed scores, and so the gate's redrafts, follow from the words).
 */
function agentReply(request: FakeChatRequest): FakeReply {
  const system = request.messages.find((m) => m.role === "system");
  const text = typeof system?.content === "string" ? system.content : JSON.stringify(system?.content ?? "");
  const name = /You are ([^.]+)\./.exec(text)?.[1] ?? "someone";
  const channel = /these channels: #([^\s,]+?)\.?(?:,|\s|$)/.exec(text)?.[1] ?? "session";
  const digest = createHash("sha256").update(JSON.stringify(request.messages)).digest();
  const idea = IDEAS[digest[0]! % IDEAS.length]!;
  const tag = digest.readUInt16BE(1);
  return {
    tool_calls: [
      {
        name: "send_message",
        arguments: {
          channel,
          text: `${name} here (${tag}). Idea name: '${idea}'. It solves the problem I see every week: people waste time and money because nobody shares what they already own. It is for busy households like mine, and I would use it myself.`,
        },
      },
    ],
  };
}

type ServerStats = Pick<FakeServerStats, "calls" | "maxInFlight" | "firstCallAt" | "tokens">;

interface ExperimentServers {
  agentsUrl: string;
  judgeUrl: string;
  /** What both servers counted since the last take, and starts counting afresh. */
  take(): Promise<{ agents: ServerStats; judge: ServerStats }>;
  close(): Promise<void>;
}

async function startServers(latencyMs: number): Promise<ExperimentServers> {
  // A worker does not inherit tsx's loader on every Node version: register it, then load this file.
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { role: SERVERS_ROLE, latencyMs } });
  const urls = await new Promise<{ agents: string; judge: string }>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  const ask = (message: "stats" | "close") => {
    const answer = new Promise<{ agents: ServerStats; judge: ServerStats }>((resolve) =>
      worker.once("message", resolve),
    );
    worker.postMessage(message);
    return answer;
  };
  return {
    agentsUrl: urls.agents,
    judgeUrl: urls.judge,
    take: () => ask("stats"),
    close: async () => {
      await ask("close");
      await worker.terminate();
    },
  };
}

async function serveInWorker(port: NonNullable<typeof parentPort>, latencyMs: number): Promise<void> {
  const { startFakeOpenAIServer } = await import("../src/testing/index.ts");
  const agents = await startFakeOpenAIServer({ latencyMs, recordRequests: false, respond: agentReply });
  const judge = await startFakeOpenAIServer({ latencyMs, recordRequests: false });
  const take = (server: typeof agents): ServerStats => {
    const { stats } = server;
    const taken = {
      calls: stats.calls,
      maxInFlight: stats.maxInFlight,
      firstCallAt: stats.firstCallAt,
      tokens: stats.tokens,
    };
    Object.assign(stats, { calls: 0, maxInFlight: stats.inFlight, firstCallAt: undefined });
    stats.tokens = { prompt: 0, completion: 0, schema: 0 };
    return taken;
  };
  port.on("message", async (message: "stats" | "close") => {
    if (message === "close") await Promise.all([agents.close(), judge.close()]);
    port.postMessage({ agents: take(agents), judge: take(judge) });
    if (message === "close") port.close();
  });
  port.postMessage({ agents: agents.url, judge: judge.url });
}

// ── The child: one experiment through the compiled library, every call counted ────────────────────────────

interface ChildArgs {
  scenario: string;
  scale: number;
  population: string;
  db: string;
  agentsUrl: string;
  judgeUrl: string;
  concurrency: number;
  /** Environment runs at once; absent: the runner's default (concurrency ÷ group size). */
  environmentConcurrency?: number;
  out: string;
}

/** Judge requests of one kind: how many, their calls, the calls in sequence of one (2 with double_check). */
interface JudgeKindTally {
  requests: number;
  calls: number;
  depth: number;
  /** Requests that threw (a gate deadline passing aborts its request: the gate then passes the draft). */
  failed: number;
  errored_verdicts: number;
  /** Request to answer, summed: with the depth, how long requests of this kind waited for a judge slot. */
  ms: number;
}

interface ChildOutput {
  /** Process start (the child's first line) to runExperiment's return, and the call itself. */
  process_ms: number;
  run_ms: number;
  document: ResultDocument;
  /** `arm:index` → agent id → drafts of each act, in order (the last act of the rapporteur is its write-up). */
  drafts: Record<string, Record<string, number[]>>;
  judge: Record<string, JudgeKindTally>;
  /** `arm:index` → phase → ms since runExperiment started. */
  phases: Record<string, Record<string, number>>;
}

/** What a judge request is for, from its first key and its context. */
function judgeKind(request: JudgeRequest): string {
  const key = request.items[0]?.key;
  if (key?.dimension === "intervention") return "intervention";
  if (key?.proposition_id === "extraction") return "extraction";
  if (key?.proposition_id === "task-completion") return "task_completion";
  // The gate judges a draft, not yet a message with an id; the persona dimensions judge committed messages.
  if (request.context.action !== undefined && key?.message_id === undefined) return "gate";
  return "persona";
}

async function experimentChild(argsFile: string): Promise<void> {
  const began = performance.now();
  const args = JSON.parse(readFileSync(argsFile, "utf8")) as ChildArgs;
  const lib = {
    ...(await import(pathToFileURL(join(ROOT, "dist/index.js")).href)),
    ...(await import(pathToFileURL(join(ROOT, "dist/entries/experiments.js")).href)),
  } as Library;
  const [{ createOpenAICompatible }, { wrapLanguageModel }] = await Promise.all([
    import("@ai-sdk/openai-compatible"),
    import("ai"),
  ]);
  const agentsModel = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: args.agentsUrl,
    apiKey: "not-a-real-key",
  }).chatModel("agents");
  const drafts: ChildOutput["drafts"] = {};
  // One model per arm, environment and agent (how the runner asks for them), counting that agent's drafts.
  const model = ({
    arm,
    environment,
    agent,
  }: {
    arm: string;
    environment: number;
    agent: { id: string };
  }) => {
    const acts = ((drafts[`${arm}:${environment}`] ??= {})[agent.id] ??= []);
    return wrapLanguageModel({
      model: agentsModel,
      middleware: {
        specificationVersion: "v4",
        async wrapGenerate({ doGenerate, params }) {
          if (REDRAFT.test(JSON.stringify(params.prompt)) && acts.length > 0) acts[acts.length - 1]! += 1;
          else acts.push(1);
          return doGenerate();
        },
      },
    }) as LanguageModel;
  };
  const inner = lib.createJudge("openai-compatible:judge", {
    baseUrl: args.judgeUrl,
    concurrency: args.concurrency,
  });
  const tally: ChildOutput["judge"] = {};
  const judge: Judge = {
    descriptor: inner.descriptor,
    ...(inner.inFlightLimit === undefined ? {} : { inFlightLimit: inner.inFlightLimit }),
    close: async () => inner.close?.(),
    async judge(request, options) {
      const t = (tally[judgeKind(request)] ??= {
        requests: 0,
        calls: 0,
        depth: 0,
        failed: 0,
        errored_verdicts: 0,
        ms: 0,
      });
      t.requests++;
      t.depth = Math.max(t.depth, request.doubleCheck ? 2 : 1);
      const asked = performance.now();
      try {
        const response = await inner.judge(request, options);
        t.calls += response.calls;
        t.errored_verdicts += response.verdicts.filter((v) => !v.ok).length;
        return response;
      } catch (error) {
        t.failed++;
        throw error;
      } finally {
        t.ms += performance.now() - asked;
      }
    },
  };
  const phases: ChildOutput["phases"] = {};
  const started = performance.now();
  const run = await lib.runExperiment(lib.resolveScenario(args.scenario), {
    model,
    modelName: "openai-compatible:agents",
    judge,
    store: args.db,
    scale: args.scale,
    population: args.population,
    concurrency: args.concurrency,
    ...(args.environmentConcurrency === undefined
      ? {}
      : { environmentConcurrency: args.environmentConcurrency }),
    onProgress: (event) => {
      if (event.type === "environment")
        (phases[`${event.arm}:${event.index}`] ??= {})[event.phase] = performance.now() - started;
    },
  });
  const ended = performance.now();
  await inner.close?.();
  const output: ChildOutput = {
    process_ms: ended - began,
    run_ms: ended - started,
    document: run.document,
    drafts,
    judge: tally,
    phases,
  };
  writeFileSync(args.out, JSON.stringify(output));
}

// ── The critical path, from what the run did ──────────────────────────────────────────────────────────────

interface RunPath {
  run: string;
  /** Model calls in sequence: the world's steps, the rapporteur, the judged verdicts. */
  world: number;
  rapporteur: number;
  judging: number;
  total: number;
}

interface PathModel {
  runs: RunPath[];
  /** The longest run, in calls. */
  longest: number;
  /** What the model says the judge was asked, to hold against the judge requests counted. */
  predicted: { interventions: number; gate_rounds: number };
  /** The agent calls the drafts add up to. */
  agent_calls: number;
  /** Every act committed one message (nothing dropped): the intervention count above relies on it. */
  nothing_dropped: boolean;
  /** Every member acted once a step, the rapporteur once more: the drafts are attributed to their steps. */
  one_act_a_step: boolean;
  /** Judge calls in sequence of a gate round, an intervention check and a judged verdict (g, v and D). */
  depths: { gate: number; intervention: number; verdict: number };
}

/** The critical path of every environment run (see the file header), in model calls. */
function criticalPath(
  document: ResultDocument,
  drafts: ChildOutput["drafts"],
  judge: ChildOutput["judge"],
): PathModel {
  const g = judge.gate?.depth ?? 1;
  const v = judge.intervention?.depth ?? 1;
  const d = Math.max(
    1,
    ...["extraction", "task_completion", "persona"].map((kind) => judge[kind]?.depth ?? 0),
  );
  const worldSteps = document.scenario.steps + 1;
  const runs: RunPath[] = [];
  let interventions = 0;
  let gateRounds = 0;
  let agentCalls = 0;
  let nothingDropped = true;
  let oneActAStep = true;
  for (const environment of document.environments)
    for (const arm of ["control", "treatment"] as const) {
      const key = `${arm}:${environment.index}`;
      const corrections = document.arms[arm].corrections;
      const gate = GATE_SWITCHES.some((s) => corrections[s] === true);
      const perDraft = 1 + (gate ? g : 0);
      const acts = drafts[key] ?? {};
      const record = environment.arms[arm];
      if (record.dropped > 0) nothingDropped = false;
      for (const member of environment.members) {
        const expected = worldSteps + (member === environment.rapporteur ? 1 : 0);
        if ((acts[member]?.length ?? 0) !== expected) oneActAStep = false;
      }
      let world = 0;
      for (let s = 0; s < worldSteps; s++) {
        // Before step s + 1, each agent has sent s messages (one per act, nothing dropped).
        let checks = 0;
        let longest = 0;
        for (const member of environment.members) {
          if (corrections.anti_convergence_enabled === true) checks++;
          if (
            corrections.variety_intervention_enabled === true &&
            s >= Number(corrections.variety_message_threshold)
          )
            checks++;
          longest = Math.max(longest, (acts[member]?.[s] ?? 0) * perDraft);
        }
        interventions += checks;
        world += checks * v + longest;
      }
      const rapporteur = (acts[environment.rapporteur]?.[worldSteps] ?? 0) * perDraft;
      for (const list of Object.values(acts))
        for (const n of list) {
          agentCalls += n;
          if (gate) gateRounds += n;
        }
      runs.push({ run: key, world, rapporteur, judging: d, total: world + rapporteur + d });
    }
  return {
    runs,
    longest: Math.max(...runs.map((r) => r.total)),
    predicted: { interventions, gate_rounds: gateRounds },
    agent_calls: agentCalls,
    nothing_dropped: nothingDropped,
    one_act_a_step: oneActAStep,
    depths: { gate: g, intervention: v, verdict: d },
  };
}

/**
 * The least wall time of the runner's own schedule, were the judge never a bottleneck: its pool takes the
 * environment runs in plan order (each environment's control, then its treatment), `parallel` at once, each
 * lasting its critical path. Above the bound, it says the schedule, not the calls, sets the wall time.
 */
function scheduleBound(runs: readonly RunPath[], parallel: number): number {
  const free = Array.from({ length: Math.min(parallel, runs.length) }, () => 0);
  for (const run of runs) {
    const i = free.indexOf(Math.min(...free));
    free[i]! += run.total;
  }
  return Math.max(...free);
}

// ── The bench ─────────────────────────────────────────────────────────────────────────────────────────────

export interface ExperimentRunFigures {
  scenario: string;
  /** `default` (the runner's environment concurrency) or `all` (every environment run at once). */
  schedule: "default" | "all";
  environment_concurrency: number;
  group_size: number;
  /** Environment runs: N_e per arm × 2 arms. */
  environment_runs: number;
  steps: number;
  exit_code: number | null;
  completed: boolean;
  errored: number;
  calls: { agent: number; judge: number; server_agent: number; server_judge: number };
  max_in_flight: { agent: number; judge: number };
  tokens: { agent: number; judge: number };
  per_run: {
    control: { agent_calls: number; judge_calls: number; tokens: number };
    treatment: { agent_calls: number; judge_calls: number; tokens: number };
  };
  judge_by_kind: Record<string, JudgeKindTally>;
  gate: { checks: number; corrected: number };
  wall_s: number;
  run_s: number;
  startup_s: number | null;
  throughput_s: number;
  path_s: number;
  bound_s: number;
  ratio: number;
  /** The runner's schedule with every run lasting its critical path (see scheduleBound). */
  schedule_s: number;
  /** Judge calls × L ÷ (C × run time): how busy the judge's slots were. */
  judge_utilisation: number;
  /** Mean seconds per run of the world (started → simulated) and of the judging (simulated → judged). */
  phase_s: { world: number; judging: number; world_path: number };
  /**
   * Mean seconds from asking to the answer of a gate round and of an intervention check, which are on their
   * run's critical path; their depth × L of it is the calls themselves, the rest a wait for a judge slot.
   */
  critical_request_s: { gate: number | null; intervention: number | null };
  /** Each environment run: its critical path and when (s since the run began) it reached each phase. */
  timeline: Array<{ run: string; path_s: number; world_path_s: number } & Record<string, number | string>>;
  model_matches: boolean;
  path_model: PathModel;
  peak_rss_mb: number;
  cpu_s: number;
}

const tokensOf = (u: { input_tokens: number; output_tokens: number }) => u.input_tokens + u.output_tokens;

/** The scenario at the bench's scale, its environment runs, and the runner's default runs at once. */
async function scaledPlan(name: string, concurrency: number) {
  const lib = await import("../src/entries/experiments.ts");
  const scaled = lib.scaleScenario(lib.resolveScenario(name), SCALE);
  const runs = 2 * scaled.environments;
  return { scaled, runs, parallel: Math.min(runs, Math.max(1, Math.floor(concurrency / scaled.group_size))) };
}

async function runScenario(options: {
  name: string;
  dir: string;
  servers: ExperimentServers;
  latencyMs: number;
  concurrency: number;
  schedule: "default" | "all";
}): Promise<ExperimentRunFigures> {
  const { name, dir, servers, latencyMs, concurrency, schedule } = options;
  const { scaled, runs, parallel: runnerDefault } = await scaledPlan(name, concurrency);
  const parallel = schedule === "all" ? runs : runnerDefault;
  const work = join(dir, `${name}-${schedule}`);
  const population = join(work, "people");
  writePopulation(population, scaled.population.size);
  const args: ChildArgs = {
    scenario: name,
    scale: SCALE,
    population,
    db: join(work, "store"),
    agentsUrl: servers.agentsUrl,
    judgeUrl: servers.judgeUrl,
    concurrency,
    ...(schedule === "all" ? { environmentConcurrency: runs } : {}),
    out: join(work, "child.json"),
  };
  const argsFile = join(work, "args.json");
  writeFileSync(argsFile, JSON.stringify(args));
  const usageFile = join(work, "usage.json");
  await servers.take();
  const spawnedAt = Date.now();
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...cliNodeOptions(), "--import", "tsx", MEASURE, usageFile, THIS_FILE, CHILD_FLAG, argsFile],
      // From the repository, where `--import tsx` resolves; every path the child uses is absolute.
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) process.stderr.write(stderr.slice(-3000));
      resolve(code);
    });
  });
  const wallMs = Date.now() - spawnedAt;
  const stats = await servers.take();
  if (exitCode !== 0) throw new Error(`the experiment's process for ${name} exited with ${exitCode}`);
  const usage = JSON.parse(readFileSync(usageFile, "utf8")) as { cpu_ms: number; max_rss_kb: number };
  const out = JSON.parse(readFileSync(args.out, "utf8")) as ChildOutput;
  const doc = out.document;
  const model = criticalPath(doc, out.drafts, out.judge);
  const agentCalls = doc.arms.control.calls.agent + doc.arms.treatment.calls.agent;
  const judgeCalls = doc.arms.control.calls.judge + doc.arms.treatment.calls.judge;
  const L = latencyMs / 1000;
  const throughput = ((stats.agents.calls + stats.judge.calls) * L) / concurrency;
  const path = model.longest * L;
  const bound = Math.max(throughput, path);
  const perArm = (arm: "control" | "treatment") => ({
    agent_calls: doc.arms[arm].calls.agent / scaled.environments,
    judge_calls: doc.arms[arm].calls.judge / scaled.environments,
    tokens:
      (tokensOf(doc.arms[arm].tokens.agent) + tokensOf(doc.arms[arm].tokens.judge)) / scaled.environments,
  });
  const phaseList = Object.values(out.phases);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const intervention = out.judge.intervention?.requests ?? 0;
  const gateRequests = out.judge.gate?.requests ?? 0;
  const records = doc.environments.flatMap((e) => [e.arms.control, e.arms.treatment]);
  return {
    scenario: name,
    schedule,
    environment_concurrency: parallel,
    group_size: scaled.group_size,
    environment_runs: runs,
    steps: scaled.steps,
    exit_code: exitCode,
    completed: doc.environments.length === scaled.environments,
    errored: doc.arms.control.errored + doc.arms.treatment.errored,
    calls: {
      agent: agentCalls,
      judge: judgeCalls,
      server_agent: stats.agents.calls,
      server_judge: stats.judge.calls,
    },
    max_in_flight: { agent: stats.agents.maxInFlight, judge: stats.judge.maxInFlight },
    tokens: {
      agent: tokensOf(doc.arms.control.tokens.agent) + tokensOf(doc.arms.treatment.tokens.agent),
      judge: tokensOf(doc.arms.control.tokens.judge) + tokensOf(doc.arms.treatment.tokens.judge),
    },
    per_run: { control: perArm("control"), treatment: perArm("treatment") },
    judge_by_kind: out.judge,
    gate: {
      checks: records.reduce((n, r) => n + r.gate.checks, 0),
      corrected: records.reduce((n, r) => n + r.gate.corrected, 0),
    },
    wall_s: wallMs / 1000,
    run_s: out.run_ms / 1000,
    startup_s: stats.agents.firstCallAt !== undefined ? (stats.agents.firstCallAt - spawnedAt) / 1000 : null,
    throughput_s: throughput,
    path_s: path,
    bound_s: bound,
    ratio: wallMs / 1000 / bound,
    schedule_s: scheduleBound(model.runs, parallel) * L,
    judge_utilisation: (stats.judge.calls * L) / (concurrency * (out.run_ms / 1000)),
    phase_s: {
      world: mean(phaseList.map((p) => ((p.simulated ?? 0) - (p.started ?? 0)) / 1000)),
      judging: mean(phaseList.map((p) => ((p.judged ?? 0) - (p.simulated ?? 0)) / 1000)),
      world_path: mean(model.runs.map((r) => (r.world + r.rapporteur) * L)),
    },
    critical_request_s: {
      gate: out.judge.gate ? out.judge.gate.ms / out.judge.gate.requests / 1000 : null,
      intervention: out.judge.intervention
        ? out.judge.intervention.ms / out.judge.intervention.requests / 1000
        : null,
    },
    timeline: model.runs.map((r) => ({
      run: r.run,
      path_s: r.total * L,
      world_path_s: (r.world + r.rapporteur) * L,
      ...Object.fromEntries(Object.entries(out.phases[r.run] ?? {}).map(([k, ms]) => [k, ms / 1000])),
    })),
    model_matches:
      model.nothing_dropped &&
      model.one_act_a_step &&
      model.predicted.interventions === intervention &&
      model.predicted.gate_rounds === gateRequests &&
      model.agent_calls === agentCalls,
    path_model: model,
    peak_rss_mb: usage.max_rss_kb / 1024,
    cpu_s: usage.cpu_ms / 1000,
  };
}

/**
 * Each built-in scenario at --scale 0.1 as the command runs it (its targets), then with every environment run
 * at once (for information: what the runner's environment concurrency costs).
 */
export async function benchExperimentRun({
  latencyMs,
  concurrency,
  scenarios = SCENARIOS,
  schedules = ["default", "all"],
}: {
  latencyMs: number;
  concurrency: number;
  scenarios?: readonly string[];
  schedules?: readonly ("default" | "all")[];
}): Promise<{ checks: Check[]; details: Record<string, unknown> }> {
  const dir = mkdtempSync(join(tmpdir(), "dramaturg-experiment-run-"));
  const servers = await startServers(latencyMs);
  const figures: ExperimentRunFigures[] = [];
  try {
    for (const schedule of schedules)
      for (const name of scenarios) {
        // All at once is the runner's own schedule when its default already runs every environment run.
        const { runs, parallel } = await scaledPlan(name, concurrency);
        if (schedule === "all" && parallel >= runs) continue;
        log(
          `  ${name}, ${schedule === "default" ? "the runner's schedule" : "every environment run at once"}…`,
        );
        const f = await runScenario({ name, dir, servers, latencyMs, concurrency, schedule });
        log(
          `    ${fmt(f.wall_s, 2)} s, bound ${fmt(f.bound_s, 2)} s (${fmt(f.ratio, 2)}×), ${fmt(f.peak_rss_mb)} MB`,
        );
        figures.push(f);
      }
  } finally {
    await servers.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const checks: Check[] = [];
  for (const f of figures) {
    const label = f.schedule === "default" ? f.scenario : `${f.scenario}, all at once`;
    if (f.schedule === "all") {
      checks.push({
        metric: `${label} (information): wall / bound; schedule bound`,
        value: `${fmt(f.wall_s, 2)} s / ${fmt(f.bound_s, 2)} s = ${fmt(f.ratio, 2)}×; ${fmt(f.schedule_s, 2)} s`,
      });
      continue;
    }
    const c = f.per_run.control;
    const t = f.per_run.treatment;
    checks.push(
      {
        metric: `${label}: environment runs completed (2 × N_e), errored verdicts, critical-path model = run`,
        value: `${f.environment_runs} (${f.completed ? "all" : "not all"}), ${f.errored}, ${f.model_matches ? "yes" : "no"}`,
        target: `${f.environment_runs} (all), 0, yes`,
        pass: f.exit_code === 0 && f.completed && f.errored === 0 && f.model_matches,
      },
      {
        metric: `${label}: calls agent / judge (server saw; max in flight)`,
        value: `${fmt(f.calls.agent)} / ${fmt(f.calls.judge)} (${fmt(f.calls.server_agent)} / ${fmt(f.calls.server_judge)}; ${f.max_in_flight.agent} / ${f.max_in_flight.judge})`,
      },
      {
        metric: `${label}: tokens agent / judge`,
        value: `${fmt(f.tokens.agent)} / ${fmt(f.tokens.judge)}`,
      },
      {
        metric: `${label}: per environment run, control | treatment: agent calls, judge calls, tokens`,
        value: `${fmt(c.agent_calls)}, ${fmt(c.judge_calls)}, ${fmt(c.tokens)} | ${fmt(t.agent_calls)}, ${fmt(t.judge_calls)}, ${fmt(t.tokens)}`,
      },
      {
        metric: `${label}: bound = max(throughput, path); schedule bound (${f.environment_concurrency} runs at once)`,
        value: `max(${fmt(f.throughput_s, 2)}, ${fmt(f.path_s, 2)}) = ${fmt(f.bound_s, 2)} s; ${fmt(f.schedule_s, 2)} s`,
      },
      {
        metric: `${label}: wall, spawn to exit (start-up to first agent call; judge slots busy)`,
        value: `${fmt(f.wall_s, 2)} s (${f.startup_s === null ? "none" : fmt(f.startup_s, 2)} s; ${fmt(100 * f.judge_utilisation)} %)`,
      },
      {
        metric: `${label}: a gate round / an intervention check, asked to answered (the calls alone)`,
        value: [f.critical_request_s.gate, f.critical_request_s.intervention]
          .map((x) => (x === null ? "none" : `${fmt(x, 2)} s`))
          .join(" / ")
          .concat(
            ` (${fmt((f.path_model.depths.gate * latencyMs) / 1000, 2)} s / ${fmt(latencyMs / 1000, 2)} s)`,
          ),
      },
      {
        metric: `${label}: wall / bound`,
        value: `${fmt(f.ratio, 2)}×`,
        target: `≤ ${fmt(MAX_RATIO, 2)}×`,
        pass: f.ratio <= MAX_RATIO,
      },
      {
        metric: `${label}: peak RSS`,
        value: `${fmt(f.peak_rss_mb)} MB`,
        target: `< ${fmt(MAX_RSS_MB)} MB`,
        pass: f.peak_rss_mb < MAX_RSS_MB,
      },
    );
  }
  return { checks, details: { scale: SCALE, latency_ms: latencyMs, concurrency, figures } };
}

// ── Roles ─────────────────────────────────────────────────────────────────────────────────────────────────

const role = workerData as { role?: string; latencyMs?: number } | null;
if (!isMainThread && parentPort && role?.role === SERVERS_ROLE)
  await serveInWorker(parentPort, role.latencyMs!);
else if (isMainThread && process.argv[1] === THIS_FILE && process.argv[2] === CHILD_FLAG) {
  await experimentChild(process.argv[3]!);
  // As the command does once its report is out: undici's idle keep-alive sockets are not waited for.
  process.exit(0);
}
