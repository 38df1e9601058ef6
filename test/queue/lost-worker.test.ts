// A worker's jobs are held on a lease its heartbeat renews (pg-boss's job heartbeat): a worker killed with -9
// loses them within the lease and another completes its evaluation, to the scores of an uninterrupted run; a
// live worker on a job slower than the lease keeps it. The lease here is pg-boss's shortest, 10 s; the
// default, 30 s, is asserted apart. Each test has a database of its own, dropped at the end.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { PgBoss } from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobHeartbeatSeconds, openQueue, PERSONA_CHUNKS } from "../../src/queue/index.ts";
import { openStore } from "../../src/store/index.ts";
import {
  type FakeOpenAIServer,
  killAfterCalls,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../../src/testing/index.ts";
import { BIN, ROOT, spawnCli, startCliProcess } from "../cli/run-cli.ts";
import {
  dropFreshDatabases,
  freshDatabase,
  postgresSuite,
  queryRows,
  postgresUrl as url,
} from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";

const folder = useTempDir("dramaturg-lost-worker-");
const LEASE = 10;
const previousLease = process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS;
let transcript: string;
let fast: FakeOpenAIServer;
let slow: FakeOpenAIServer;
let reference: { scores: string; requests: number; dimensions: string };

const freshDb = () => freshDatabase("dramaturg_lease");

const evalArgs = (file: string, server: FakeOpenAIServer, db: string) => [
  "eval",
  file,
  "--judge",
  "openai-compatible:fake-model",
  "--judge-base-url",
  server.url,
  "--db",
  db,
  "--dimensions",
  "adherence,fluency",
  "--no-progress",
  "--format",
  "json",
];

// Without the verdict cache: the worker that takes a lost job must skip the verdicts stored, not be served them.
const workerArgs = (db: string, concurrency: number) => [
  "worker",
  "--db",
  db,
  "--concurrency",
  String(concurrency),
  "--no-cache",
];

/** Every stored verdict of the store's one evaluation, in key order, without ids and times. */
async function scores(db: string): Promise<string> {
  const rows = await queryRows(
    db,
    `SELECT s.verdict_key, s.status, s.raw_score, s.score, s.reasoning, s.weight, s.hard, s.inverted, r.agent_id
       FROM evaluation_scores s LEFT JOIN evaluation_runs r ON r.id = s.evaluation_run_id ORDER BY s.verdict_key`,
  );
  return JSON.stringify(rows);
}

/** The result's scores per agent and dimension, as `show --format json` prints them. */
function dimensionScores(json: string): string {
  const { runs } = JSON.parse(json) as { runs: { agent_id: string; dimensions: unknown }[] };
  return JSON.stringify(runs.map((r) => [r.agent_id, r.dimensions]));
}

async function waitCompleted(db: string, id: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await queryRows<{ status: string }>(db, "SELECT status FROM evaluations WHERE id = $1", [
      id,
    ]);
    if (row?.status === "completed") return;
    if (Date.now() > until) throw new Error(`evaluation ${id} is ${row?.status} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

describe("a job's lease", () => {
  it("is 30 s unless set, so that a dead worker's jobs come back within 60 s (the lease and half of it)", () => {
    const saved = process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS;
    delete process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS;
    try {
      expect(jobHeartbeatSeconds()).toBe(30);
      expect(jobHeartbeatSeconds() * 1.5).toBeLessThanOrEqual(60);
    } finally {
      if (saved !== undefined) process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS = saved;
    }
  });

  it("shorter than pg-boss's 10 s is refused, naming the variable", () => {
    const saved = process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS;
    process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS = "5";
    try {
      expect(() => jobHeartbeatSeconds()).toThrow(/DRAMATURG_QUEUE_HEARTBEAT_SECONDS.*at least 10.*"5"/s);
    } finally {
      if (saved === undefined) delete process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS;
      else process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS = saved;
    }
  });
});

describe.skipIf(!url)(postgresSuite("a worker's lease on its jobs"), () => {
  beforeAll(async () => {
    // The workers spawned here (and killAfterCalls's) inherit it.
    process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS = String(LEASE);
    fast = await startFakeOpenAIServer({ latencyMs: 5 });
    slow = await startFakeOpenAIServer({ latencyMs: 60 });
    transcript = join(folder(), "transcript.json");
    writeFileSync(transcript, JSON.stringify(syntheticTranscript({ messages: 48, agents: 3, channels: 1 })));
    // The uninterrupted run the queued one must equal.
    const db = await freshDb();
    const r = await spawnCli(evalArgs(transcript, fast, db));
    expect(r.code, r.stderr).toBe(0);
    reference = {
      scores: await scores(db),
      requests: JSON.parse(r.stdout).totals.requests,
      dimensions: dimensionScores(r.stdout),
    };
    // Several jobs (96 planned calls each).
    expect(reference.requests).toBeGreaterThan(150);
  }, 30_000);

  afterAll(async () => {
    if (previousLease === undefined) delete process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS;
    else process.env.DRAMATURG_QUEUE_HEARTBEAT_SECONDS = previousLease;
    await fast?.close();
    await slow?.close();
    await dropFreshDatabases();
  });

  it("a queue made before heartbeats gets the lease when opened again", async () => {
    const db = await freshDb();
    const old = new PgBoss({ connectionString: db, supervise: false, schedule: false });
    await old.start();
    await old.createQueue(PERSONA_CHUNKS, { expireInSeconds: 900 });
    await old.stop({ graceful: false, close: true });
    const store = await openStore(db);
    try {
      const boss = await openQueue(store, db);
      const queue = await boss.getQueue(PERSONA_CHUNKS);
      await boss.stop({ graceful: false, close: true });
      expect(queue?.heartbeatSeconds).toBe(LEASE);
      expect(queue?.expireInSeconds).toBe(24 * 3600);
    } finally {
      await store.close();
    }
  });

  it.concurrent("a worker killed with -9 mid-run: another completes its evaluation within the lease, to the scores of an uninterrupted run, and the judge gets no call beyond the plan and those in flight", async () => {
    const db = await freshDb();
    const detached = await spawnCli([...evalArgs(transcript, slow, db), "--queue", "--detach"]);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    const callsBefore = slow.stats.calls;
    const concurrency = 4;
    // The only worker at first, so that every call before the kill is its, and it holds jobs (two at once).
    const killed = await killAfterCalls([process.execPath, BIN, ...workerArgs(db, concurrency)], {
      server: slow,
      calls: 60,
      cwd: ROOT,
    });
    const killedAt = Date.now();
    expect(killed.killed, killed.stderr).toBe(true);
    const callsAtKill = slow.stats.calls - callsBefore;
    const [stored] = await queryRows<{ n: number }>(
      db,
      "SELECT count(*)::int AS n FROM evaluation_scores WHERE evaluation_id = $1 AND status <> 'trivial'",
      [id],
    );
    const inFlight = callsAtKill - stored!.n;
    const second = startCliProcess(workerArgs(db, concurrency));
    await waitCompleted(db, id, 90_000);
    const seconds = (Date.now() - killedAt) / 1000;
    const stopped = await second.stop();
    expect(stopped.code, stopped.stderr).toBe(0);
    // The lease, half of it for the supervisor to look, and a few seconds for the retry and the work left.
    expect(seconds).toBeLessThan(90);
    expect(seconds).toBeLessThan(LEASE * 1.5 + 10);
    // The killed worker's jobs were failed (their lease lapsed: their expiry is a day) and taken again.
    const [retried] = await queryRows<{ n: number }>(
      db,
      "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'evaluation_id' = $2 AND retry_count > 0",
      [PERSONA_CHUNKS, id],
    );
    expect(retried!.n).toBeGreaterThan(0);
    const calls = slow.stats.calls - callsBefore;
    expect(calls).toBeGreaterThanOrEqual(reference.requests);
    expect(calls).toBeLessThanOrEqual(reference.requests + inFlight);
    const shown = await spawnCli(["show", id, "--db", db, "--format", "json"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(dimensionScores(shown.stdout)).toBe(reference.dimensions);
    expect(await scores(db)).toBe(reference.scores);
    console.log(
      `lost worker: evaluation completed ${seconds.toFixed(1)} s after the kill (lease ${LEASE} s)`,
    );
  }, 120_000);

  it.concurrent("a live worker keeps a job slower than its lease: the job is taken once, each call judged once", async () => {
    const db = await freshDb();
    const file = join(folder(), "small.json");
    writeFileSync(file, JSON.stringify(syntheticTranscript({ messages: 8, agents: 1, channels: 1 })));
    // One job of 35 calls, one at a time, each slow enough that the job outlasts the lease and half of it.
    const judge = await startFakeOpenAIServer({ latencyMs: 500 });
    try {
      const detached = await spawnCli([...evalArgs(file, judge, db), "--queue", "--detach"]);
      expect(detached.code, detached.stderr).toBe(0);
      const id = detached.stdout.trim();
      const [planned] = await queryRows<{ jobs: number; calls: number }>(
        db,
        "SELECT (config->'queued'->>'jobs')::int AS jobs FROM evaluations WHERE id = $1",
        [id],
      );
      expect(planned?.jobs).toBe(1);
      const started = Date.now();
      // Two workers, one call at a time each: the idle one would take the job if its lease lapsed.
      const workers = [startCliProcess(workerArgs(db, 1)), startCliProcess(workerArgs(db, 1))];
      await waitCompleted(db, id, 60_000);
      for (const s of await Promise.all(workers.map((w) => w.stop()))) expect(s.code, s.stderr).toBe(0);
      expect((Date.now() - started) / 1000).toBeGreaterThan(LEASE * 1.5);
      const [job] = await queryRows<{ retry_count: number; state: string }>(
        db,
        "SELECT retry_count, state FROM pgboss.job WHERE name = $1 AND data->>'evaluation_id' = $2",
        [PERSONA_CHUNKS, id],
      );
      expect(job).toEqual({ retry_count: 0, state: "completed" });
      const [verdicts] = await queryRows<{ n: number }>(
        db,
        "SELECT count(*)::int AS n FROM evaluation_scores WHERE evaluation_id = $1 AND status <> 'trivial'",
        [id],
      );
      expect(judge.stats.calls).toBe(verdicts!.n);
    } finally {
      await judge.close();
    }
  }, 90_000);
});
