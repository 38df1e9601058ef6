// A judge's rate limit kept in this process (memory://, PGlite): GCRA spacing of requests and tokens, the
// burst it tolerates, settlement with real usage and a provider's pause; and the LLM judge's use of its
// limiter on every call (retries and double checks too), its 429 pauses, and a limiter that fails.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { afterEach, describe, expect, it } from "vitest";
import { judgeSettingsOf } from "../../src/cli/persona-evaluation.ts";
import { resolveSettings } from "../../src/cli/settings.ts";
import { InputError, StoreError } from "../../src/core/index.ts";
import {
  createJudge,
  type JudgeRateLimiter,
  type JudgeRequest,
  LlmJudge,
  LocalRateLimits,
  RATE_LIMIT_BURST_MS,
  type RateLimit,
  type RateLimitBackend,
  rateLimitKey,
} from "../../src/judge/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { cli } from "../cli/run-cli.ts";
import { tempDir } from "../temp-dir.ts";

/** A clock that only moves when the limiter sleeps: each acquire's release time is exact. */
function fakeTime() {
  let now = 1_000_000;
  const sleeps: number[] = [];
  const limits = new LocalRateLimits({
    clock: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  });
  return { limits, sleeps, now: () => now };
}

/** Release times, relative to the first, of `n` acquires made one after the other. */
async function releases(limiter: JudgeRateLimiter, now: () => number, n: number, tokens = 0) {
  const start = now();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    await limiter.acquire(tokens);
    times.push(now() - start);
  }
  return times;
}

describe("LocalRateLimits", () => {
  it("spaces requests by 60 s / requests per minute, after a burst of the tolerance", async () => {
    const { limits, now } = fakeTime();
    // 60 a minute: one a second; the first goes now, the second as early as the tolerance allows.
    const times = await releases(limits.limiter("k", { requestsPerMinute: 60 }), now, 5);
    expect(times).toEqual([0, 1000, 2000, 3000, 4000].map((t) => Math.max(0, t - RATE_LIMIT_BURST_MS)));
  });

  it("a burst of up to the tolerance goes at once at a high limit, then one every interval", async () => {
    const { limits, now } = fakeTime();
    // 6,000 a minute: 10 ms apart; the tolerance lets the first slot and the next RATE_LIMIT_BURST_MS go at once.
    const burst = RATE_LIMIT_BURST_MS / 10 + 1;
    const times = await releases(limits.limiter("k", { requestsPerMinute: 6000 }), now, 40);
    expect(times.filter((t) => t === 0)).toHaveLength(burst);
    expect(times.slice(burst).map((t, i) => t - times[burst - 1 + i]!)).toEqual(
      new Array(40 - burst).fill(10),
    );
  });

  it("spaces calls by their tokens' share of a minute, and settles each estimate with the real usage", async () => {
    const { limits, now } = fakeTime();
    // 6,000 tokens a minute: 10 ms a token.
    const limiter = limits.limiter("k", { tokensPerMinute: 6000 });
    const first = await limiter.acquire(100);
    // Estimated 100 tokens (1,000 ms); it used 50: the next call's time is 500 ms on, less the tolerance.
    first.settle(50);
    const start = now();
    await limiter.acquire(100);
    expect(now() - start).toBe(500 - RATE_LIMIT_BURST_MS);
    // Not settled: the estimate stands.
    const before = now();
    await limiter.acquire(100);
    expect(now() - before).toBe(1000);
  });

  it("a pause holds every caller of the key until it ends; other keys go on", async () => {
    const { limits, now } = fakeTime();
    const a = limits.limiter("a", { requestsPerMinute: 6000 });
    const again = limits.limiter("a", { requestsPerMinute: 6000 });
    const b = limits.limiter("b", { requestsPerMinute: 6000 });
    await a.pause(5000);
    const start = now();
    await b.acquire(0);
    expect(now() - start).toBe(0);
    // Another limiter of the same key (another judge) waits for the pause, with no early burst.
    await again.acquire(0);
    expect(now() - start).toBe(5000);
    // A shorter pause does not shorten it.
    await a.pause(10_000);
    await a.pause(1);
    const paused = now();
    await a.acquire(0);
    expect(now() - paused).toBe(10_000);
  });

  it("a caller whose signal aborts while it waits gets the abort reason", async () => {
    const limiter = new LocalRateLimits().limiter("k", { requestsPerMinute: 1 });
    await limiter.acquire(0);
    const controller = new AbortController();
    const waiting = limiter.acquire(0, controller.signal);
    controller.abort(new Error("stopped"));
    await expect(waiting).rejects.toThrow("stopped");
  });

  it("refuses a limit with neither figure, or one that is not a positive whole number", () => {
    const limits = new LocalRateLimits();
    expect(() => limits.limiter("k", {})).toThrow(InputError);
    expect(() => limits.limiter("k", { requestsPerMinute: 0 })).toThrow(/requestsPerMinute/);
    expect(() => limits.limiter("k", { tokensPerMinute: 1.5 })).toThrow(/tokensPerMinute/);
  });

  it("keys name the provider and model, and a digest of the API key, never the key", () => {
    const key = rateLimitKey("openai", "gpt-4o-mini", "sk-very-secret-key-123");
    expect(key).toMatch(/^openai:gpt-4o-mini:[0-9a-f]{16}$/);
    expect(key).not.toContain("secret");
    expect(rateLimitKey("openai", "gpt-4o-mini", "another-key")).not.toBe(key);
  });
});

/** A limiter that records what the judge asked of it; `fail` makes acquire reject. */
function spyBackend(fail?: Error) {
  const seen = {
    keys: [] as string[],
    limits: [] as RateLimit[],
    acquired: [] as number[],
    settled: [] as number[],
    paused: [] as number[],
  };
  const backend: RateLimitBackend = {
    limiter(key, limit) {
      seen.keys.push(key);
      seen.limits.push(limit);
      return {
        async acquire(tokens) {
          if (fail) throw fail;
          seen.acquired.push(tokens);
          return { settle: (used) => seen.settled.push(used) };
        },
        async pause(ms) {
          seen.paused.push(ms);
        },
      };
    },
  };
  return { backend, seen };
}

const request = (ids: string[], doubleCheck = false): JudgeRequest => ({
  items: ids.map((id) => ({
    key: { dimension: "adherence", proposition_id: id, agent_id: "marta", trial: 1 },
    kind: "score",
    claim: `Marta keeps to her persona (${id}).`,
  })),
  context: {
    persona: { name: "Marta", text: "A talkative baker." },
    trajectory: { title: "Marta in #general", text: "#1 Marta acts: [TALK] Bom dia!" },
  },
  doubleCheck,
});

describe("the LLM judge under a rate limit", () => {
  let server: FakeOpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("acquires before every call — the retry after a 429 and the double check too — pauses on Retry-After, and settles each with its usage", async () => {
    server = await startFakeOpenAIServer({ faults: [{ type: "429", retryAfterMs: 40 }] });
    const { backend, seen } = spyBackend();
    const judge = createJudge("openai-compatible:fake-model", {
      baseUrl: server.url,
      apiKeyEnv: "MY_JUDGE_KEY",
      env: { MY_JUDGE_KEY: "sk-test-secret-key-0123456789" },
      rateLimit: { requestsPerMinute: 600 },
      rateLimits: backend,
    });
    const response = await judge.judge(request(["p1"], true));
    expect(response.verdicts[0]?.ok).toBe(true);
    // The 429, the answer, the double check: three calls, three acquires.
    expect(server.stats.calls).toBe(3);
    expect(seen.acquired).toHaveLength(3);
    for (const tokens of seen.acquired) expect(tokens).toBeGreaterThan(100);
    expect(seen.paused).toEqual([40]);
    // Two calls were answered and reported their usage; the 429's estimate stands.
    expect(seen.settled).toHaveLength(2);
    const used = response.usage.input_tokens + response.usage.output_tokens;
    expect(seen.settled.reduce((a, b) => a + b, 0)).toBe(used);
    // Kept under provider, model and a digest of the key, never the key.
    expect(seen.keys).toEqual([
      rateLimitKey("openai-compatible", "fake-model", "sk-test-secret-key-0123456789"),
    ]);
    expect(seen.keys[0]).not.toContain("sk-test");
  });

  it("a model given ready-made (not through a spec) is limited too, under its provider and id", async () => {
    server = await startFakeOpenAIServer({ faults: [{ type: "429", retryAfterMs: 30 }] });
    const { backend, seen } = spyBackend();
    const limiter = backend.limiter(rateLimitKey("openai.chat", "fake-model"), { requestsPerMinute: 60 });
    const judge = new LlmJudge({
      model: createOpenAI({ baseURL: server.url, apiKey: "test-key" }).chat("fake-model"),
      rateLimiter: limiter,
      sleep: async () => {},
    });
    const response = await judge.judge(request(["p1", "p2"]));
    expect(response.verdicts.every((v) => v.ok)).toBe(true);
    expect(seen.acquired).toHaveLength(server.stats.calls);
    expect(seen.paused).toEqual([30]);
  });

  it("a limiter that fails (its database unreachable) fails the judgement instead of erroring its verdicts", async () => {
    server = await startFakeOpenAIServer();
    const { backend } = spyBackend(new StoreError("the shared rate limit could not be reached"));
    const judge = createJudge("openai-compatible:fake-model", {
      baseUrl: server.url,
      rateLimit: { requestsPerMinute: 600 },
      rateLimits: backend,
    });
    await expect(judge.judge(request(["p1"]))).rejects.toThrow(StoreError);
    expect(server.stats.calls).toBe(0);
  });

  it("spaces real calls at the fake server: 10 calls at 1,200 a minute, the last 4 past the burst 50 ms apart", async () => {
    const arrivals: number[] = [];
    server = await startFakeOpenAIServer({
      latencyMs: () => {
        arrivals.push(Date.now());
        return 0;
      },
    });
    const judge = createJudge("openai-compatible:fake-model", {
      baseUrl: server.url,
      concurrency: 8,
      rateLimit: { requestsPerMinute: 1200 },
      // A backend of this test's own, so no other test's calls share the key.
      rateLimits: new LocalRateLimits(),
    });
    const started = Date.now();
    await Promise.all(Array.from({ length: 10 }, (_, i) => judge.judge(request([`p${i}`]))));
    expect(arrivals).toHaveLength(10);
    // 50 ms apart; the burst may go at once, the others one interval each.
    const burst = RATE_LIMIT_BURST_MS / 50 + 1;
    expect(Math.max(...arrivals) - started).toBeGreaterThanOrEqual((10 - burst) * 50 - 5);
  });
});

describe("judge.rate_limit in dramaturg.yaml", () => {
  const project = (yaml: string) => {
    const dir = tempDir("dramaturg-rate-limit-");
    writeFileSync(join(dir, "dramaturg.yaml"), yaml);
    writeFileSync(join(dir, "a.json"), "{}");
    return dir;
  };

  it("a limit that is not a positive whole number exits 2 naming the file and the place", async () => {
    const dir = project(
      "sources: [a.json]\njudge:\n  model: openai:fake-model-b\n  rate_limit:\n    requests_per_minute: 0\n",
    );
    const r = await cli(["eval"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, "dramaturg.yaml")}:5:26:`);
    expect(r.stderr).toMatch(/requests_per_minute/);
  });

  it("a limit with neither figure exits 2 saying what it expects", async () => {
    const dir = project("sources: [a.json]\njudge:\n  model: openai:fake-model-b\n  rate_limit: {}\n");
    const r = await cli(["eval"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, "dramaturg.yaml")}:4:`);
    expect(r.stderr).toMatch(/expected requests_per_minute, tokens_per_minute or both/);
  });

  it("becomes the judge settings' rate limit: in this process for a folder store, in the database for PostgreSQL", () => {
    const dir = project(
      "judge:\n  model: openai:fake-model-b\n  rate_limit: { requests_per_minute: 3000, tokens_per_minute: 90000 }\n",
    );
    const local = judgeSettingsOf(resolveSettings({ flags: {}, cwd: dir }).settings);
    expect(local.rateLimit).toEqual({ requestsPerMinute: 3000, tokensPerMinute: 90000 });
    expect(local.rateLimits).toBeUndefined();
    const shared = judgeSettingsOf(
      resolveSettings({ flags: { db: "postgres://u@127.0.0.1:1/db" }, cwd: dir }).settings,
    );
    expect(shared.rateLimits).toBeDefined();
    const none = judgeSettingsOf(resolveSettings({ flags: {}, cwd: project("judge: {}\n") }).settings);
    expect(none.rateLimit).toBeUndefined();
  });
});
