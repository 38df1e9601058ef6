// Issue 37's continuous evaluation: 100 messages a second imported for 60 s into a PostgreSQL store while an
// online rule sampling 5 % of them is scheduled every minute (pg-boss's cron) and two `dramaturg worker`
// processes (concurrency 8 each) run it against the fake judge at 200 ms. Measured for every sampled message:
// from its import to the start of the run that sampled it (the schedule's part: at most one period) and to
// the end of that run (evaluated); and whether each run ended before the next one was due (no backlog).
// PostgreSQL from DRAMATURG_TEST_POSTGRES_URL, a database of its own, dropped at the end; skipped without it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { openStore } from "../src/engine/index.ts";
import type { OnlineTick } from "../src/online/index.ts";
import { scheduleOnlineRules } from "../src/queue/index.ts";
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
const RATE = 100;
const SECONDS = 60;
const SAMPLE = 0.05;
const PERIOD_S = 60;
const WORKERS = 2;
const CONCURRENCY = 8;
const LATENCY_MS = 200;

function worker(db: string, cwd: string): { child: ChildProcess; done: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, "worker", "--db", db, "--concurrency", String(CONCURRENCY)], {
    cwd,
    stdio: ["ignore", "ignore", "inherit"],
  });
  return { child, done: new Promise((resolve) => child.on("exit", (code) => resolve(code))) };
}

export async function benchOnline(): Promise<Outcome> {
  if (!benchPostgresUrl) return skippedWithoutPostgres();
  const dir = mkdtempSync(join(tmpdir(), "dramaturg-bench-online-"));
  const server = await startFakeOpenAIServer({ recordRequests: false, latencyMs: LATENCY_MS });
  const db = await benchDatabase("online");
  const store = await openStore(db);
  const workers: ReturnType<typeof worker>[] = [];
  try {
    const traffic = syntheticTranscript({ messages: RATE * SECONDS, agents: 10, channels: 10, seed: 7 });
    await store.agents.upsert(traffic.agents);
    for (let i = 0; i < WORKERS; i++) workers.push(worker(db, dir));
    const [{ now }] = (await store.db!.query<{ now: Date }>("SELECT now()")).rows as [{ now: Date }];
    const tick: OnlineTick = {
      rule: {
        name: "bench",
        source: "messages",
        sample: { rate: SAMPLE },
        dimensions: ["adherence"],
        schedule: "* * * * *",
      },
      judge: "openai-compatible:fake-model",
      judge_base_url: server.url,
      regression: 1,
      since: now.toISOString(),
    };
    await scheduleOnlineRules(store, db, [tick]);
    log(`  importing ${RATE} messages a second for ${SECONDS} s; the rule runs every minute…`);
    const started = Date.now();
    for (let s = 0; s < SECONDS * 10; s++) {
      const slice = traffic.messages.slice(s * (RATE / 10), (s + 1) * (RATE / 10));
      await store.messages.import("traffic", slice);
      const next = started + (s + 1) * 100;
      await sleep(Math.max(0, next - Date.now()));
    }
    const lastImport = (
      await store.db!.query<{ at: Date }>("SELECT max(imported_at) AS at FROM run_messages")
    ).rows[0]!.at;
    log("  imported; waiting for the runs that cover the last import…");
    const deadline = Date.now() + 4 * PERIOD_S * 1000;
    for (;;) {
      const covered = await store.db!.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM online_runs WHERE window_end >= $1 AND status <> 'queued'`,
        [lastImport],
      );
      const open = await store.db!.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM online_runs WHERE status = 'queued'",
      );
      if ((covered.rows[0]!.n > 0 && open.rows[0]!.n === 0) || Date.now() > deadline) break;
      await sleep(1000);
    }
    const runs = (
      await store.db!.query<{
        id: string;
        created_at: Date;
        finished_at: Date | null;
        status: string;
        messages: number;
        sampled: number;
        outcome: { messages?: { source: string; id: string }[] } | null;
      }>("SELECT * FROM online_runs ORDER BY window_start")
    ).rows;
    const imported = new Map(
      (
        await store.db!.query<{ id: string; imported_at: Date }>("SELECT id, imported_at FROM run_messages")
      ).rows.map((r) => [r.id, r.imported_at.getTime()]),
    );
    const toStart: number[] = [];
    const toEvaluated: number[] = [];
    for (const run of runs)
      for (const m of run.outcome?.messages ?? []) {
        const at = imported.get(m.id)!;
        toStart.push((run.created_at.getTime() - at) / 1000);
        if (run.finished_at) toEvaluated.push((run.finished_at.getTime() - at) / 1000);
      }
    const sampled = runs.reduce((a, r) => a + r.sampled, 0);
    const seen = runs.reduce((a, r) => a + r.messages, 0);
    const judged = runs.filter((r) => r.sampled > 0);
    const durations = judged.map(
      (r) => ((r.finished_at?.getTime() ?? Number.NaN) - r.created_at.getTime()) / 1000,
    );
    const maxOf = (values: number[]) => (values.length ? Math.max(...values) : Number.NaN);
    const backlog = judged.some((r, i) => {
      const next = judged[i + 1];
      return (
        next !== undefined &&
        (r.finished_at?.getTime() ?? Number.POSITIVE_INFINITY) > next.created_at.getTime()
      );
    });
    const checks: Check[] = [
      {
        metric: "messages imported / looked at by the rule's runs",
        value: `${fmt(imported.size)} / ${fmt(seen)}`,
        target: "every one, once",
        pass: seen === imported.size,
      },
      {
        metric: `sampled (${SAMPLE * 100} %) and evaluated`,
        value: `${fmt(sampled)} (${fmt((100 * sampled) / Math.max(1, seen), 1)} %), ${fmt(toEvaluated.length)} evaluated`,
        target: "all sampled evaluated",
        pass: sampled > 0 && toEvaluated.length === sampled && runs.every((r) => r.status !== "failed"),
      },
      {
        metric: "import → the run that samples it starts, max",
        value: `${fmt(maxOf(toStart), 1)} s`,
        target: `≤ one period (${PERIOD_S} s) + 5 s`,
        pass: maxOf(toStart) <= PERIOD_S + 5,
      },
      {
        metric: "import → evaluated, max (the period plus a run)",
        value: `${fmt(maxOf(toEvaluated), 1)} s; runs took ${durations.map((d) => fmt(d, 1)).join(", ")} s`,
        target: "each run ends before the next is due",
        pass: !backlog && durations.every((d) => d < PERIOD_S),
      },
    ];
    return {
      checks,
      details: {
        runs: runs.map((r) => ({
          status: r.status,
          messages: r.messages,
          sampled: r.sampled,
          started: r.created_at.toISOString(),
          finished: r.finished_at?.toISOString() ?? null,
        })),
        max_to_start_s: maxOf(toStart),
        max_to_evaluated_s: maxOf(toEvaluated),
        judge_calls: server.stats.calls,
      },
    };
  } finally {
    for (const w of workers) w.child.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.done));
    await store.close();
    await server.close();
    await dropBenchDatabases();
    rmSync(dir, { recursive: true, force: true });
  }
}
