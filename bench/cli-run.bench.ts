// The command a user runs, measured the way the shared peer benchmark measures Dramaturg beside autoevals and
// openevals (issue 18): the built CLI (the package's bin, `eval`) in a fresh process, on a workload of the
// same shape (N messages by three characters, each in a channel of its own, five adherence claims per
// character, the judge shown the persona and the message), judged by the fake OpenAI-compatible server over
// HTTP with 16 calls in flight. Per run: start-up (process spawn to the server's first request), wall time
// and its ratio to the ideal (calls × latency / 16), verdicts/s, CPU milliseconds per verdict and peak RSS of
// the whole process (every thread), and tokens per verdict as the server counts them (characters / 4 of the
// messages and the answer, plus the answer schema a provider bills too).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { WorkerServer } from "./fake-server-worker.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const MEASURE = fileURLToPath(new URL("./measure-process.mjs", import.meta.url));

/** The package's bin (`dramaturg`), the bundle scripts/bundle-cli.mjs writes: what npx and a user run. */
export const CLI_BIN = join(
  ROOT,
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: { dramaturg: string } }).bin
    .dramaturg,
);

/**
 * The Node options the `dramaturg` command starts with: those of its shebang (`#!/usr/bin/env -S node …`),
 * which the command gets when it is run as a user runs it; here it is run with this Node, so they are
 * given here.
 */
export function cliNodeOptions(): string[] {
  // The entry's source: the bundle keeps its shebang, and the source is there before any build.
  const shebang = readFileSync(join(ROOT, "src/cli/main.ts"), "utf8").split("\n", 1)[0]!;
  return shebang
    .replace(/^#!.*?\bnode\b/, "")
    .split(/\s+/)
    .filter(Boolean);
}

const CHARACTERS = [
  {
    id: "harbour-pilot",
    name: "Ines Quarrel",
    persona:
      "a blunt harbour pilot in a rain-soaked port town who counts tides, mistrusts shipowners and never wastes a word; setting: a fishing port of the 1890s, with sail, steam and oil lamps",
    lines: [
      "Tide turns at four. We go then or not at all.",
      "Your owner wants speed. The sandbar wants patience. The sandbar wins.",
      "Lamps lit on the breakwater. Fog by midnight, mark me.",
      "Pay the tug, or row her in yourselves.",
    ],
  },
  {
    id: "archive-keeper",
    name: "Master Tobias Fenn",
    persona:
      "a courteous, rambling keeper of a university archive who cites dusty statutes and avoids quarrels; setting: an old university library in a small kingdom without printing presses",
    lines: [
      "The statute of the third chancellor is quite clear on borrowing, though I confess the ink has faded somewhat.",
      "Perhaps we might consult the ledger together, if it is no trouble, before anyone raises their voice.",
      "I recall a similar request some forty winters ago; it ended, as these things do, with a very long letter.",
      "Candles are not permitted past the second shelf, I am afraid, by order of a committee long dissolved.",
    ],
  },
  {
    id: "orbital-engineer",
    name: "Dr. Kemi Adebayo-Lund",
    persona:
      "a precise, upbeat orbital systems engineer who speaks in measurements and checklists and loves a clean telemetry plot; setting: a research station in low Earth orbit in 2090",
    lines: [
      "Coolant loop B is at 281 kelvin and holding; that is a lovely, flat line.",
      "Checklist item seven: torque the hatch seals to 40 newton-metres, then log it.",
      "Solar array drift is 0.3 degrees per orbit, well inside tolerance.",
      "Telemetry packet loss dropped to 0.02 percent after the antenna realignment.",
    ],
  },
] as const;

const CLAIMS = (name: string, persona: string) => [
  `The message is consistent with the persona: ${persona.split(";")[0]}.`,
  `The tone and manner of the message fit ${name}.`,
  `The message mentions nothing that could not exist in ${name}'s setting.`,
  `The message sounds like ${name} and not like a generic assistant.`,
  `Nothing in the message contradicts what ${name} values or believes.`,
];

/** Writes the workload (transcript and propositions) for `messages` messages into `dir`. */
export function writeCliWorkload(
  dir: string,
  messages: number,
): { transcript: string; propositions: string } {
  const agents = CHARACTERS.map((c) => ({ id: c.id, name: c.name, persona: c.persona }));
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const rows = Array.from({ length: messages }, (_, k) => {
    const c = CHARACTERS[k % CHARACTERS.length]!;
    const line = c.lines[(k * 7) % c.lines.length]!;
    return {
      id: `m-${k}`,
      sender: c.id,
      channel: `c-${k}`,
      text: `${line} (${k})`,
      at: new Date(t0 + k * 1000).toISOString(),
    };
  });
  const transcript = join(dir, "transcript.json");
  writeFileSync(transcript, JSON.stringify({ format: "dramaturg.transcript/v1", agents, messages: rows }));
  const propositions = join(dir, "propositions");
  mkdirSync(join(propositions, "adherence"), { recursive: true });
  // No default set: only the five claims per character.
  writeFileSync(join(propositions, "adherence", "_default.yaml"), "dimension: adherence\npropositions: []\n");
  for (const c of CHARACTERS) {
    const claims = CLAIMS(c.name, c.persona)
      .map((claim, i) => `  - id: c${i + 1}\n    claim: ${JSON.stringify(claim)}\n    weight: 1.0`)
      .join("\n");
    writeFileSync(
      join(propositions, "adherence", `${c.id}.yaml`),
      `dimension: adherence\nagent_id: ${c.id}\ninclude_personas: true\nfirst_n: 0\nlast_n: 1\npropositions:\n${claims}\n`,
    );
  }
  return { transcript, propositions };
}

export interface CliRunFigures {
  mode: "individual" | "batch";
  latency_ms: number;
  db: string;
  cache: boolean;
  exit_code: number | null;
  verdicts: number;
  errored: number;
  /** A stored evaluation was reused whole (`totals.cache.reused_from`). */
  reused: boolean;
  calls: number;
  wall_s: number;
  /** Process spawn to the server's first request. */
  startup_s: number | null;
  ideal_s: number;
  ratio_to_ideal: number | null;
  verdicts_per_s: number;
  cpu_ms_per_verdict: number;
  peak_rss_mb: number;
  tokens_per_verdict: number;
  schema_tokens_per_verdict: number;
}

export interface CliRunOptions {
  dir: string;
  /** The fake judge; one server for runs that share a verdict cache (the cache keys the judge's URL). */
  server: WorkerServer;
  workload: { transcript: string; propositions: string };
  messages: number;
  mode: "individual" | "batch";
  latencyMs: number;
  db: string;
  cache?: boolean;
  concurrency?: number;
}

/** One timed `dramaturg eval` of the workload in a fresh process. */
export async function cliRun(options: CliRunOptions): Promise<CliRunFigures> {
  const { dir, server, workload, messages, mode, latencyMs, db, cache = false, concurrency = 16 } = options;
  await server.takeStats();
  const usageFile = join(dir, `usage-${mode}-${latencyMs}-${Date.now()}.json`);
  const out = join(dir, "out.json");
  const args = [
    ...cliNodeOptions(),
    MEASURE,
    usageFile,
    CLI_BIN,
    "eval",
    workload.transcript,
    "--propositions",
    workload.propositions,
    "--dimensions",
    "adherence",
    "--judge",
    "openai:fake-model",
    "--judge-base-url",
    server.url,
    "--mode",
    mode,
    "--concurrency",
    String(concurrency),
    ...(cache ? [] : ["--no-cache"]),
    "--db",
    db,
    "--format",
    "json",
    "--out",
    out,
  ];
  const spawnedAt = Date.now();
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, OPENAI_API_KEY: "not-a-real-key" },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) process.stderr.write(stderr.slice(-2000));
      resolve(code);
    });
  });
  const wall_s = (Date.now() - spawnedAt) / 1000;
  const stats = await server.takeStats();
  const usage = JSON.parse(readFileSync(usageFile, "utf8")) as { cpu_ms: number; max_rss_kb: number };
  const result = JSON.parse(readFileSync(out, "utf8")) as {
    totals: { verdicts: number; errored: number; cache?: { reused_from?: string } };
  };
  const verdicts = messages * 5;
  const ideal_s = ((mode === "batch" ? messages : verdicts) * latencyMs) / 1000 / concurrency;
  return {
    mode,
    latency_ms: latencyMs,
    db,
    cache,
    exit_code: exitCode,
    verdicts: result.totals.verdicts,
    errored: result.totals.errored,
    reused: result.totals.cache?.reused_from !== undefined,
    calls: stats.calls,
    wall_s,
    startup_s: stats.firstCallAt !== undefined ? (stats.firstCallAt - spawnedAt) / 1000 : null,
    ideal_s,
    ratio_to_ideal: ideal_s > 0 ? wall_s / ideal_s : null,
    verdicts_per_s: verdicts / wall_s,
    cpu_ms_per_verdict: usage.cpu_ms / verdicts,
    peak_rss_mb: usage.max_rss_kb / 1024,
    tokens_per_verdict: (stats.tokens.prompt + stats.tokens.completion) / verdicts,
    schema_tokens_per_verdict: stats.tokens.schema / verdicts,
  };
}
