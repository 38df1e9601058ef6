// Issue 37's shared rate limit: three `dramaturg worker` processes, each with dramaturg.yaml's
// `judge.rate_limit.requests_per_minute: 3000`, judge one queued persona evaluation of over 2,000 calls against
// the fake OpenAI-compatible server at 20 ms (far faster than the limit: 3 × 8 calls in flight could send
// 1,200 a second). The server notes every request's arrival; the target is the issue's: no 10-second window
// holds more than 1.05 × 500 requests. Also reported: the mean rate achieved against 50 a second, and what
// the limiter's one round trip costs a call (acquires on the same database with a limit too high to wait).
// PostgreSQL from DRAMATURG_TEST_POSTGRES_URL, a database of its own, dropped at the end; skipped without it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "../src/engine/index.ts";
import { SharedRateLimits } from "../src/rate-limit/index.ts";
import { startFakeOpenAIServer, syntheticTranscript } from "../src/testing/index.ts";
import {
  benchDatabase,
  benchPostgresUrl,
  dropBenchDatabases,
  skippedWithoutPostgres,
} from "./postgres-bench.ts";
import { type Check, fmt, log, type Outcome } from "./report.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin/dramaturg.js");
const REQUESTS_PER_MINUTE = 3000;
const WORKERS = 3;
const CONCURRENCY = 8;
const LATENCY_MS = 20;
const WINDOW_MS = 10_000;
/** The target: a window may exceed its share of the limit by 5 % at most. */
const MAX_OVER = 1.05;
/** 520 messages of 4 agents: 2,080 adherence calls, one per agent action. */
const MESSAGES = 520;
const ACQUIRES = 2_000;

/** The most arrivals in any window of `ms` that starts at an arrival, and when it starts (ms after the first). */
export function busiestWindow(sorted: readonly number[], ms: number): { count: number; at_ms: number } {
  let most = { count: 0, at_ms: 0 };
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j]! < sorted[i]! + ms) j++;
    if (j - i > most.count) most = { count: j - i, at_ms: Math.round(sorted[i]! - sorted[0]!) };
  }
  return most;
}

/** Arrivals in each second after the first. */
function perSecond(sorted: readonly number[]): number[] {
  const counts: number[] = [];
  for (const t of sorted) {
    const s = Math.floor((t - sorted[0]!) / 1000);
    counts[s] = (counts[s] ?? 0) + 1;
  }
  return Array.from(counts, (c) => c ?? 0);
}

function run(
  args: string[],
  cwd: string,
): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

/** Mean milliseconds of one acquire (one UPDATE … RETURNING), one after another and 8 at a time. */
async function acquireCost(db: string): Promise<{ sequential_ms: number; concurrent_ms: number }> {
  const store = await openStore(db);
  try {
    const limiter = new SharedRateLimits(store.db!).limiter("bench:cost:0", {
      requestsPerMinute: 1_000_000_000,
    });
    for (let i = 0; i < 100; i++) await limiter.acquire(0);
    let started = performance.now();
    for (let i = 0; i < ACQUIRES; i++) await limiter.acquire(0);
    const sequential = (performance.now() - started) / ACQUIRES;
    started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < ACQUIRES / 8; i++) await limiter.acquire(0);
      }),
    );
    const concurrent = (performance.now() - started) / ACQUIRES;
    return { sequential_ms: sequential, concurrent_ms: concurrent };
  } finally {
    await store.close();
  }
}

export async function benchQueueRateLimit(): Promise<Outcome> {
  if (!benchPostgresUrl) return skippedWithoutPostgres();
  const dir = mkdtempSync(join(tmpdir(), "dramaturg-bench-limit-"));
  const arrivals: number[] = [];
  const server = await startFakeOpenAIServer({
    recordRequests: false,
    latencyMs: () => {
      arrivals.push(performance.timeOrigin + performance.now());
      return LATENCY_MS;
    },
  });
  const db = await benchDatabase("limit");
  const workers: ReturnType<typeof run>[] = [];
  try {
    const transcript = join(dir, "transcript.json");
    writeFileSync(
      transcript,
      JSON.stringify(syntheticTranscript({ messages: MESSAGES, agents: 4, channels: 2 })),
    );
    writeFileSync(
      join(dir, "dramaturg.yaml"),
      `judge:\n  concurrency: ${CONCURRENCY}\n  rate_limit:\n    requests_per_minute: ${REQUESTS_PER_MINUTE}\n`,
    );
    // Migrated once here, so the workers do not race to create the schema.
    await (await openStore(db)).close();
    for (let i = 0; i < WORKERS; i++)
      workers.push(run(["worker", "--db", db, "--concurrency", String(CONCURRENCY)], dir));
    log(
      `  ${WORKERS} workers at ${REQUESTS_PER_MINUTE} requests a minute; queueing ≈ ${MESSAGES * 4} calls…`,
    );
    const started = Date.now();
    const queued = await run(
      [
        "eval",
        transcript,
        "--judge",
        "openai-compatible:fake-model",
        "--judge-base-url",
        server.url,
        "--db",
        db,
        "--dimensions",
        "adherence",
        "--queue",
        "--no-progress",
        "--format",
        "json",
      ],
      dir,
    ).done;
    const wallMs = Date.now() - started;
    if (queued.code !== 0) throw new Error(`eval --queue exited ${queued.code}: ${queued.stderr}`);
    const result = JSON.parse(queued.stdout) as { totals: { requests: number; errored?: number } };
    const sorted = [...arrivals].sort((a, b) => a - b);
    const n = sorted.length;
    const limitPerWindow = (REQUESTS_PER_MINUTE * WINDOW_MS) / 60_000;
    const busiest = busiestWindow(sorted, WINDOW_MS);
    const busiestSecond = busiestWindow(sorted, 1000);
    const spanS = (sorted[n - 1]! - sorted[0]!) / 1000;
    const meanRate = (n - 1) / spanS;
    log(`  ${fmt(n)} requests in ${fmt(spanS, 1)} s; measuring the limiter's round trip…`);
    const cost = await acquireCost(db);
    const checks: Check[] = [
      {
        metric: "requests at the fake server (planned calls)",
        value: `${fmt(n)} (${fmt(result.totals.requests)})`,
        target: "≥ 2,000, all planned",
        pass: n >= 2000 && n >= result.totals.requests,
      },
      {
        metric: `the busiest ${WINDOW_MS / 1000}-second window at the judge`,
        value: `${fmt(busiest.count)} (${fmt(busiest.count / limitPerWindow, 3)}× the limit's ${fmt(limitPerWindow)})`,
        target: `≤ ${fmt(MAX_OVER * limitPerWindow)}`,
        pass: busiest.count <= MAX_OVER * limitPerWindow,
      },
      {
        metric: "the busiest 1-second window (the limit's 50)",
        value: `${fmt(busiestSecond.count)}, ${fmt(busiestSecond.at_ms / 1000, 1)} s after the first`,
      },
      {
        metric: "mean rate achieved, first to last arrival",
        value: `${fmt(meanRate, 1)} /s (${fmt(meanRate / 50, 3)}× of 50 /s)`,
      },
      { metric: "eval --queue wall time (workers' start-up aside)", value: `${fmt(wallMs / 1000, 1)} s` },
      {
        metric: "the limiter's round trip per call: one after another (8 at a time)",
        value: `${fmt(cost.sequential_ms, 3)} ms (${fmt(cost.concurrent_ms, 3)} ms)`,
      },
    ];
    return {
      checks,
      details: {
        requests: n,
        planned: result.totals.requests,
        busiest_window: busiest,
        busiest_second: busiestSecond,
        limit_per_window: limitPerWindow,
        per_second: perSecond(sorted),
        span_s: spanS,
        mean_rate_per_s: meanRate,
        wall_ms: wallMs,
        acquire_ms: cost,
      },
    };
  } finally {
    for (const w of workers) w.child.kill("SIGTERM");
    const exits = await Promise.all(workers.map((w) => w.done));
    for (const e of exits) if (e.code !== 0) log(`  a worker exited ${e.code}: ${e.stderr.slice(-500)}`);
    await server.close();
    await dropBenchDatabases();
    rmSync(dir, { recursive: true, force: true });
  }
}
