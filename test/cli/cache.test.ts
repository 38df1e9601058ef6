// `dramaturg cache stats|clear` over a store holding cached verdicts of two models.
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.ts";
import { tempDir } from "../temp-dir.ts";
import { cli } from "./run-cli.ts";

let db: string;

beforeEach(async () => {
  db = join(tempDir("dramaturg-cache-"), "store");
  const store = await openStore(db);
  const entry = (key: string, provider: string, model: string) => ({
    key,
    provider,
    model,
    value: { score: 7, reasoning: "In character." },
    usage: { input_tokens: 1000, output_tokens: 50 },
  });
  await store.verdictCache.put([
    entry("a", "openai", "fake-model-b"),
    entry("b", "openai", "fake-model-b"),
    entry("c", "anthropic", "fake-model-a"),
  ]);
  await store.verdictCache.get(["a", "b"]);
  await store.close();
});

describe("dramaturg cache", () => {
  it("stats prints entries, hits, size and saved tokens in total and by model", async () => {
    const r = await cli(["cache", "stats", "--db", db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/entries 3 · hits 2 · size [\d.]+ (B|KiB) · tokens saved 2,000 in \+ 100 out/);
    expect(r.stdout).toMatch(/openai:fake-model-b\s+2\s+2\s+.*2,000 in \+ 100 out/);
    expect(r.stdout).toMatch(/anthropic:fake-model-a\s+1\s+0/);
  });

  it("stats --format json gives the same figures as data", async () => {
    const r = await cli(["cache", "stats", "--db", db, "--format", "json"]);
    const { cache } = JSON.parse(r.stdout);
    expect(cache).toMatchObject({
      entries: 3,
      hits: 2,
      saved_usage: { input_tokens: 2000, output_tokens: 100 },
    });
    expect(cache.by_model).toHaveLength(2);
  });

  it("clear --model removes one model's entries and keeps the rest", async () => {
    const r = await cli(["cache", "clear", "--db", db, "--model", "openai:fake-model-b"]);
    expect(r.stdout).toMatch(/cleared 2 cached verdicts of openai:fake-model-b/);
    const { cache } = JSON.parse((await cli(["cache", "stats", "--db", db, "--format", "json"])).stdout);
    expect(cache.by_model.map((m: { model: string }) => m.model)).toEqual(["fake-model-a"]);
  });

  it("clear without --model empties the cache", async () => {
    expect((await cli(["cache", "clear", "--db", db])).stdout).toMatch(/cleared 3 cached verdicts/);
    expect(
      JSON.parse((await cli(["cache", "stats", "--db", db, "--format", "json"])).stdout).cache.entries,
    ).toBe(0);
  });

  it("stats on a folder with no store reports an empty cache and creates nothing", async () => {
    const missing = join(tempDir("dramaturg-cache-"), "none");
    const r = await cli(["cache", "stats", "--db", missing]);
    expect(r.stdout).toMatch(/entries 0/);
    const { existsSync } = await import("node:fs");
    expect(existsSync(missing)).toBe(false);
  });
});
