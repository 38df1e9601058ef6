// Queued session analyses (`session analyze --queue`) judged by `dramaturg worker` processes on PostgreSQL:
// the result an in-process analysis prints, what the jobs spent in its totals; while it waits, `show ID` and
// `runs` report its progress. A store that is not PostgreSQL, and bad input, are refused with nothing written.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { cli, ROOT, spawnCli, startCliProcess } from "../cli/run-cli.ts";
import {
  dropFreshDatabases,
  freshDatabase,
  postgresSuite,
  queryRows,
  postgresUrl as url,
} from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";

const folder = useTempDir("dramaturg-session-queue-");
let server: FakeOpenAIServer;
let sessions: string;

/** A new, empty database of this file's, and its URL. */
const freshDb = () => freshDatabase("dramaturg_squeue");

/** Thirty copies of the example refund session (ids of their own), one per line: several jobs of calls. */
function writeSessions(dir: string): string {
  const session = JSON.parse(readFileSync(join(ROOT, "examples/sessions/refund.session.json"), "utf8"));
  const file = join(dir, "sessions.jsonl");
  const lines = Array.from({ length: 30 }, (_, i) => JSON.stringify({ ...session, id: `refund-${i + 1}` }));
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const analyzeArgs = (db: string) => [
  "session",
  "analyze",
  sessions,
  "--judge",
  "openai-compatible:fake-model",
  "--judge-base-url",
  server.url,
  "--db",
  db,
  "--no-progress",
  "--format",
  "json",
];

/** A JSON analysis without its evaluation's id, which differs from run to run. */
function withoutId(stdout: string): string {
  const { evaluation_id: _, ...rest } = JSON.parse(stdout);
  return JSON.stringify(rest, null, 2);
}

const startWorkerProcess = (db: string) =>
  startCliProcess(["worker", "--db", db, "--concurrency", "4", "--kinds", "session"]);

describe("session analyze --queue refuses what it cannot queue", () => {
  it("exits 2 with a store that is not PostgreSQL, saying why", async () => {
    const file = join(ROOT, "examples/sessions/refund.session.json");
    const r = await cli([
      "session",
      "analyze",
      file,
      "--judge",
      `fixtures:${join(ROOT, "examples/sessions/refund.judge-fixtures.json")}`,
      "--db",
      "memory://",
      "--queue",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--queue needs a PostgreSQL store/);
  });

  it("exits 2 for --detach without --queue", async () => {
    const r = await cli(["session", "analyze", "x.json", "--detach", "--db", "memory://"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--detach goes with --queue/);
  });
});

describe.skipIf(!url)(postgresSuite("queued session analyses"), () => {
  let reference: { stdout: string; judge: Record<string, unknown> };

  beforeAll(async () => {
    server = await startFakeOpenAIServer({ latencyMs: 5 });
    sessions = writeSessions(folder());
    const db = await freshDb();
    const r = await spawnCli(analyzeArgs(db));
    expect(r.code, r.stderr).toBe(0);
    const parsed = JSON.parse(r.stdout);
    reference = { stdout: r.stdout, judge: parsed.judge };
    // Several jobs (96 planned calls each).
    expect(parsed.judge.requests).toBeGreaterThan(150);
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    await dropFreshDatabases();
  });

  it("bad input writes nothing: a session file that does not parse exits 2 and creates no evaluation", async () => {
    const db = await freshDb();
    const bad = join(folder(), "bad.json");
    writeFileSync(bad, '{"format": "dramaturg.session/v1", "turns": [');
    const r = await spawnCli([...analyzeArgs(db).map((a) => (a === sessions ? bad : a)), "--queue"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("bad.json");
    const tables = await queryRows<{ n: number }>(
      db,
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'evaluations'",
    );
    if (tables[0]!.n > 0) expect(await queryRows(db, "SELECT id FROM evaluations")).toEqual([]);
  }, 30_000);

  it("a detached analysis is shown queued with its progress, then two workers judge it to the in-process result", async () => {
    const db = await freshDb();
    const detached = await spawnCli([...analyzeArgs(db), "--queue", "--detach"]);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    // No worker yet: pending, nothing stored of what is planned.
    const shown = await spawnCli(["show", id, "--db", db, "--format", "json"]);
    expect(shown.code, shown.stderr).toBe(0);
    const progress = JSON.parse(shown.stdout);
    expect(progress).toMatchObject({ evaluation_id: id, kind: "session", status: "pending", stored: 0 });
    expect(progress.planned).toBeGreaterThan(150);
    const table = await spawnCli(["show", id.slice(0, 8), "--db", db]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(`session analysis ${id.slice(0, 8)}.* pending: 0 / ${progress.planned} verdicts stored`),
    );
    const runs = await spawnCli(["runs", "--db", db, "--format", "json"]);
    expect(runs.code, runs.stderr).toBe(0);
    expect(JSON.parse(runs.stdout).in_progress).toEqual([
      expect.objectContaining({ evaluation_id: id, status: "pending", stored: 0, planned: progress.planned }),
    ]);

    const workers = [startWorkerProcess(db), startWorkerProcess(db)];
    const until = Date.now() + 20_000;
    let status = "pending";
    while (status !== "completed" && Date.now() < until) {
      await sleep(100);
      [{ status } = { status: "gone" }] = await queryRows<{ status: string }>(
        db,
        "SELECT status FROM evaluations WHERE id = $1",
        [id],
      );
    }
    for (const stopped of await Promise.all(workers.map((w) => w.stop())))
      expect(stopped.code, stopped.stderr).toBe(0);
    expect(status).toBe("completed");
    const result = await spawnCli(["show", id, "--db", db, "--format", "json"]);
    expect(result.code, result.stderr).toBe(0);
    // The same document, judge's run included: the jobs' requests, calls and tokens, as in process.
    expect(withoutId(result.stdout)).toBe(withoutId(reference.stdout));
  }, 40_000);

  it("a followed analysis prints what the in-process analysis prints", async () => {
    const db = await freshDb();
    const worker = startWorkerProcess(db);
    const queued = await spawnCli([...analyzeArgs(db), "--queue"]);
    const stopped = await worker.stop();
    expect(queued.code, queued.stderr).toBe(0);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(queued.stderr).toMatch(/queued session analysis [0-9a-f-]{36} as \d+ jobs/);
    expect(withoutId(queued.stdout)).toBe(withoutId(reference.stdout));
    expect(JSON.parse(queued.stdout).judge).toEqual(reference.judge);
  }, 40_000);
});
