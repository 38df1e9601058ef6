// Resume after a kill: `dramaturg eval` (a real process, live judge over HTTP against the fake server) is
// SIGKILLed when the server has seen half the calls of an uninterrupted run, then `dramaturg eval --resume`
// finishes it. Both parts together must make at most the uninterrupted run's calls plus twice the
// concurrency (the calls in flight at the kill, and without the verdict cache the answers being committed:
// one of each per worker), and leave exactly the uninterrupted run's scores.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "../src/store/index.ts";
import {
  type FakeOpenAIServer,
  killAfterCalls,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../src/testing/index.ts";
import { BENCH_PROPOSITIONS } from "./persona.bench.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin/dramaturg.js");

export interface ResumeFigures {
  /** Whether the verdict cache was on in the killed run and the resume (`--no-cache` otherwise). */
  cache: boolean;
  messages: number;
  concurrency: number;
  latency_ms: number;
  /** Calls the uninterrupted run made, and its wall time (process start to exit). */
  whole_calls: number;
  whole_ms: number;
  /** Calls the server had seen when the kill was sent, and those the killed process made in all. */
  kill_at_calls: number;
  part1_calls: number;
  /** Verdicts the killed run had stored (ok or trivial). */
  part1_stored: number;
  part2_calls: number;
  part2_ms: number;
  /** part1 + part2 − whole: the calls the kill cost (in flight when it came). */
  extra_calls: number;
  /** Stored scores: one row per verdict key, the same keys, statuses and scores as the uninterrupted run. */
  rows: number;
  duplicate_rows: number;
  same_scores: boolean;
  same_overall: boolean;
  status: string;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  ms: number;
}

function run(args: string[]): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve({ code, signal, stderr, ms: performance.now() - started }));
  });
}

async function stored(db: string) {
  const store = await openStore(db);
  try {
    const evaluations = await store.evaluations.list({ kind: "persona" });
    const runs = await store.runs.list({});
    const rows = evaluations.length ? await store.scores.forEvaluation(evaluations[0]!.id) : [];
    return { evaluation: evaluations[0], runs, rows };
  } finally {
    await store.close();
  }
}

/**
 * Uninterrupted run, killed run, resume; `messages` × 5 adherence propositions, individual mode. The
 * uninterrupted run never uses the cache; with `cache: false` neither do the other two, so the resume has
 * to judge every verdict the killed run did not store (the cache would answer those it had judged).
 */
export async function benchResume({
  messages = 600,
  concurrency = 16,
  latencyMs = 20,
  cache = false,
}: {
  messages?: number;
  concurrency?: number;
  latencyMs?: number;
  cache?: boolean;
} = {}): Promise<ResumeFigures> {
  const dir = mkdtempSync(join(tmpdir(), "dramaturg-bench-resume-"));
  const server: FakeOpenAIServer = await startFakeOpenAIServer({ latencyMs, recordRequests: false });
  try {
    const transcript = join(dir, "transcript.json");
    writeFileSync(transcript, JSON.stringify(syntheticTranscript({ messages, agents: 4, channels: 2 })));
    const noCache = (withCache: boolean) => (withCache ? [] : ["--no-cache"]);
    const evalArgs = (db: string, withCache: boolean) => [
      "eval",
      transcript,
      "--propositions",
      BENCH_PROPOSITIONS,
      "--dimensions",
      "adherence",
      "--mode",
      "individual",
      "--judge",
      "openai-compatible:fake-model",
      "--judge-base-url",
      server.url,
      "--db",
      db,
      "--concurrency",
      String(concurrency),
      ...noCache(withCache),
      "--no-progress",
    ];
    const failed = (what: string, exit: Exit) =>
      new Error(`${what} exited with ${exit.code ?? exit.signal}: ${exit.stderr.trim()}`);

    const whole = join(dir, "whole");
    let before = server.stats.calls;
    const reference = await run(evalArgs(whole, false));
    if (reference.code !== 0) throw failed("the uninterrupted run", reference);
    const wholeCalls = server.stats.calls - before;

    const killed = join(dir, "killed");
    const half = Math.floor(wholeCalls / 2);
    before = server.stats.calls;
    const part1 = await killAfterCalls([process.execPath, BIN, ...evalArgs(killed, cache)], {
      server,
      calls: half,
      cwd: ROOT,
    });
    const killAt = part1.callsAtKill;
    if (!part1.killed) throw new Error(`the run to kill ended before the kill: ${part1.stderr.trim()}`);
    // Requests the killed process had sent are answered (or dropped) by now; count them all.
    await new Promise((resolve) => setTimeout(resolve, latencyMs * 5));
    const part1Calls = server.stats.calls - before;
    const partial = await stored(killed);
    const part1Stored = partial.rows.filter((r) => r.status !== "errored").length;

    before = server.stats.calls;
    // (At the time of writing `eval --resume` reads `--no-cache` from nowhere: it uses the cache, which the
    // killed run left empty when it ran with --no-cache, so the resume still judges every missing verdict.)
    const part2 = await run(["eval", "--resume", "--db", killed, ...noCache(cache), "--no-progress"]);
    if (part2.code !== 0) throw failed("the resume", part2);
    const part2Calls = server.stats.calls - before;

    const a = await stored(whole);
    const b = await stored(killed);
    const scores = (rows: typeof a.rows) =>
      JSON.stringify(
        rows
          .map((r) => [r.verdict_key, r.status, r.raw_score, r.score] as const)
          .sort((x, y) => x[0].localeCompare(y[0])),
      );
    const overall = (runs: typeof a.runs) =>
      JSON.stringify(runs.map((r) => [r.agent_id, r.overall_score]).sort());
    return {
      cache,
      messages,
      concurrency,
      latency_ms: latencyMs,
      whole_calls: wholeCalls,
      whole_ms: Math.round(reference.ms),
      kill_at_calls: killAt,
      part1_calls: part1Calls,
      part1_stored: part1Stored,
      part2_calls: part2Calls,
      part2_ms: Math.round(part2.ms),
      extra_calls: part1Calls + part2Calls - wholeCalls,
      rows: b.rows.length,
      duplicate_rows: b.rows.length - new Set(b.rows.map((r) => r.verdict_key)).size,
      same_scores: b.rows.length === a.rows.length && scores(b.rows) === scores(a.rows),
      same_overall: overall(b.runs) === overall(a.runs),
      status: b.evaluation?.status ?? "missing",
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!))
  process.stdout.write(`${JSON.stringify(await benchResume(), null, 2)}\n`);
