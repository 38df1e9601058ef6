// `dramaturg cache stats|clear` over a store holding cached verdicts of two models.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../../src/testing/index.ts";
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

describe("a rerun of an unchanged evaluation", () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer();
  });
  afterAll(async () => {
    await server.close();
  });

  /** `eval` of a new transcript of `messages` messages against the fake judge, into the store at `store`. */
  const evalArgsFor = (store: string, messages: number) => {
    const transcript = join(tempDir("dramaturg-cache-"), "t.json");
    writeFileSync(transcript, JSON.stringify(syntheticTranscript({ messages, agents: 2, channels: 1 })));
    return [
      "eval",
      transcript,
      "--judge",
      "openai-compatible:fake-model",
      "--judge-base-url",
      server.url,
      "--db",
      store,
      "--dimensions",
      "adherence",
      "--no-progress",
    ];
  };

  it("reuses the last warm one whole, says so in one line, and stops once the cache is cleared", async () => {
    const evalArgs = evalArgsFor(db, 6);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await cli(evalArgs));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    // The first judged, and stored every verdict in the cache: the second reused it, the third the second.
    const reusedLine = /^reused: unchanged since evaluation [0-9a-f]{8}; its verdicts were copied whole$/m;
    expect(runs[0]!.stdout).not.toMatch(/reused:/);
    expect(runs[1]!.stdout).toMatch(reusedLine);
    expect(runs[2]!.stdout).toMatch(reusedLine);
    const calls = server.stats.calls;
    // Any deletion from the cache, even of another model's entries, ends the reuse.
    await cli(["cache", "clear", "--db", db, "--model", "anthropic:fake-model-a"]);
    const afterClear = await cli(evalArgs);
    expect(afterClear.stdout).not.toMatch(/reused:/);
    expect(afterClear.stdout).toMatch(/cache: \d+ hits/);
    expect(server.stats.calls).toBe(calls);
  });

  it("a first run on a new folder is reused by its rerun, which says what the cache served", async () => {
    const evalArgs = [...evalArgsFor(join(tempDir("dramaturg-cache-"), "db"), 5), "--format", "json"];
    const first = await cli(evalArgs);
    expect(first.code, first.stderr).toBe(0);
    const calls = server.stats.calls;
    const rerun = await cli(evalArgs);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(server.stats.calls).toBe(calls);
    const [a, b] = [JSON.parse(first.stdout), JSON.parse(rerun.stdout)];
    expect(a.totals.calls).toBeGreaterThan(0);
    expect(b.totals.cache.reused_from).toBe(a.evaluation_id);
    // What the cache served: every verdict the first run judged, and the calls and tokens they cost.
    expect(b.totals).toMatchObject({
      calls: 0,
      token_usage: { input_tokens: 0, output_tokens: 0 },
      cache: {
        hits: a.totals.cache.misses,
        misses: 0,
        saved_calls: a.totals.calls,
        saved_tokens: a.totals.token_usage,
      },
    });
    expect(b.runs.map((r: { overall_score: number }) => r.overall_score)).toEqual(
      a.runs.map((r: { overall_score: number }) => r.overall_score),
    );
  });
});
