// Queued evaluations (`eval --queue`) judged by `dramaturg worker` processes on PostgreSQL: the same result
// and scores as an in-process run, whatever the workers do — several at once, one killed with -9 and
// started again, one waiting before any job exists, two evaluations at once. A store that is not
// PostgreSQL is refused. Each test has a database of its own, dropped at the end.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeOpenAIServer,
  killAfterCalls,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../../src/testing/index.ts";
import {
  dropFreshDatabases,
  freshDatabase,
  postgresSuite,
  queryRows,
  postgresUrl as url,
} from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";
import { BIN, cli, ROOT, spawnCli, startCliProcess } from "./run-cli.ts";

const folder = useTempDir("dramaturg-worker-");
let transcript: string;
let fast: FakeOpenAIServer;
let slow: FakeOpenAIServer;
// Jobs of a killed worker are given to another after 2 s (the default is 15 minutes).
const EXPIRY = { DRAMATURG_QUEUE_EXPIRE_SECONDS: "2" };
const previousExpiry = process.env.DRAMATURG_QUEUE_EXPIRE_SECONDS;

/** A new, empty database of this file's, and its URL. */
const freshDb = () => freshDatabase("dramaturg_queue");

const evalArgs = (server: FakeOpenAIServer, db: string) => [
  "eval",
  transcript,
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

const workerArgs = (db: string, concurrency = 4, extra: string[] = []) => [
  "worker",
  "--db",
  db,
  "--concurrency",
  String(concurrency),
  ...extra,
];

/** A worker process; `stop()` sends SIGTERM and resolves with its exit code and stderr. */
const startWorkerProcess = (db: string, concurrency = 4, extra: string[] = []) =>
  startCliProcess(workerArgs(db, concurrency, extra), { env: EXPIRY });

/**
 * The result document without its ids and what the invocation spent or was spared (requests, calls,
 * tokens, cache, a resume's reused verdicts): as test/engine/reproducible.test.ts compares results.
 */
function resultBytes(json: string): string {
  const {
    evaluation_id: _,
    runs,
    totals: { requests: __, calls: ___, token_usage: ____, cache: _____, resumed: ______, ...verdicts },
    ...rest
  } = JSON.parse(json);
  return JSON.stringify(
    {
      ...rest,
      runs: runs.map(({ run_id: _r, token_usage: _t, ...run }: Record<string, unknown>) => run),
      totals: verdicts,
    },
    null,
    2,
  );
}

/** Every stored verdict of the store's one evaluation, in key order, without ids and times. */
async function scores(db: string): Promise<string> {
  const rows = await queryRows(
    db,
    `SELECT s.verdict_key, s.status, s.raw_score, s.score, s.reasoning, s.weight, s.hard, s.inverted, r.agent_id
       FROM evaluation_scores s LEFT JOIN evaluation_runs r ON r.id = s.evaluation_run_id ORDER BY s.verdict_key`,
  );
  return JSON.stringify(rows);
}

async function waitCompleted(db: string, id: string, timeoutMs = 20_000): Promise<void> {
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

let reference: { stdout: string; scores: string; requests: number; totals: Record<string, unknown> };

describe("eval --queue with a store that is not PostgreSQL", () => {
  it("exits 2 saying why; so does a worker", async () => {
    const dir = folder();
    const file = join(dir, "t.json");
    writeFileSync(file, JSON.stringify(syntheticTranscript({ messages: 4, agents: 1, channels: 1 })));
    const r = await cli(["eval", file, "--judge", "openai:gpt-4o-mini", "--db", "memory://", "--queue"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--queue needs a PostgreSQL store/);
    const w = await cli(["worker", "--db", "memory://"]);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/PostgreSQL store: pass --db postgres/);
  });
});

describe.skipIf(!url)(postgresSuite("queued evaluations and dramaturg worker"), () => {
  beforeAll(async () => {
    process.env.DRAMATURG_QUEUE_EXPIRE_SECONDS = EXPIRY.DRAMATURG_QUEUE_EXPIRE_SECONDS;
    fast = await startFakeOpenAIServer({ latencyMs: 5 });
    slow = await startFakeOpenAIServer({ latencyMs: 60 });
    transcript = join(folder(), "transcript.json");
    writeFileSync(transcript, JSON.stringify(syntheticTranscript({ messages: 48, agents: 3, channels: 1 })));
    // The in-process run every queued one must equal.
    const db = await freshDb();
    const r = await spawnCli(evalArgs(fast, db));
    expect(r.code, r.stderr).toBe(0);
    reference = {
      stdout: r.stdout,
      scores: await scores(db),
      requests: JSON.parse(r.stdout).totals.requests,
      totals: JSON.parse(r.stdout).totals,
    };
    // Several jobs (50 planned calls each).
    expect(reference.requests).toBeGreaterThan(150);
  }, 30_000);

  afterAll(async () => {
    if (previousExpiry === undefined) delete process.env.DRAMATURG_QUEUE_EXPIRE_SECONDS;
    else process.env.DRAMATURG_QUEUE_EXPIRE_SECONDS = previousExpiry;
    await fast?.close();
    await slow?.close();
    await dropFreshDatabases();
  });

  it("three workers judge a queued evaluation to the in-process result and scores; SIGTERM drains them", async () => {
    const db = await freshDb();
    const workers = [startWorkerProcess(db), startWorkerProcess(db), startWorkerProcess(db)];
    const callsBefore = fast.stats.calls;
    const queued = await spawnCli([...evalArgs(fast, db), "--queue"], { env: EXPIRY });
    const stopped = await Promise.all(workers.map((w) => w.stop()));
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stderr).toMatch(/queued evaluation [0-9a-f-]{36} as \d+ jobs/);
    for (const s of stopped) expect(s.code, s.stderr).toBe(0);
    expect(resultBytes(queued.stdout)).toBe(resultBytes(reference.stdout));
    expect(await scores(db)).toBe(reference.scores);
    // Each planned call judged once, by one worker or another.
    expect(fast.stats.calls - callsBefore).toBe(reference.requests);
    const [evaluation] = await queryRows<{ status: string }>(db, "SELECT status FROM evaluations");
    expect(evaluation?.status).toBe("completed");
  }, 30_000);

  it("a queued evaluation reports what its jobs spent, as the in-process run does, and no resume", async () => {
    const db = await freshDb();
    const workers = [startWorkerProcess(db), startWorkerProcess(db)];
    const queued = await spawnCli([...evalArgs(fast, db), "--queue"], { env: EXPIRY });
    for (const s of await Promise.all(workers.map((w) => w.stop()))) expect(s.code, s.stderr).toBe(0);
    expect(queued.code, queued.stderr).toBe(0);
    const { totals, runs } = JSON.parse(queued.stdout);
    // Requests, model calls, tokens and the cache's figures: the sum of the jobs', equal to one process's.
    expect(totals).toEqual(reference.totals);
    expect(totals).not.toHaveProperty("resumed");
    expect(totals.token_usage.input_tokens).toBeGreaterThan(0);
    // Each agent's share of the tokens too, and the evaluation row's.
    const byAgent = (list: { agent_id: string; token_usage: unknown }[]) =>
      Object.fromEntries(list.map((r) => [r.agent_id, r.token_usage]));
    expect(byAgent(runs)).toEqual(byAgent(JSON.parse(reference.stdout).runs));
    const [row] = await queryRows<{ token_usage: unknown }>(db, "SELECT token_usage FROM evaluations");
    expect(row?.token_usage).toEqual(totals.token_usage);
  }, 30_000);

  it("three workers, one killed with -9 mid-run and started again: the scores of one process; no call beyond the plan and those in flight at the kill", async () => {
    const db = await freshDb();
    const detached = await spawnCli([...evalArgs(slow, db), "--queue", "--detach"], { env: EXPIRY });
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const callsBefore = slow.stats.calls;
    const concurrency = 4;
    // Without the verdict cache, which would otherwise serve the verdicts judged before the kill again:
    // here the workers that take the expired jobs must skip the verdicts already stored.
    const noCache = ["--no-cache"];
    // The one to kill starts first, so that it holds jobs (two a fetch); the other two join once it judges.
    const killing = killAfterCalls([process.execPath, BIN, ...workerArgs(db, concurrency, noCache)], {
      server: slow,
      calls: 60,
      cwd: ROOT,
    });
    while (slow.stats.calls - callsBefore < 8) await sleep(20);
    const others = [
      startWorkerProcess(db, concurrency, noCache),
      startWorkerProcess(db, concurrency, noCache),
    ];
    const killed = await killing;
    expect(killed.killed, killed.stderr).toBe(true);
    // Every call made so far is a stored verdict, or was in flight (or being stored) at the kill.
    const callsAtKill = slow.stats.calls - callsBefore;
    const [partial] = await queryRows<{ n: number }>(
      db,
      "SELECT count(*)::int AS n FROM evaluation_scores WHERE evaluation_id = $1 AND status <> 'trivial'",
      [id],
    );
    expect(partial!.n).toBeGreaterThan(0);
    expect(partial!.n).toBeLessThan(reference.requests);
    const inFlight = callsAtKill - partial!.n;
    // The engine keeps at most twice the judge's limit under way in each worker (see workersFor).
    expect(inFlight).toBeLessThanOrEqual(3 * 2 * concurrency);
    const again = startWorkerProcess(db, concurrency, noCache);
    await waitCompleted(db, id, 40_000);
    for (const s of await Promise.all([again, ...others].map((w) => w.stop())))
      expect(s.code, s.stderr).toBe(0);
    // The rest is judged once: the judge received the plan and at most the calls in flight at the kill (those
    // of the killed worker; the others' were stored).
    const calls = slow.stats.calls - callsBefore;
    expect(calls).toBeGreaterThanOrEqual(reference.requests);
    expect(calls).toBeLessThanOrEqual(reference.requests + inFlight);
    const shown = await spawnCli(["show", id, "--db", db, "--format", "json"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(resultBytes(shown.stdout)).toBe(resultBytes(reference.stdout));
    expect(await scores(db)).toBe(reference.scores);
  }, 60_000);

  it("a chunk that keeps failing ends its evaluation failed with the reason, not running for ever", async () => {
    const db = await freshDb();
    const dir = folder();
    const small = join(dir, "small.json");
    writeFileSync(small, JSON.stringify(syntheticTranscript({ messages: 4, agents: 1, channels: 1 })));
    const fixtures = join(dir, "verdicts.json");
    writeFileSync(fixtures, JSON.stringify({ format: "dramaturg.judge-fixtures/v1", verdicts: [] }));
    const args = ["eval", small, "--judge", `fixtures:${fixtures}`, "--db", db, "--dimensions", "adherence"];
    const detached = await spawnCli([...args, "--queue", "--detach"], { env: EXPIRY });
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    // The judge a worker builds from the stored evaluation cannot be made now: every attempt throws.
    rmSync(fixtures);
    const worker = startWorkerProcess(db);
    const until = Date.now() + 25_000;
    let row: { status: string; error: string | null } | undefined;
    for (;;) {
      [row] = await queryRows<{ status: string; error: string | null }>(
        db,
        "SELECT status, error FROM evaluations WHERE id = $1",
        [id],
      );
      if (row?.status === "failed" || Date.now() > until) break;
      await sleep(200);
    }
    await worker.stop();
    expect(row?.status).toBe("failed");
    expect(row?.error).toMatch(/a queued chunk failed 4 times: .*verdicts\.json/);
    const shown = await spawnCli(["show", id, "--db", db]);
    expect(shown.code).not.toBe(0);
  }, 40_000);

  it("a worker started before any job waits, then judges two evaluations queued at once", async () => {
    const db = await freshDb();
    const worker = startWorkerProcess(db, 8);
    await sleep(1_500);
    const [a, b] = await Promise.all([
      spawnCli([...evalArgs(fast, db), "--queue"], { env: EXPIRY }),
      spawnCli([...evalArgs(fast, db), "--queue"], { env: EXPIRY }),
    ]);
    const stopped = await worker.stop();
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(JSON.parse(a.stdout).evaluation_id).not.toBe(JSON.parse(b.stdout).evaluation_id);
    expect(resultBytes(a.stdout)).toBe(resultBytes(reference.stdout));
    expect(resultBytes(b.stdout)).toBe(resultBytes(reference.stdout));
  }, 30_000);
});
