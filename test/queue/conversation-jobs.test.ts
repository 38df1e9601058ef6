// Queued conversations (`converse --queue`) run by workers on PostgreSQL: the demo job against the reference
// agent (its model and the simulated user scripted on fake servers, the demo's hand-written verdicts) gives the
// same printed and stored results as an in-process run, with the simulated user's check as the command set it
// (off, or on a file's propositions carried in the job); a job queued before the check travelled checks with
// the built-in set; a job run again stores nothing twice; a conversation that keeps failing ends `failed`
// with the reason; a store that is not PostgreSQL is refused.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReferenceAgent, startReferenceAgent } from "../../examples/reference-agent/agent.ts";
import {
  agentModelResponder,
  loadConversationScript,
  simulatedUserResponder,
} from "../../examples/reference-agent/scripted-replies.ts";
import type { ConversationResult } from "../../src/conversations/index.ts";
import type { Judge } from "../../src/judge/index.ts";
import { loadSimulatedUserSet } from "../../src/propositions/index.ts";
import { type ConversationJobData, conversationJobs } from "../../src/queue/conversation-jobs.ts";
import {
  CONVERSATION_JOBS,
  followConversations,
  type RunningWorker,
  startWorker,
} from "../../src/queue/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import {
  claimIds,
  type FakeChatRequest,
  type FakeOpenAIServer,
  messageText,
  startFakeOpenAIServer,
} from "../../src/testing/index.ts";
import { type CliResult, cli, ROOT } from "../cli/run-cli.ts";
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
/** An LLM scorer: the fake server's default responder answers the judge's schemas. */
let scorer: FakeOpenAIServer;
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

/** The conversation jobs in the queue of `db`, oldest first, with their data (none before its queue exists). */
async function queuedJobs(db: string): Promise<ConversationJobData[]> {
  try {
    const rows = await queryRows<{ data: ConversationJobData }>(
      db,
      "SELECT data FROM pgboss.job WHERE name = $1 ORDER BY created_on, id",
      [CONVERSATION_JOBS],
    );
    return rows.map((r) => r.data);
  } catch {
    return [];
  }
}

/** Waits until `db`'s queue holds `n` conversation jobs, and returns their data. */
async function jobsQueued(db: string, n: number): Promise<ConversationJobData[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const jobs = await queuedJobs(db);
    if (jobs.length >= n) return jobs;
    if (Date.now() > deadline) throw new Error(`${n} conversation jobs were not queued in 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether a scorer's request is about the simulated user (its brief is the persona the judge is shown). */
const aboutTheUser = (r: FakeChatRequest) =>
  r.messages.some((m) => messageText(m).includes("is a simulated user"));

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
  const workers: RunningWorker[] = [];

  beforeAll(async () => {
    const script = loadConversationScript(example("demo.script.json"));
    model = await startFakeOpenAIServer({ respond: agentModelResponder(script) });
    user = await startFakeOpenAIServer({ respond: simulatedUserResponder(script) });
    scorer = await startFakeOpenAIServer();
    agent = await startReferenceAgent({ modelUrl: model.url });
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([agent?.close(), model?.close(), user?.close(), scorer?.close()]);
    await dropFreshDatabases();
  });

  it("two trials queued and run by workers print and store what an in-process run does", async () => {
    const file = jobFile("demo.job.yml");
    const args = ["--trials", "2", "--min-score", "0.99", "--format", "json"];
    const here = await freshDb();
    const inProcess = await cli(converse(file, here, ...args));
    expect(inProcess.code, inProcess.stderr).toBe(1);

    const db = await freshDb();
    workers.push(
      await startWorker({ store: db, concurrency: 2, kinds: ["conversation"] }),
      await startWorker({ store: db, concurrency: 2, kinds: ["conversation"] }),
    );
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

  /**
   * One run of `args` in process and the same queued, on fresh databases: the queued command is started, its
   * jobs awaited in the queue, `meanwhile` called (with their data), and only then a worker started.
   */
  async function bothWays(
    file: string,
    args: string[],
    meanwhile?: (jobs: ConversationJobData[]) => void,
  ): Promise<{ inProcess: CliResult; queued: CliResult; here: string; db: string }> {
    const here = await freshDb();
    const inProcess = await cli(converse(file, here, ...args));
    const db = await freshDb();
    const running = cli(converse(file, db, ...args, "--queue"));
    meanwhile?.(await jobsQueued(db, 1));
    workers.push(await startWorker({ store: db, concurrency: 2, kinds: ["conversation"] }));
    const queued = await running;
    return { inProcess, queued, here, db };
  }

  it("--no-simulator-check queued: the scorer is asked nothing about the simulated user, no fault is found, and it prints and stores what an in-process run does", async () => {
    const file = jobFile("unchecked.job.yml");
    const llm = ["--judge", "openai-compatible:judge", "--judge-base-url", scorer.url];
    const args = [...llm, "--no-simulator-check", "--format", "json"];
    let jobs: ConversationJobData[] = [];
    const before = scorer.stats.requests.length;
    let queuedFrom = 0;
    const { inProcess, queued, here, db } = await bothWays(file, args, (queuedJobs) => {
      jobs = queuedJobs;
      queuedFrom = scorer.stats.requests.length;
    });
    expect(inProcess.code, inProcess.stderr).toBe(0);
    expect(queued.code, queued.stderr).toBe(0);
    expect(jobs.map((j) => j.simulated_user)).toEqual([{ check: false }]);
    const [inProcessRequests, queuedRequests] = [
      scorer.stats.requests.slice(before, queuedFrom),
      scorer.stats.requests.slice(queuedFrom),
    ];
    // The tone and the four tasks, one request a pass: none about the user, here or on the worker.
    expect(queuedRequests).toHaveLength(2);
    expect(queuedRequests.filter(aboutTheUser)).toEqual([]);
    expect(inProcessRequests.map((r) => claimIds(r).ids)).toEqual(queuedRequests.map((r) => claimIds(r).ids));
    const result = JSON.parse(queued.stdout) as ConversationResult;
    expect(result.simulated_user).toBeUndefined();
    expect(result.passes.map((p) => [p.simulator_fault, p.simulated_user])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    expect(result.judge.requests).toBe(2);
    expect(comparable(result)).toEqual(comparable(JSON.parse(inProcess.stdout)));
    expect(comparable((await stored(db)).map(({ id: _, ...r }) => r))).toEqual(
      comparable((await stored(here)).map(({ id: _, ...r }) => r)),
    );
  }, 60_000);

  it("--simulator-propositions queued: the file's propositions travel in the job (the worker never reads the file), its fault fails --fail-on-simulator-fault, and it prints and stores what an in-process run does", async () => {
    const file = jobFile("own-user-set.job.yml");
    const propositions = join(folder(), "user-set.yaml");
    writeFileSync(
      propositions,
      [
        "dimension: simulated_user",
        "threshold: 4",
        "propositions:",
        "  - id: names-no-city",
        "    claim: '{{user_name}} never names a city.'",
        "  - id: signs-off",
        "    when: facts_withheld",
        "    claim: 'The user ends with \"{{signoff}}\".'",
        "",
      ].join("\n"),
    );
    const set = loadSimulatedUserSet(propositions);
    // The demo's verdicts, and these two's: the user names Lisbon (hand-written, not a model's).
    const fixtures = JSON.parse(readFileSync(example("demo.judge-fixtures.json"), "utf8"));
    fixtures.verdicts.push(
      {
        dimension: "simulated_user",
        proposition_id: "names-no-city",
        score: 2,
        reasoning: "It asks about Lisbon.",
      },
      { dimension: "simulated_user", proposition_id: "signs-off", score: 9, reasoning: "It signs off." },
    );
    const judge = join(folder(), "own-user-set.judge-fixtures.json");
    writeFileSync(judge, JSON.stringify(fixtures));
    const args = [
      "--judge",
      `fixtures:${judge}`,
      "--passes",
      "without",
      "--simulator-propositions",
      propositions,
      "--fail-on-simulator-fault",
      "--format",
      "json",
    ];
    let jobs: ConversationJobData[] = [];
    const { inProcess, queued, here, db } = await bothWays(file, args, (queuedJobs) => {
      jobs = queuedJobs;
      // Gone before any worker starts: what the workers check is what the job carries.
      rmSync(propositions);
    });
    expect(jobs.map((j) => j.simulated_user)).toEqual([
      {
        check: true,
        propositions: {
          source: propositions,
          dimension: "simulated_user",
          threshold: 4,
          propositions: set.propositions,
        },
      },
    ]);
    expect(inProcess.code, inProcess.stderr).toBe(1);
    expect(queued.code, queued.stderr).toBe(1);
    const result = JSON.parse(queued.stdout) as ConversationResult;
    expect(result.simulated_user).toEqual({ propositions, hash: set.hash, threshold: 4, faults: 1 });
    expect(result.passes[0]!.simulator_fault).toBe(true);
    expect(result.passes[0]!.simulated_user!.findings.map((f) => [f.id, f.score, f.broken])).toEqual([
      ["names-no-city", 2, true],
      ["signs-off", 9, false],
    ]);
    expect(comparable(result)).toEqual(comparable(JSON.parse(inProcess.stdout)));
    expect(comparable((await stored(db)).map(({ id: _, ...r }) => r))).toEqual(
      comparable((await stored(here)).map(({ id: _, ...r }) => r)),
    );
  }, 60_000);

  it("a job queued before the check travelled (its data without it) is checked on the built-in set", async () => {
    const db = await freshDb();
    const file = jobFile("old.job.yml");
    const detached = await cli(converse(file, db, "--queue", "--detach", "--passes", "without"));
    expect(detached.code, detached.stderr).toBe(0);
    const [id] = detached.stdout.trim().split("\n");
    // As an older dramaturg queued it.
    await queryRows(db, "UPDATE pgboss.job SET data = data - 'simulated_user' WHERE name = $1", [
      CONVERSATION_JOBS,
    ]);
    expect((await queuedJobs(db)).map((j) => "simulated_user" in j)).toEqual([false]);
    workers.push(await startWorker({ store: db, concurrency: 1, kinds: ["conversation"] }));
    const store: Store = await openStore(db);
    try {
      const ended = await followConversations(store, db, [id!]);
      const done = ended.get(id!);
      expect(done?.status).toBe("completed");
      const result = (done as { result: ConversationResult }).result;
      const builtin = loadSimulatedUserSet();
      expect(result.simulated_user).toEqual({
        propositions: "builtin:simulated_user",
        hash: builtin.hash,
        threshold: builtin.threshold,
        faults: 0,
      });
      expect(result.passes[0]!.simulated_user!.findings.map((f) => [f.id, f.score])).toEqual([
        ["stays-in-role", 9],
        ["pursues-tasks", 9],
        ["keeps-withheld-facts", 9],
        ["ends-on-time", 9],
      ]);
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
