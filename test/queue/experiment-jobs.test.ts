// Queued experiments (`experiment run --queue`): each environment run a job, two workers on PostgreSQL, the
// agents and the judge behind fake OpenAI-compatible servers. The document a worker assembles is the bytes an
// in-process run writes, and the report the same; a job run again runs nothing; an environment run that keeps
// failing ends the experiment failed with the reason; a store that is not PostgreSQL is refused.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Judge } from "../../src/judge/index.ts";
import { experimentEnvironments } from "../../src/queue/experiment-jobs.ts";
import { followExperiment, type RunningWorker, startWorker } from "../../src/queue/index.ts";
import { openStore } from "../../src/store/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { cli, ROOT } from "../cli/run-cli.ts";
import {
  dropFreshDatabases,
  freshDatabase,
  postgresSuite,
  queryRows,
  postgresUrl as url,
} from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";

const folder = useTempDir("dramaturg-queued-experiment-");
const SCENARIO = `${ROOT}test/fixtures/experiments/scenarios/two-tasters.yaml`;
let agents: FakeOpenAIServer;
let judge: FakeOpenAIServer;

/** A new, empty database of this file's, and its URL. */
const freshDb = () => freshDatabase("dramaturg_qexp");

const runArgs = (db: string, ...more: string[]) => [
  "experiment",
  "run",
  SCENARIO,
  "--model",
  "openai-compatible:agents",
  "--base-url",
  agents.url,
  "--judge",
  "openai-compatible:judge",
  "--judge-base-url",
  judge.url,
  "--db",
  db,
  ...more,
];

describe("experiment run --queue with a store that is not PostgreSQL", () => {
  it("exits 2 saying why, before any model is called", async () => {
    const r = await cli([
      "experiment",
      "run",
      SCENARIO,
      "--model",
      "openai-compatible:agents",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--judge",
      "openai-compatible:judge",
      "--judge-base-url",
      "http://127.0.0.1:9/v1",
      "--db",
      "memory://",
      "--queue",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--queue needs a PostgreSQL store/);
    expect(r.stdout).toBe("");
  });
});

describe.skipIf(!url)(postgresSuite("queued experiments"), () => {
  const workers: RunningWorker[] = [];

  beforeAll(async () => {
    agents = await startFakeOpenAIServer({
      respond: () => ({
        tool_calls: [
          {
            name: "send_message",
            arguments: { channel: "tasting", text: "Smoked pear and black tea, for the night shift." },
          },
        ],
      }),
    });
    judge = await startFakeOpenAIServer({});
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([agents?.close(), judge?.close()]);
    await dropFreshDatabases();
  });

  /** The document as text without the calls and tokens each arm and environment spent. */
  const withoutSpending = (text: string) =>
    JSON.stringify(
      JSON.parse(text),
      (key, value) => (key === "calls" || key === "tokens" ? undefined : value),
      2,
    );
  /** Per arm, the judge calls the work took: sent plus answered by the cache. */
  const judgeWork = (text: string) =>
    Object.fromEntries(
      Object.entries(
        JSON.parse(text).arms as Record<string, { calls: { judge: number; judge_cached: number } }>,
      ).map(([arm, { calls }]) => [arm, calls.judge + calls.judge_cached]),
    );

  it("two workers run its environments; the document is the in-process run's bytes, the report the same", async () => {
    const here = join(folder(), "in-process.json");
    const inProcess = await cli(runArgs(await freshDb(), "--out", here));
    expect(inProcess.code, inProcess.stderr).toBe(0);

    const db = await freshDb();
    for (let i = 0; i < 2; i++)
      workers.push(await startWorker({ store: db, concurrency: 2, kinds: ["experiment"] }));
    const queuedOut = join(folder(), "queued.json");
    const queued = await cli(runArgs(db, "--queue", "--out", queuedOut));
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stderr).toMatch(/4 environment runs; queued 4 jobs, waiting for workers/);
    // The same bytes but for what each invocation spent: which arm's identical request the verdict cache
    // answered depends on timing, so calls sent and cached may move between arms; their sum may not.
    expect(withoutSpending(readFileSync(queuedOut, "utf8"))).toBe(
      withoutSpending(readFileSync(here, "utf8")),
    );
    expect(judgeWork(readFileSync(queuedOut, "utf8"))).toEqual(judgeWork(readFileSync(here, "utf8")));
    expect(queued.stdout).toBe(inProcess.stdout);
    // Each environment run stored once, and the experiment completed once.
    const stored = await queryRows<{ kind: string; status: string }>(
      db,
      "SELECT kind, status FROM evaluations WHERE kind IN ('experiment', 'experiment_environment') ORDER BY kind",
    );
    expect(stored).toEqual([
      { kind: "experiment", status: "completed" },
      ...Array(4).fill({ kind: "experiment_environment", status: "completed" }),
    ]);
  }, 90_000);

  it("detached, its id is printed; a job run again after its environment is stored runs nothing", async () => {
    const db = await freshDb();
    const detached = await cli(runArgs(db, "--queue", "--detach"));
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const [job] = await queryRows<{ data: Record<string, unknown> }>(
      db,
      "SELECT data FROM pgboss.job WHERE name = 'dramaturg-experiment-environments' ORDER BY created_on, id LIMIT 1",
    );
    const store = await openStore(db);
    try {
      const context = {
        store,
        connectionString: db,
        concurrency: 2,
        withWorkerSlots: (judge: Judge) => judge,
      };
      const data = experimentEnvironments.data.parse(job!.data);
      await experimentEnvironments.run(data, context, { id: "first" });
      const calls = agents.stats.calls;
      await experimentEnvironments.run(data, context, { id: "again" });
      expect(agents.stats.calls).toBe(calls);
      const environments = await queryRows<{ n: number }>(
        db,
        "SELECT count(*)::int AS n FROM evaluations WHERE kind = 'experiment_environment'",
      );
      expect(environments[0]!.n).toBe(1);
    } finally {
      await store.close();
    }
    // The rest by a worker; `experiment report ID` prints the stored document's report.
    const worker = await startWorker({ store: db, concurrency: 2, kinds: ["experiment"] });
    try {
      const until = Date.now() + 60_000;
      for (;;) {
        const [row] = await queryRows<{ status: string }>(
          db,
          "SELECT status FROM evaluations WHERE id = $1",
          [id],
        );
        if (row?.status === "completed" || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await worker.stop();
    }
    const report = await cli(["experiment", "report", id, "--db", db]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/adherence/);
  }, 90_000);

  it("an environment run that keeps failing ends the experiment failed with the reason; following it throws it", async () => {
    const db = await freshDb();
    const fixtures = join(folder(), "verdicts.json");
    writeFileSync(fixtures, JSON.stringify({ format: "dramaturg.judge-fixtures/v1", verdicts: [] }));
    const args = runArgs(db, "--queue", "--detach").map((a) =>
      a === "openai-compatible:judge" ? `fixtures:${fixtures}` : a,
    );
    const detached = await cli(args);
    expect(detached.code, detached.stderr).toBe(0);
    const id = detached.stdout.trim();
    // A judge the workers cannot build (its fixtures gone): every attempt throws.
    rmSync(fixtures);
    const worker = await startWorker({ store: db, concurrency: 2, kinds: ["experiment"] });
    const store = await openStore(db);
    try {
      const [row] = await queryRows<{ config: { experiment_key: string } }>(
        db,
        "SELECT config FROM evaluations WHERE id = $1",
        [id],
      );
      await expect(
        followExperiment(store, { experimentId: id, key: row!.config.experiment_key }, { intervalMs: 100 }),
      ).rejects.toThrow(
        /failed: the (control|treatment) run of environment \d failed 3 times: .*verdicts\.json/,
      );
    } finally {
      await store.close();
      await worker.stop();
    }
    const [experiment] = await queryRows<{ status: string; error: string }>(
      db,
      "SELECT status, error FROM evaluations WHERE kind = 'experiment'",
    );
    expect(experiment?.status).toBe("failed");
    expect(experiment?.error).toMatch(/^the (control|treatment) run of environment \d failed 3 times: /);
  }, 90_000);
});
