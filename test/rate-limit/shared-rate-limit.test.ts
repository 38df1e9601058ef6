// The judge's rate limit shared through PostgreSQL (`judge_rate_limits`): three limiters on three connection
// pools, as three workers would be, hold one limit together at the fake server; a 429 with Retry-After to one
// holds the others; the stored key carries a digest of the API key, never the key; and the CLI's in-process
// runs and `dramaturg worker`s on a PostgreSQL store keep dramaturg.yaml's limit there. One database per test.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/engine/index.ts";
import { createJudge, type JudgeRequest, RATE_LIMIT_BURST_MS, rateLimitKey } from "../../src/judge/index.ts";
import { SharedRateLimits, withSharedRateLimit } from "../../src/rate-limit/index.ts";
import type { Queryable } from "../../src/store/index.ts";
import {
  type FakeChatRequest,
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../../src/testing/index.ts";
import { BIN, ROOT, spawnCli } from "../cli/run-cli.ts";
import {
  dropFreshDatabases,
  freshDatabase,
  postgresSuite,
  queryRows,
  postgresUrl as url,
} from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";

const SECRET = "sk-shared-limit-secret-0123456789abcdef";
const folder = useTempDir("dramaturg-shared-limit-");
let server: FakeOpenAIServer | undefined;
let stores: Store[] = [];

/** A new, migrated database of this file's, and its URL. */
async function freshDb(): Promise<string> {
  const db = await freshDatabase("dramaturg_limit");
  await (await openStore(db)).close();
  return db;
}

/** Arrival times at the fake server, with the judge each request came from (its claims name it). */
interface Arrival {
  at: number;
  judge: number;
}

async function recordingServer(options: FakeOpenAIServerOptions = {}) {
  const arrivals: Arrival[] = [];
  server = await startFakeOpenAIServer({
    ...options,
    recordRequests: false,
    latencyMs: (_i: number, request: FakeChatRequest) => {
      const judge = /\(j(\d+)-/.exec(JSON.stringify(request.messages))?.[1];
      arrivals.push({ at: Date.now(), judge: Number(judge) });
      return 5;
    },
  });
  return { server, arrivals };
}

const request = (judge: number, call: number): JudgeRequest => ({
  items: [
    {
      key: { dimension: "adherence", proposition_id: `p${call}`, agent_id: "marta", trial: 1 },
      kind: "score",
      claim: `Marta keeps to her persona (j${judge}-${call}).`,
    },
  ],
  context: {
    persona: { name: "Marta", text: "A talkative baker." },
    trajectory: { title: "Marta in #general", text: "#1 Marta acts: [TALK] Bom dia!" },
  },
  doubleCheck: false,
});

/** Three judges on the same key, each keeping its limit in the database through a pool of its own. */
async function threeJudges(db: string, requestsPerMinute: number, concurrency: number) {
  stores = await Promise.all([0, 1, 2].map(() => openStore(db)));
  return stores.map((store) =>
    createJudge("openai-compatible:fake-model", {
      baseUrl: server!.url,
      apiKeyEnv: "SHARED_LIMIT_KEY",
      env: { SHARED_LIMIT_KEY: SECRET },
      concurrency,
      retries: 2,
      rateLimit: { requestsPerMinute },
      rateLimits: new SharedRateLimits(store.db!),
    }),
  );
}

/** The most arrivals in any window of `ms` starting at an arrival. */
function busiestWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j]! < sorted[i]! + ms) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

describe("a worker's judge settings", () => {
  const db: Queryable = {
    query: () => Promise.reject(new Error("not used")),
    exec: () => Promise.reject(new Error("not used")),
  };

  it("keep startWorker's rateLimit, or the judge settings' own, in the store's database", () => {
    const given = withSharedRateLimit({ retries: 2 }, { requestsPerMinute: 60 }, db);
    expect(given).toMatchObject({ retries: 2, rateLimit: { requestsPerMinute: 60 } });
    expect(given?.rateLimits).toBeInstanceOf(SharedRateLimits);
    const own = withSharedRateLimit({ rateLimit: { tokensPerMinute: 1000 } }, undefined, db);
    expect(own?.rateLimits).toBeInstanceOf(SharedRateLimits);
    expect(withSharedRateLimit({ retries: 2 }, undefined, db)).toEqual({ retries: 2 });
  });
});

describe.skipIf(!url)(postgresSuite("the judge's rate limit shared through PostgreSQL"), () => {
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });

  afterAll(async () => {
    await dropFreshDatabases();
  });

  it("three limiters hold one limit together: no window at the server above the limit by more than the burst (and a late timer)", async () => {
    const db = await freshDb();
    const { arrivals } = await recordingServer();
    // 1,200 a minute: one every 50 ms, 20 a second; the burst is RATE_LIMIT_BURST_MS of it and the first slot.
    const judges = await threeJudges(db, 1200, 4);
    const calls = 20;
    const started = Date.now();
    await Promise.all(
      judges.map((judge, j) =>
        Promise.all(Array.from({ length: calls }, (_, c) => judge.judge(request(j, c)))),
      ),
    );
    const wall = Date.now() - started;
    expect(arrivals).toHaveLength(3 * calls);
    // In any 2 seconds: the limit's 40, the burst, and 2 more for timers that fire late on a busy machine (the
    // calls a late timer held go together once it fires: up to one more per 50 ms it was late).
    const burst = RATE_LIMIT_BURST_MS / 50 + 1;
    const times = arrivals.map((a) => a.at);
    expect(busiestWindow(times, 2000)).toBeLessThanOrEqual(40 + burst + 2);
    // Every judge had its share: the limit is the three's together, not each one's.
    for (const j of [0, 1, 2]) expect(arrivals.filter((a) => a.judge === j)).toHaveLength(calls);
    expect(wall).toBeGreaterThanOrEqual((3 * calls - burst) * 50 - 50);
    // One row, under provider, model and a digest of the key: the key itself is nowhere in the table.
    const stored = await queryRows<{ key: string; text: string }>(
      db,
      "SELECT key, row_to_json(l)::text AS text FROM judge_rate_limits l",
    );
    expect(stored.map((r) => r.key)).toEqual([rateLimitKey("openai-compatible", "fake-model", SECRET)]);
    expect(stored[0]!.key).toMatch(/^openai-compatible:fake-model:[0-9a-f]{16}$/);
    expect(stored[0]!.text).not.toContain(SECRET);
    expect(stored[0]!.text).not.toContain(SECRET.slice(0, 12));
  }, 20_000);

  it("tokens: a call's estimate is charged now, and the difference its real usage makes rides on the next acquire", async () => {
    const db = await freshDb();
    stores = [await openStore(db)];
    const waits: number[] = [];
    // Waits are recorded, not slept: each acquire's answer is the row's time against the server's clock.
    const limits = new SharedRateLimits(stores[0]!.db!, { sleep: async (ms) => void waits.push(ms) });
    // 60,000 tokens a minute: 1 ms a token.
    const limiter = limits.limiter("openai:tokens:0", { tokensPerMinute: 60_000 });
    const first = await limiter.acquire(500);
    first.settle(100);
    // The next goes after the first's 500 estimated tokens; it carries the 400 the first did not use, so it
    // moves the time on by 500 - 400 tokens, and the third waits ≈ 600 ms from the start, not 1,000.
    await limiter.acquire(500);
    await limiter.acquire(0);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThan(500 - RATE_LIMIT_BURST_MS - 60);
    expect(waits[0]).toBeLessThanOrEqual(500 - RATE_LIMIT_BURST_MS);
    expect(waits[1]).toBeGreaterThan(600 - RATE_LIMIT_BURST_MS - 60);
    expect(waits[1]).toBeLessThanOrEqual(600 - RATE_LIMIT_BURST_MS);
  });

  it("a 429 with Retry-After to one judge holds the other two until it ends", async () => {
    const db = await freshDb();
    // The 11th request is answered 429, retry after 1 s.
    const { arrivals } = await recordingServer({
      faults: (callIndex) => (callIndex === 10 ? { type: "429", retryAfterMs: 1000 } : undefined),
    });
    // 6,000 a minute (one every 10 ms): without the pause, the others would send ~80 requests in that second.
    const judges = await threeJudges(db, 6000, 1);
    await Promise.all(
      judges.map(async (judge, j) => {
        for (let c = 0; c < 25; c++) await judge.judge(request(j, c));
      }),
    );
    const limited = arrivals[10]!;
    const others = arrivals.filter((a) => a.judge !== limited.judge);
    // Calls already given their time before the pause reached the database go (a few ms); then nothing.
    const held = others.filter((a) => a.at > limited.at + 150 && a.at < limited.at + 900);
    expect(held).toEqual([]);
    // They resumed after it.
    expect(others.filter((a) => a.at >= limited.at + 900).length).toBeGreaterThan(10);
    const [row] = await queryRows<{ paused: boolean }>(
      db,
      "SELECT paused_until > '-infinity' AS paused FROM judge_rate_limits",
    );
    expect(row?.paused).toBe(true);
  }, 20_000);

  describe("dramaturg.yaml's judge.rate_limit with a PostgreSQL store", () => {
    let transcript: string;
    let config: string;
    beforeAll(() => {
      transcript = join(folder(), "transcript.json");
      writeFileSync(
        transcript,
        JSON.stringify(syntheticTranscript({ messages: 20, agents: 2, channels: 1 })),
      );
      config = join(folder(), "dramaturg.yaml");
      writeFileSync(config, "judge:\n  rate_limit:\n    requests_per_minute: 1200\n");
    });

    const evalArgs = (db: string) => [
      "eval",
      transcript,
      "--judge",
      "openai-compatible:fake-model",
      "--judge-base-url",
      server!.url,
      "--db",
      db,
      "--dimensions",
      "adherence",
      "--config",
      config,
      "--no-progress",
      "--format",
      "json",
    ];

    /**
     * Enough calls to exceed the limit many times over if nothing held them, spread over at least their share
     * of time at 50 ms each past the burst (less two slots: a process busy planning may send a few late,
     * together, which its spread only widens). Not a window's count: that is the three limiters' test above.
     */
    const expectSpaced = (times: number[]) => {
      expect(times.length).toBeGreaterThan(40);
      const span = Math.max(...times) - Math.min(...times);
      expect(span).toBeGreaterThanOrEqual((times.length - (RATE_LIMIT_BURST_MS / 50 + 1) - 2) * 50);
    };

    it("an in-process eval keeps it in the database, and exits as soon as it is done", async () => {
      const db = await freshDb();
      const { arrivals } = await recordingServer();
      const r = await spawnCli(evalArgs(db));
      const exited = Date.now();
      expect(r.code, r.stderr).toBe(0);
      expectSpaced(arrivals.map((a) => a.at));
      // The limit's connections, idle, do not keep the process alive (they would for 5 s).
      expect(exited - Math.max(...arrivals.map((a) => a.at))).toBeLessThan(3000);
      const stored = await queryRows<{ key: string }>(db, "SELECT key FROM judge_rate_limits");
      expect(stored.map((s) => s.key)).toEqual([
        rateLimitKey("openai-compatible", "fake-model", "not-needed"),
      ]);
    }, 30_000);

    it("a dramaturg worker keeps it in the database", async () => {
      const db = await freshDb();
      const { arrivals } = await recordingServer();
      const worker: ChildProcess = spawn(
        process.execPath,
        [BIN, "worker", "--db", db, "--concurrency", "8", "--config", config],
        { cwd: ROOT },
      );
      let stderr = "";
      worker.stderr!.on("data", (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => worker.on("exit", resolve));
      try {
        const r = await spawnCli([...evalArgs(db), "--queue"]);
        expect(r.code, r.stderr).toBe(0);
      } finally {
        worker.kill("SIGTERM");
      }
      expect(await exited, stderr).toBe(0);
      expectSpaced(arrivals.map((a) => a.at));
      const stored = await queryRows<{ n: number }>(db, "SELECT count(*)::int AS n FROM judge_rate_limits");
      expect(stored[0]?.n).toBe(1);
    }, 30_000);
  });
});
