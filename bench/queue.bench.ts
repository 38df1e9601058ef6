// Issue 37's queue benchmark, against the PostgreSQL server DRAMATURG_TEST_POSTGRES_URL names (skipped, saying
// so, without one): a persona evaluation of 5,000 judge calls (cli-run's workload: 1,000 messages × 5 adherence
// claims, individual mode) queued with `dramaturg eval --queue` and judged by three `dramaturg worker` processes
// (`bin/dramaturg.js`, concurrency 8 each), each database made for the run and dropped after it.
//   (a) the fake OpenAI-compatible server at 200 ms (on a worker thread of the bench): wall time from enqueue
//       (the evaluation row's creation) to completion, against 5,000 × 0.2 s / 24; the scores against one
//       in-process `dramaturg eval --concurrency 24` of the same workload.
//   (b) an instant judge (a fixtures file that answers every claim): CPU per verdict of the queued run (the
//       coordinating `eval --queue`, start-up included, through measure-process.mjs, plus each worker's CPU
//       from /proc between the enqueue and the completion) against the in-process run's (its whole process,
//       start-up included). Also the jobs per second the queue sustained and PostgreSQL bytes per verdict.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { CALLS_PER_JOB } from "../src/queue/jobs.ts";
import { writeCliWorkload } from "./cli-run.bench.ts";
import { startFakeServerInWorker } from "./fake-server-worker.ts";
import {
  benchDatabase,
  benchPostgresUrl,
  dropBenchDatabases,
  queryRows,
  skippedWithoutPostgres,
} from "./postgres-bench.ts";
import { type Check, fmt, log, type Outcome } from "./report.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin/dramaturg.js");
const MEASURE = fileURLToPath(new URL("./measure-process.mjs", import.meta.url));

const MESSAGES = 1_000;
const CALLS = MESSAGES * 5;
const WORKERS = 3;
const WORKER_CONCURRENCY = 8;
const LATENCY_MS = 200;
const MAX_WALL_RATIO = 1.15;
const MAX_CPU_RATIO = 1.5;

/** CPU milliseconds a live process has used (every thread), from /proc. */
function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** A `dramaturg` process; `done` resolves with its exit code and stderr. */
function run(args: string[], { measure }: { measure?: string } = {}) {
  const argv = measure ? [MEASURE, measure, BIN, ...args] : [BIN, ...args];
  const child: ChildProcess = spawn(process.execPath, argv, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, OPENAI_API_KEY: "not-a-real-key" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done, stderr: () => stderr };
}

/** Three workers, started and waiting for jobs; `stop()` drains them (SIGTERM). */
async function startWorkers(db: string) {
  const workers = Array.from({ length: WORKERS }, () =>
    run(["worker", "--db", db, "--concurrency", String(WORKER_CONCURRENCY)]),
  );
  const until = Date.now() + 30_000;
  while (!workers.every((w) => w.stderr().includes("taking jobs"))) {
    if (Date.now() > until)
      throw new Error(`workers did not start: ${workers.map((w) => w.stderr()).join("\n")}`);
    await sleep(50);
  }
  return {
    cpuMs: () => workers.map((w) => procCpuMs(w.child.pid!)),
    async stop() {
      for (const w of workers) w.child.kill("SIGTERM");
      const ended = await Promise.all(workers.map((w) => w.done));
      for (const e of ended)
        if (e.code !== 0) throw new Error(`a worker exited ${e.code}: ${e.stderr.slice(-2000)}`);
    },
  };
}

/** The one evaluation of a store: when it was created and completed, and its verdicts in key order. */
async function evaluationOf(db: string) {
  const [row] = await queryRows<{ id: string; status: string; created_at: Date; completed_at: Date | null }>(
    db,
    "SELECT id, status, created_at, completed_at FROM evaluations",
  );
  const scores = await queryRows<{
    verdict_key: string;
    status: string;
    score: number | null;
    raw_score: number | null;
  }>(db, "SELECT verdict_key, status, score, raw_score FROM evaluation_scores ORDER BY verdict_key");
  const runs = await queryRows<{ agent_id: string; overall_score: number | null }>(
    db,
    "SELECT agent_id, overall_score FROM evaluation_runs ORDER BY agent_id",
  );
  return { row, scores: JSON.stringify(scores), runs: JSON.stringify(runs), verdicts: scores.length };
}

/** Bytes on disk of the store's verdicts (with their indexes) and of the queue's tables (pg-boss's, the jobs' totals). */
async function sizes(db: string): Promise<{ scores: number; queue: number }> {
  const [row] = await queryRows<{ scores: string; queue: string }>(
    db,
    `SELECT pg_total_relation_size('evaluation_scores') AS scores,
            pg_total_relation_size('queued_job_totals') + (SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'pgboss' AND c.relkind = 'r') AS queue`,
  );
  return { scores: Number(row!.scores), queue: Number(row!.queue) };
}

async function waitCompleted(db: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = await queryRows<{ status: string; error: string | null }>(
      db,
      "SELECT status, error FROM evaluations",
    );
    if (rows[0]?.status === "completed") return;
    if (rows[0]?.status === "failed") throw new Error(`the queued evaluation failed: ${rows[0].error}`);
    if (Date.now() > until)
      throw new Error(`the queued evaluation is ${rows[0]?.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Runs (a) and (b), or one of them. */
export async function benchQueue({ parts = ["a", "b"] }: { parts?: ("a" | "b")[] } = {}): Promise<Outcome> {
  if (!benchPostgresUrl) return skippedWithoutPostgres();
  const dir = mkdtempSync(join(tmpdir(), "dramaturg-bench-queue-"));
  const freshDb = () => benchDatabase("queue");
  const server = await startFakeServerInWorker(LATENCY_MS);
  try {
    const workload = writeCliWorkload(dir, MESSAGES);
    const evalArgs = (db: string, judge: string[], extra: string[] = []) => [
      "eval",
      workload.transcript,
      "--propositions",
      workload.propositions,
      "--dimensions",
      "adherence",
      "--mode",
      "individual",
      ...judge,
      "--db",
      db,
      "--no-progress",
      "--format",
      "json",
      ...extra,
    ];
    const fake = ["--judge", "openai-compatible:fake-model", "--judge-base-url", server.url];
    const fixtures = join(dir, "instant.judge-fixtures.json");
    writeFileSync(
      fixtures,
      JSON.stringify({
        format: "dramaturg.judge-fixtures/v1",
        verdicts: [1, 2, 3, 4, 5].map((i) => ({
          dimension: "adherence",
          proposition_id: `c${i}`,
          score: (i * 2) % 10,
          reasoning: "Instant stand-in verdict.",
        })),
      }),
    );
    const instant = ["--judge", `fixtures:${fixtures}`];

    const checks: Check[] = [];
    const details: Record<string, unknown> = {};
    if (parts.includes("a")) {
      const a = await partA();
      checks.push(...a.checks);
      details.a = a.details;
    }
    if (parts.includes("b")) {
      const b = await partB();
      checks.push(...b.checks);
      details.b = b.details;
    }
    return { checks, details };

    /** (a) 200 ms: one process at concurrency 24, then three workers of 8. */
    async function partA() {
      log(`  (a) in process, concurrency 24 (~${fmt((CALLS * LATENCY_MS) / 24 / 1000)} s)…`);
      const dbA1 = await freshDb();
      const inProcessStarted = Date.now();
      const inProcess = await run(evalArgs(dbA1, fake, ["--concurrency", "24"])).done;
      const inProcessWall = (Date.now() - inProcessStarted) / 1000;
      if (inProcess.code !== 0)
        throw new Error(`in-process eval exited ${inProcess.code}: ${inProcess.stderr.slice(-2000)}`);
      const reference = await evaluationOf(dbA1);
      log(`  (a) queued, ${WORKERS} workers × ${WORKER_CONCURRENCY}…`);
      const dbA2 = await freshDb();
      const workersA = await startWorkers(dbA2);
      await server.takeStats();
      const spawnedAt = Date.now();
      const queuedA = await run(evalArgs(dbA2, fake, ["--queue", "--detach"])).done;
      if (queuedA.code !== 0)
        throw new Error(`eval --queue exited ${queuedA.code}: ${queuedA.stderr.slice(-2000)}`);
      await waitCompleted(dbA2, 600_000);
      const spawnToDone = (Date.now() - spawnedAt) / 1000;
      await workersA.stop();
      const calls = (await server.takeStats()).calls;
      const queued = await evaluationOf(dbA2);
      const wall = (queued.row!.completed_at!.getTime() - queued.row!.created_at.getTime()) / 1000;
      const ideal = (CALLS * LATENCY_MS) / 1000 / (WORKERS * WORKER_CONCURRENCY);
      const sameScores = queued.scores === reference.scores && queued.runs === reference.runs;

      return {
        checks: [
          {
            metric: "(a) verdicts stored, queued / in process; judge calls",
            value: `${fmt(queued.verdicts)} / ${fmt(reference.verdicts)}; ${fmt(calls)}`,
            target: `${fmt(CALLS)} / ${fmt(CALLS)}; ${fmt(CALLS)}`,
            pass: queued.verdicts === CALLS && reference.verdicts === CALLS && calls === CALLS,
          },
          {
            metric: `(a) wall, enqueue to completed (ideal ${fmt(CALLS)} × 0.2 s / ${WORKERS * WORKER_CONCURRENCY})`,
            value: `${fmt(wall, 2)} s (${fmt(ideal, 2)} s, ${fmt(wall / ideal, 3)}×)`,
            target: `≤ ${MAX_WALL_RATIO}×`,
            pass: wall / ideal <= MAX_WALL_RATIO,
          },
          {
            metric: "(a) the same, from spawning eval --queue; one process at 24, spawn to exit (its ratio)",
            value: `${fmt(spawnToDone, 2)} s; ${fmt(inProcessWall, 2)} s (${fmt(inProcessWall / ideal, 3)}×)`,
          },
          {
            metric: "(a) the same scores as one process at concurrency 24",
            value: sameScores ? "yes" : "no",
            target: "yes",
            pass: sameScores,
          },
        ] as Check[],
        details: {
          wall_s: wall,
          spawn_to_done_s: spawnToDone,
          ideal_s: ideal,
          calls,
          same_scores: sameScores,
        },
      };
    }

    /** (b) an instant judge: CPU per verdict, in process and queued. */
    async function partB() {
      log("  (b) instant judge, in process…");
      const dbB1 = await freshDb();
      const usageIn = join(dir, "usage-in-process.json");
      const inB = await run(evalArgs(dbB1, instant, ["--concurrency", "24"]), { measure: usageIn }).done;
      if (inB.code !== 0) throw new Error(`in-process eval exited ${inB.code}: ${inB.stderr.slice(-2000)}`);
      const inCpu = (JSON.parse(readFileSync(usageIn, "utf8")) as { cpu_ms: number }).cpu_ms;
      const inVerdicts = (await evaluationOf(dbB1)).verdicts;
      log("  (b) instant judge, queued…");
      const dbB2 = await freshDb();
      const workersB = await startWorkers(dbB2);
      const sizeBefore = await sizes(dbB2);
      const before = workersB.cpuMs();
      const usageCoordinator = join(dir, "usage-coordinator.json");
      const coordinator = await run(evalArgs(dbB2, instant, ["--queue"]), { measure: usageCoordinator }).done;
      if (coordinator.code !== 0)
        throw new Error(`eval --queue exited ${coordinator.code}: ${coordinator.stderr.slice(-2000)}`);
      await waitCompleted(dbB2, 600_000);
      const after = workersB.cpuMs();
      await workersB.stop();
      const coordinatorCpu = (JSON.parse(readFileSync(usageCoordinator, "utf8")) as { cpu_ms: number })
        .cpu_ms;
      const workersCpu = after.map((ms, i) => ms - before[i]!);
      const queuedB = await evaluationOf(dbB2);
      const queuedCpu = coordinatorCpu + workersCpu.reduce((a, b) => a + b, 0);
      const perIn = inCpu / inVerdicts;
      const perQueued = queuedCpu / queuedB.verdicts;
      const wallB = (queuedB.row!.completed_at!.getTime() - queuedB.row!.created_at.getTime()) / 1000;
      const jobs = Math.ceil(CALLS / CALLS_PER_JOB);
      const sizeAfter = await sizes(dbB2);
      const scoresBytes = sizeAfter.scores - sizeBefore.scores;
      const queueBytes = sizeAfter.queue - sizeBefore.queue;

      return {
        checks: [
          {
            metric: "(b) CPU per verdict, queued (coordinator + workers) / in process",
            value: `${fmt(perQueued, 3)} / ${fmt(perIn, 3)} ms (${fmt(perQueued / perIn, 2)}×)`,
            target: `≤ ${MAX_CPU_RATIO}×`,
            pass: queuedB.verdicts === CALLS && perQueued / perIn <= MAX_CPU_RATIO,
          },
          {
            metric: "(b) CPU ms: coordinator; workers",
            value: `${fmt(coordinatorCpu)}; ${workersCpu.map((ms) => fmt(ms)).join(", ")} (in process ${fmt(inCpu)})`,
          },
          {
            metric: `(b) jobs/s the queue sustained (${CALLS_PER_JOB} calls a job), instant judge`,
            value: `${fmt(jobs / wallB, 1)} (${jobs} jobs in ${fmt(wallB, 2)} s; ${fmt(CALLS / wallB)} verdicts/s)`,
          },
          {
            metric: "(b) PostgreSQL bytes per verdict: scores; queue (jobs, job totals)",
            value: `${fmt(scoresBytes / CALLS)}; ${fmt(queueBytes / CALLS)}`,
          },
        ] as Check[],
        details: {
          in_process_cpu_ms: inCpu,
          coordinator_cpu_ms: coordinatorCpu,
          workers_cpu_ms: workersCpu,
          cpu_ms_per_verdict: { queued: perQueued, in_process: perIn },
          wall_s: wallB,
          jobs,
          bytes: { evaluation_scores: scoresBytes, queue: queueBytes },
        },
      };
    }
  } finally {
    await server.close();
    await dropBenchDatabases();
    rmSync(dir, { recursive: true, force: true });
  }
}
