// Queued conversations (`converse --queue`) run by workers on PostgreSQL: the demo job against the reference
// agent (its model and the simulated user scripted on fake servers, the demo's hand-written verdicts) gives the
// same printed and stored results as an in-process run; a job run again stores nothing twice; a conversation
// that keeps failing ends `failed` with the reason; a store that is not PostgreSQL is refused.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceAgent, startReferenceAgent } from "../../examples/reference-agent/agent.ts";
import {
  agentModelResponder,
  loadConversationScript,
  simulatedUserResponder,
} from "../../examples/reference-agent/scripted-replies.ts";
import type { Judge } from "../../src/judge/index.ts";
import { type ConversationJobData, conversationJobs } from "../../src/queue/conversation-jobs.ts";
import { type RunningWorker, startWorker } from "../../src/queue/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
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

const folder = useTempDir("dramaturg-queued-conversations-");
const example = (file: string) => `${ROOT}examples/reference-agent/${file}`;
const JUDGE = `fixtures:${example("demo.judge-fixtures.json")}`;
let model: FakeOpenAIServer;
let user: FakeOpenAIServer;
let agent: ReferenceAgent;

/** A new, empty database of this file's, and its URL. */
const freshDb = () => freshDatabase("dramaturg_qconv");

/** The demo job, pointed at this file's reference agent (or, for `setup`, somewhere that refuses). */
function jobFile(name: string, setupUrl?: string): string {
  let text = readFileSync(example("demo.job.yml"), "utf8").replaceAll("http://127.0.0.1:8081", agent.url);
  if (setupUrl) text = text.replace(`http: ${agent.url}/reset?user=alice`, `http: ${setupUrl}`);
  const file = join(folder(), name);
  writeFileSync(file, text);
  return file;
}

const converse = (file: string, db: string, ...extra: string[]) => [
  "converse",
  file,
  "--user-model",
  "openai-compatible:user",
  "--user-base-url",
  user.url,
  "--judge",
  JUDGE,
  "--db",
  db,
  "--no-progress",
  ...extra,
];

/** A result without what differs from run to run by nature: ids and the agent's reply times. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !["evaluation_id", "latency_ms", "latencies"].includes(key))
        .map(([key, v]) => [key, comparable(v)]),
    );
  return value;
}

/** The stored conversation evaluations, oldest first: status, source, agents and result. */
async function stored(db: string) {
  const rows = await queryRows<{
    id: string;
    status: string;
    source: unknown;
    agents: unknown;
    config: unknown;
    error: string | null;
    result: string | null;
  }>(
    db,
    "SELECT id, status, source, agents, config, error, result FROM evaluations WHERE kind = 'conversation' ORDER BY created_at, id",
  );
  return rows.map((r) => ({ ...r, result: r.result === null ? null : JSON.parse(r.result) }));
}

describe("converse --queue with a store that is not PostgreSQL", () => {
  it("exits 2 saying why, and writes nothing", async () => {
    const file = join(folder(), "job.yml");
    writeFileSync(file, readFileSync(example("demo.job.yml"), "utf8"));
    const r = await cli([
      "converse",
      file,
      "--user-model",
      "openai-compatible:user",
      "--user-base-url",
      "http://127.0.0.1:9/v1",
      "--judge",
      JUDGE,
      "--db",
      "memory://",
      "--queue",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--queue needs a PostgreSQL store/);
    expect(r.stdout).toBe("");
  });
});

describe.skipIf(!url)(postgresSuite("queued conversations"), () => {
  let workers: RunningWorker[] = [];

  beforeAll(async () => {
    const script = loadConversationScript(example("demo.script.json"));
    model = await startFakeOpenAIServer({ respond: agentModelResponder(script) });
    user = await startFakeOpenAIServer({ respond: simulatedUserResponder(script) });
    agent = await startReferenceAgent({ modelUrl: model.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([agent?.close(), model?.close(), user?.close()]);
    await dropFreshDatabases();
  });

  it("two trials queued and run by workers print and store what an in-process run does", async () => {
    const file = jobFile("demo.job.yml");
    const args = ["--trials", "2", "--min-score", "0.99", "--format", "json"];
    const here = await freshDb();
    const inProcess = await cli(converse(file, here, ...args));
    expect(inProcess.code, inProcess.stderr).toBe(1);

    const db = await freshDb();
    workers = [
      await startWorker({ store: db, concurrency: 2, kinds: ["conversation"] }),
      await startWorker({ store: db, concurrency: 2, kinds: ["conversation"] }),
    ];
    const queued = await cli(converse(file, db, ...args, "--queue"));
    expect(queued.stderr).toMatch(/queued 2 conversations as 2 jobs/);
    // The pass without the facts misses the timezone: under 0.99, exit 1 either way.
    expect(queued.code, queued.stderr).toBe(1);
    const printed = JSON.parse(queued.stdout);
    expect(printed.format).toBe("dramaturg.conversation-trials/v1");
    expect(printed.trials).toHaveLength(2);
    expect(comparable(printed)).toEqual(comparable(JSON.parse(inProcess.stdout)));

    const [mine, theirs] = [await stored(db), await stored(here)];
    expect(mine.map((r) => r.status)).toEqual(["completed", "completed"]);
    expect(mine.map((r) => r.id)).toEqual(
      printed.trials.map((t: { evaluation_id: string }) => t.evaluation_id),
    );
    expect(comparable(mine.map(({ id: _, ...r }) => r))).toEqual(
      comparable(theirs.map(({ id: _, ...r }) => r)),
    );
  }, 60_000);

  it("a job run again once its conversation is stored calls no one and stores nothing", async () => {
    const db = await freshDb();
    const file = jobFile("again.job.yml");
    const detached = await cli(converse(file, db, "--queue", "--detach", "--passes", "without"));
    expect(detached.code, detached.stderr).toBe(0);
    const [id] = detached.stdout.trim().split("\n");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const store: Store = await openStore(db);
    try {
      const data: ConversationJobData = {
        evaluation_id: id!,
        name: file,
        trial: 1,
        seed: 1,
        passes: "without",
        user: { spec: "openai-compatible:user", base_url: user.url },
        judge: { spec: JUDGE },
      };
      const context = {
        store,
        connectionString: db,
        concurrency: 2,
        withWorkerSlots: (judge: Judge) => judge,
      };
      // The queue's job, and the same job again (its worker was lost after it stored the conversation).
      await conversationJobs.run(data, context, { id: "again" });
      const first = await stored(db);
      expect(first.map((r) => r.status)).toEqual(["completed"]);
      const calls = { user: user.stats.calls, model: model.stats.calls };
      await conversationJobs.run(data, context, { id: "again" });
      expect({ user: user.stats.calls, model: model.stats.calls }).toEqual(calls);
      expect(await stored(db)).toEqual(first);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("a conversation that keeps failing ends failed with the reason; the follower exits 3 saying it", async () => {
    const db = await freshDb();
    // Its setup step calls a port nothing listens on: every attempt throws before the first exchange.
    const file = jobFile("broken.job.yml", "http://127.0.0.1:9/reset");
    const worker = await startWorker({ store: db, concurrency: 1, kinds: ["conversation"] });
    try {
      const r = await cli(converse(file, db, "--queue"));
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/broken\.job\.yml could not complete: a queued conversation failed 3 times: /);
      const rows = await stored(db);
      expect(rows.map((row) => row.status)).toEqual(["failed"]);
      expect(rows[0]!.error).toMatch(/^a queued conversation failed 3 times: /);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
