// verdict cache: batch lookups that count hits, idempotent puts, statistics and clearing by model.
import { beforeEach, expect, test } from "vitest";
import type { CacheEntry } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

const entry = (key: string, over: Partial<CacheEntry> = {}): CacheEntry => ({
  key,
  provider: "openai",
  model: "fake-model-b",
  value: { score: 7, reasoning: "In character." },
  usage: { input_tokens: 100, output_tokens: 20 },
  ...over,
});

describeStore("verdict cache", ({ store }) => {
  beforeEach(async () => {
    await store().verdictCache.clear();
  });

  test("stored verdicts are found by key and missing keys are absent", async () => {
    await store().verdictCache.put([
      entry("k1"),
      entry("k2", { value: { count: 2, ideas: ["a", "b"], reasoning: "Two." } }),
    ]);
    const found = await store().verdictCache.get(["k1", "k2", "k3"]);
    expect([...found.keys()].sort()).toEqual(["k1", "k2"]);
    expect(found.get("k2")).toMatchObject({
      value: { count: 2, ideas: ["a", "b"] },
      provider: "openai",
      model: "fake-model-b",
    });
  });

  test("each lookup that finds a verdict counts a hit", async () => {
    await store().verdictCache.put([entry("k1")]);
    await store().verdictCache.get(["k1"]);
    await store().verdictCache.get(["k1", "k1", "absent"]);
    expect((await store().verdictCache.stats()).hits).toBe(2);
  });

  test("hits recorded after a peek are tallied per model with the tokens the entries cost", async () => {
    await store().verdictCache.put([
      entry("k1"),
      entry("k2", { provider: "anthropic", model: "fake-model-a" }),
    ]);
    const seen = await store().verdictCache.peek(["k1", "k2"]);
    await store().verdictCache.hit([...seen.values(), seen.get("k1")!]);
    const stats = await store().verdictCache.stats();
    expect(stats.by_model.map((m) => [m.model, m.entries, m.hits, m.saved_usage])).toEqual([
      ["fake-model-a", 1, 1, { input_tokens: 100, output_tokens: 20 }],
      ["fake-model-b", 1, 2, { input_tokens: 200, output_tokens: 40 }],
    ]);
    await store().verdictCache.hit([]);
    expect((await store().verdictCache.stats()).hits).toBe(3);
  });

  test("peeking finds stored verdicts without counting a hit", async () => {
    await store().verdictCache.put([entry("k1")]);
    const seen = await store().verdictCache.peek(["k1", "k2"]);
    expect([...seen.keys()]).toEqual(["k1"]);
    expect(seen.get("k1")?.usage).toEqual({ input_tokens: 100, output_tokens: 20 });
    expect((await store().verdictCache.stats()).hits).toBe(0);
  });

  test("putting a key again replaces its value and keeps one entry", async () => {
    await store().verdictCache.put([entry("k1")]);
    await store().verdictCache.put([entry("k1", { value: { score: 2, reasoning: "Changed." } })]);
    expect((await store().verdictCache.get(["k1"])).get("k1")?.value.score).toBe(2);
    expect((await store().verdictCache.stats()).entries).toBe(1);
  });

  test("statistics count entries, hits, size and the tokens the hits saved, per model", async () => {
    await store().verdictCache.put([
      entry("k1"),
      entry("k2"),
      entry("k3", { provider: "anthropic", model: "fake-model-a" }),
    ]);
    await store().verdictCache.get(["k1", "k3"]);
    await store().verdictCache.get(["k1"]);
    const stats = await store().verdictCache.stats();
    expect(stats).toMatchObject({
      entries: 3,
      hits: 3,
      saved_usage: { input_tokens: 300, output_tokens: 60 },
    });
    expect(stats.bytes).toBeGreaterThan(0);
    expect(stats.by_model.map((m) => [m.model, m.entries, m.hits, m.saved_usage.input_tokens])).toEqual([
      ["fake-model-a", 1, 1, 100],
      ["fake-model-b", 2, 2, 200],
    ]);
  });

  test("clearing one model keeps the others", async () => {
    await store().verdictCache.put([
      entry("k1"),
      entry("k2", { provider: "anthropic", model: "fake-model-a" }),
    ]);
    await store().verdictCache.get(["k1", "k2"]);
    expect(await store().verdictCache.clear({ model: "fake-model-b" })).toBe(1);
    expect([...(await store().verdictCache.peek(["k1", "k2"])).keys()]).toEqual(["k2"]);
    // The cleared model's hits go with its entries.
    expect((await store().verdictCache.stats()).by_model.map((m) => [m.model, m.hits])).toEqual([
      ["fake-model-a", 1],
    ]);
  });

  test("a lookup of many keys at once finds them all", async () => {
    const entries = Array.from({ length: 2500 }, (_, i) => entry(`bulk-${i}`));
    await store().verdictCache.put(entries);
    expect((await store().verdictCache.get(entries.map((e) => e.key))).size).toBe(2500);
  });

  test("a value read back is a copy: changing it changes nothing cached", async () => {
    await store().verdictCache.put([entry("c1", { value: { count: 1, ideas: ["a"], reasoning: "One." } })]);
    const found = (await store().verdictCache.peek(["c1"])).get("c1")!;
    found.value.ideas!.push("b");
    found.usage!.input_tokens = 0;
    expect((await store().verdictCache.peek(["c1"])).get("c1")).toMatchObject({
      value: { ideas: ["a"] },
      usage: { input_tokens: 100 },
    });
  });

  test("an entry without usage comes back without it, and clearing by provider or everything counts entries", async () => {
    await store().verdictCache.put([
      entry("u1", { usage: undefined }),
      entry("u2", { provider: "anthropic", model: "fake-model-b" }),
      entry("u3"),
    ]);
    expect((await store().verdictCache.peek(["u1"])).get("u1")).not.toHaveProperty("usage");
    expect(await store().verdictCache.clear({ provider: "anthropic" })).toBe(1);
    expect(await store().verdictCache.clear({ model: "fake-model-b", provider: "nobody" })).toBe(0);
    expect(await store().verdictCache.clear()).toBe(2);
    expect(await store().verdictCache.stats()).toEqual({
      entries: 0,
      hits: 0,
      bytes: 0,
      saved_usage: { input_tokens: 0, output_tokens: 0 },
      by_model: [],
    });
  });

  test("hits tallied for a model with no entries left still count in the statistics", async () => {
    await store().verdictCache.hit([entry("gone", { model: "fake-model-z" })]);
    const stats = await store().verdictCache.stats();
    expect(stats.by_model).toEqual([
      {
        provider: "openai",
        model: "fake-model-z",
        entries: 0,
        hits: 1,
        bytes: 0,
        saved_usage: { input_tokens: 100, output_tokens: 20 },
      },
    ]);
  });

  test("the generation stays while entries are only added and read, and moves when one is replaced", async () => {
    const cache = store().verdictCache;
    await cache.put([entry("g1")]);
    const before = await cache.generation();
    await cache.put([entry("g2"), entry("g3")]);
    await cache.get(["g1", "g2"]);
    expect(await cache.generation()).toBe(before);
    await cache.put([entry("g4"), entry("g1", { value: { score: 2, reasoning: "Changed." } })]);
    expect(await cache.generation()).toBeGreaterThan(before);
  });

  test("the generation moves on every clear, even one that deletes nothing", async () => {
    const cache = store().verdictCache;
    const before = await cache.generation();
    expect(await cache.clear({ model: "no-such-model" })).toBe(0);
    const after = await cache.generation();
    expect(after).toBeGreaterThan(before);
    await cache.clear();
    expect(await cache.generation()).toBeGreaterThan(after);
  });

  test("hits tallied in bulk count in the statistics as looked-up hits do", async () => {
    const cache = store().verdictCache;
    await cache.put([entry("t1")]);
    await cache.tally([{ provider: "openai", model: "fake-model-b", hits: 40, input: 4000, output: 800 }]);
    await cache.tally([{ provider: "openai", model: "fake-model-b", hits: 0, input: 0, output: 0 }]);
    expect(await cache.stats()).toMatchObject({
      hits: 40,
      saved_usage: { input_tokens: 4000, output_tokens: 800 },
    });
  });
});
