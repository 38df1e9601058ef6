// The verdict cache in front of the LLM judge, against the fake OpenAI server and an in-memory store.
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { JudgeItem, JudgeRequest, VerdictCacheBackend } from "../../src/judge/index.ts";
import {
  CachingJudge,
  LlmJudge,
  peekVerdictCache,
  trajectoryOfLines,
  verdictCacheKeys,
} from "../../src/judge/index.ts";
import type { Store } from "../../src/store/index.ts";
import { openPgliteStore } from "../../src/store/open-sql-store.ts";
import type { FakeOpenAIServer, FakeOpenAIServerOptions } from "../../src/testing/index.ts";
import { startFakeOpenAIServer } from "../../src/testing/index.ts";

const API_KEY = "sk-cache-test-0123456789abcdef";

let store: Store;
let server: FakeOpenAIServer | undefined;

beforeAll(async () => {
  // PGlite, not memory://: one test reads the cache table itself, with SQL.
  store = await openPgliteStore(undefined);
});
afterAll(async () => {
  await store.close();
});
beforeEach(async () => {
  await store.verdictCache.clear();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(serverOptions: FakeOpenAIServerOptions = {}, backend?: VerdictCacheBackend) {
  server = await startFakeOpenAIServer(serverOptions);
  const inner = new LlmJudge({
    model: createOpenAI({ baseURL: server.url, apiKey: API_KEY }).chat("fake-model"),
    // One base URL whatever the port, so a restarted server is the same judge (the URL is part of the key).
    descriptor: { provider: "openai", model: "fake-model", base_url: "http://judge.test/v1" },
    temperature: 0,
    maxRetries: 0,
  });
  const judge = new CachingJudge({
    judge: inner,
    backend: backend ?? store.verdictCache,
    mode: "batch",
    tallyRerun: true,
  });
  return { server, judge };
}

const item = (id: string, { trial = 1, claim }: { trial?: number; claim?: string } = {}): JudgeItem => ({
  key: { dimension: "adherence", proposition_id: id, agent_id: "marta", message_id: "m1", trial },
  kind: "score",
  claim: claim ?? `Marta keeps to her persona (${id}).`,
});

const request = (items: JudgeItem[], persona = "A talkative baker."): JudgeRequest => ({
  items,
  context: {
    persona: { name: "Marta", text: persona },
    trajectory: { title: "Marta in #general", text: "#1 Marta acts: [TALK] Bom dia!" },
  },
  doubleCheck: false,
});

/**
 * Fills the cache with `requests` through one judge and server, then gives a new judge over a counting
 * backend, with a new server that should receive no call.
 */
async function warmThenCold(requests: readonly JudgeRequest[]) {
  const warm = await setup();
  for (let i = 0; i < requests.length; i += 100)
    await Promise.all(requests.slice(i, i + 100).map((r) => warm.judge.judge(r)));
  await warm.server.close();
  const { backend, calls } = countingBackend();
  const { judge, server: cold } = await setup({}, backend);
  return { judge, calls, cold, backend };
}

/** A backend over the store's repository that counts the lookups made through it. */
function countingBackend() {
  const calls = { get: 0, peek: 0, put: 0 };
  const backend: VerdictCacheBackend = {
    get: (keys) => {
      calls.get++;
      return store.verdictCache.get(keys);
    },
    peek: (keys) => {
      calls.peek++;
      return store.verdictCache.peek(keys);
    },
    put: (entries) => {
      calls.put++;
      return store.verdictCache.put(entries);
    },
  };
  return { backend, calls };
}

describe("CachingJudge", () => {
  it("a second identical request makes no server call and gives the same verdicts", async () => {
    const { judge, server } = await setup();
    const first = await judge.judge(request([item("traits"), item("style")]));
    expect(server.stats.calls).toBe(1);
    const second = await judge.judge(request([item("traits"), item("style")]));
    expect(server.stats.calls).toBe(1);
    expect(second.verdicts).toEqual(first.verdicts);
    expect(second.calls).toBe(0);
  });

  it("a fresh judge over the same store is served too, as a rerun would be", async () => {
    const a = await setup();
    const first = await a.judge.judge(request([item("traits")]));
    await server!.close();
    const b = await setup();
    const second = await b.judge.judge(request([item("traits")]));
    expect(b.server.stats.calls).toBe(0);
    expect(second.verdicts).toEqual(first.verdicts);
  });

  it("a changed claim is judged again", async () => {
    const { judge, server } = await setup();
    await judge.judge(request([item("traits")]));
    await judge.judge(request([item("traits", { claim: "Marta never swears." })]));
    expect(server.stats.calls).toBe(2);
  });

  it("a changed persona is judged again", async () => {
    const { judge, server } = await setup();
    await judge.judge(request([item("traits")]));
    await judge.judge(request([item("traits")], "A silent fisherman."));
    expect(server.stats.calls).toBe(2);
  });

  it("another trial of the same request is a real judgement, not a copy", async () => {
    const { judge, server } = await setup();
    await judge.judge(request([item("traits", { trial: 1 })]));
    await judge.judge(request([item("traits", { trial: 2 })]));
    expect(server.stats.calls).toBe(2);
    expect(judge.counters.hits).toBe(0);
  });

  it("errored verdicts are not cached, so the next run asks again", async () => {
    const { judge, server } = await setup({ faults: [{ type: "500" }] });
    const first = await judge.judge(request([item("traits")]));
    expect(first.verdicts[0]!.ok).toBe(false);
    expect((await store.verdictCache.stats()).entries).toBe(0);
    const second = await judge.judge(request([item("traits")]));
    expect(second.verdicts[0]!.ok).toBe(true);
    expect(server.stats.calls).toBe(2);
  });

  it("a request with one item not cached is judged whole and then cached whole", async () => {
    const { judge, server } = await setup();
    await judge.judge(request([item("traits")]));
    await judge.judge(request([item("traits"), item("style")]));
    expect(server.stats.calls).toBe(2);
    await judge.judge(request([item("traits"), item("style")]));
    expect(server.stats.calls).toBe(2);
  });

  it("counts hits, misses, saved calls and the tokens the served verdicts first cost", async () => {
    const { judge } = await setup();
    const first = await judge.judge(request([item("traits"), item("style"), item("knowledge")]));
    await judge.judge(request([item("traits"), item("style"), item("knowledge")]));
    expect(judge.counters).toEqual({
      hits: 3,
      misses: 3,
      saved_calls: 1,
      served_requests: 1,
      saved_tokens: first.usage,
    });
  });

  it("tallies what a rerun will be served, and a fresh judge's rerun is served exactly that", async () => {
    const { judge } = await setup();
    const requests = [
      request([item("traits"), item("style")]),
      request([item("knowledge")]),
      request([item("traits"), item("style")], "A quiet baker."),
    ];
    for (const r of requests) await judge.judge(r);
    // One served request too: the tally counts it as the rerun will.
    await judge.judge(requests[1]!);
    const tallied = judge.rerun;
    const rerun = await setup();
    for (const r of [...requests, requests[1]!]) await rerun.judge.judge(r);
    expect(rerun.server.stats.calls).toBe(0);
    expect(tallied).toEqual(rerun.judge.counters);
    expect(tallied?.hits).toBe(6);
  });

  it("tallies no rerun once a verdict errored, or a key was judged twice (its answer may have changed)", async () => {
    const failing = await setup({ faults: [{ type: "500" }] });
    await failing.judge.judge(request([item("traits")]));
    expect(failing.judge.rerun).toBeUndefined();
    await store.verdictCache.clear();
    const { judge, server } = await setup();
    // Both look the key up before either answer is stored: both are judged.
    const twice = request([item("traits")]);
    await Promise.all([judge.judge(twice), judge.judge(twice)]);
    expect(server.stats.calls).toBe(2);
    expect(judge.rerun).toBeUndefined();
    const untallied = new CachingJudge({ judge, backend: store.verdictCache });
    expect(untallied.rerun).toBeUndefined();
  });

  it("stores each item's whole-token share of the call's usage", async () => {
    const { judge } = await setup();
    const first = await judge.judge(request([item("traits"), item("style"), item("knowledge")]));
    const keys = verdictCacheKeys(
      request([item("traits"), item("style"), item("knowledge")]),
      judge.descriptor,
      {
        mode: "batch",
      },
    );
    const entries = [...(await store.verdictCache.peek(keys)).values()];
    const inputs = entries.map((e) => e.usage!.input_tokens);
    expect(inputs.reduce((a, b) => a + b, 0)).toBe(first.usage.input_tokens);
    expect(Math.max(...inputs) - Math.min(...inputs)).toBeLessThanOrEqual(1);
  });

  it("no API key appears in any stored key or value", async () => {
    const { judge } = await setup();
    await judge.judge(request([item("traits"), item("style")]));
    const raw = await store.db!.query("SELECT * FROM verdict_cache");
    expect(raw.rowCount).toBe(2);
    const text = JSON.stringify(raw.rows);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain("cache-test");
  });

  it("prefetch looks up many requests in one backend call per thousand keys, then serves them without calls", async () => {
    const requests = Array.from({ length: 1200 }, (_, i) => request([item(`p${i}`)]));
    const { judge, calls, cold } = await warmThenCold(requests);
    await judge.prefetch(requests);
    expect(calls).toEqual({ get: 2, peek: 2, put: 0 });
    for (const r of requests) await judge.judge(r);
    expect(calls).toEqual({ get: 2, peek: 2, put: 0 });
    expect(cold.stats.calls).toBe(0);
    expect(judge.counters.hits).toBe(1200);
  });

  it("a run can start beside the prefetch: each judge() waits for its own chunk and makes no call", async () => {
    const requests = Array.from({ length: 2500 }, (_, i) => request([item(`q${i}`)]));
    const { judge, calls, cold } = await warmThenCold(requests);
    const prefetched = judge.prefetch(requests);
    // Judged at once, before any lookup has come back, as `dramaturg eval` does with its run.
    const responses = await Promise.all(requests.map((r) => judge.judge(r)));
    await prefetched;
    expect(responses.every((r) => r.calls === 0 && r.verdicts[0]!.ok)).toBe(true);
    // One peek per chunk of a thousand keys, then the counting get of what it found (no `hit` here).
    expect(calls).toEqual({ get: 3, peek: 3, put: 0 });
    expect(cold.stats.calls).toBe(0);
    expect(judge.counters).toMatchObject({ hits: 2500, misses: 0, served_requests: 2500 });
    expect((await store.verdictCache.stats()).hits).toBe(2500);
  });

  it("a failed prefetch lookup rejects, and the requests it held are looked up by judge() itself", async () => {
    const requests = [request([item("traits")]), request([item("style")])];
    const { judge, calls, cold, backend } = await warmThenCold(requests);
    // The prefetch's one lookup fails; the store answers again afterwards.
    backend.peek = (keys) =>
      calls.peek++ === 0 ? Promise.reject(new Error("the store went away")) : store.verdictCache.peek(keys);
    const prefetched = judge.prefetch(requests);
    prefetched.catch(() => undefined);
    const responses = await Promise.all(requests.map((r) => judge.judge(r)));
    await expect(prefetched).rejects.toThrow("the store went away");
    expect(responses.every((r) => r.calls === 0 && r.verdicts[0]!.ok)).toBe(true);
    // The failed peek, then one peek and one counting get per request.
    expect(calls).toEqual({ get: 2, peek: 3, put: 0 });
    expect(cold.stats.calls).toBe(0);
  });

  it("prefetch counts a hit in the store only for requests it will answer entirely", async () => {
    const { judge } = await setup();
    await judge.judge(request([item("traits")]));
    const again = new CachingJudge({ judge: judge, backend: store.verdictCache, mode: "batch" });
    await again.prefetch([request([item("traits")]), request([item("traits"), item("style")])]);
    expect((await store.verdictCache.stats()).hits).toBe(1);
  });

  it("peek says what the cache would answer without counting hits or calling the model", async () => {
    const { judge, server } = await setup();
    const first = await judge.judge(request([item("traits"), item("style")]));
    const report = await judge.peek([request([item("traits"), item("style")]), request([item("other")])]);
    expect(report).toEqual({
      requests: 1,
      verdicts: 2,
      saved_calls: 1,
      saved_tokens: first.usage,
      served: [true, false],
    });
    expect(server.stats.calls).toBe(1);
    expect((await store.verdictCache.stats()).hits).toBe(0);
    expect(judge.counters.hits).toBe(0);
  });
});

describe("peekVerdictCache", () => {
  it("answers for a judge known only by its descriptor, as a dry run has it", async () => {
    const { judge } = await setup();
    await judge.judge(request([item("traits")]));
    const report = await peekVerdictCache({
      requests: [request([item("traits")]), request([item("style")])],
      descriptor: { ...judge.descriptor },
      backend: store.verdictCache,
      mode: "batch",
    });
    expect(report).toMatchObject({ requests: 1, verdicts: 1, served: [true, false] });
  });
});

describe("verdictCacheKeys", () => {
  const descriptor = { provider: "openai", model: "m", prompt_version: "p", temperature: 0 };
  const base = verdictCacheKeys(request([item("traits")]), descriptor, { mode: "individual" });

  it("differ by temperature, model, base URL, mode and double-check", () => {
    const variants = [
      verdictCacheKeys(
        request([item("traits")]),
        { ...descriptor, temperature: 0.7 },
        { mode: "individual" },
      ),
      verdictCacheKeys(request([item("traits")]), { ...descriptor, model: "n" }, { mode: "individual" }),
      verdictCacheKeys(
        request([item("traits")]),
        { ...descriptor, base_url: "http://x/v1" },
        { mode: "individual" },
      ),
      verdictCacheKeys(request([item("traits")]), descriptor, { mode: "batch" }),
      verdictCacheKeys({ ...request([item("traits")]), doubleCheck: true }, descriptor, {
        mode: "individual",
      }),
    ];
    for (const keys of variants) expect(keys[0]).not.toBe(base[0]);
  });

  it("follow a context changed after it was keyed", () => {
    const changed = request([item("traits")]);
    const before = verdictCacheKeys(changed, descriptor, { mode: "individual" });
    changed.context.trajectory.text = "#1 Marta acts: [TALK] Boa noite!";
    expect(verdictCacheKeys(changed, descriptor, { mode: "individual" })).not.toEqual(before);
  });

  it("of a trajectory given as lines follow every line, and not the arrays that hold them", () => {
    const withLines = (lines: string[]) => ({
      ...request([item("traits")]),
      context: { ...request([]).context, trajectory: trajectoryOfLines("Marta's trajectory", lines) },
    });
    const keysOf = (lines: string[]) =>
      verdictCacheKeys(withLines(lines), descriptor, { mode: "individual" });
    const lines = ["#1 Marta acts: [TALK] Olá!", "#2 --> Marta: [CONVERSATION] Bob: Hi."];
    expect(keysOf([...lines])).toEqual(keysOf([...lines]));
    expect(keysOf([lines[0]!, "#2 --> Marta: [CONVERSATION] Bob: Hi!"])).not.toEqual(keysOf(lines));
    expect(keysOf(lines.slice(0, 1))).not.toEqual(keysOf(lines));
    expect(keysOf([lines.join("\n")])).not.toEqual(keysOf(lines));
    // The lines are the trajectory's text, joined only when it is read; it cannot be reassigned.
    const trajectory = withLines(lines).context.trajectory;
    expect(trajectory.text).toBe(lines.join("\n"));
    expect(() => {
      trajectory.text = "changed";
    }).toThrow(TypeError);
  });

  it("are the same for the same request however its objects were built", () => {
    const again = verdictCacheKeys(JSON.parse(JSON.stringify(request([item("traits")]))), descriptor, {
      mode: "individual",
    });
    expect(again).toEqual(base);
  });
});
