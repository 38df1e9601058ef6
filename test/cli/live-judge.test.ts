// The CLI against a live judge: the fake OpenAI-compatible server through the real AI SDK provider.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-live-");
let server: FakeOpenAIServer;
const transcript = `${ROOT}examples/ensemble/transcript.json`;
const propositions = `${ROOT}examples/ensemble/propositions`;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ latencyMs: 1, requireApiKey: "sk-test-live-0123456789" });
  process.env.FAKE_JUDGE_KEY = "sk-test-live-0123456789";
});

afterAll(async () => {
  delete process.env.FAKE_JUDGE_KEY;
  await server.close();
});

const live = (...extra: string[]) => [
  "eval",
  transcript,
  "--propositions",
  propositions,
  "--judge",
  "openai-compatible:fake-model",
  "--judge-base-url",
  server.url,
  "--judge-api-key-env",
  "FAKE_JUDGE_KEY",
  "--agents",
  "dov,ines",
  "--dimensions",
  "adherence,fluency,convergence,ideas_quantity",
  ...extra,
];

describe("a live judge through the CLI", () => {
  it("a dry run's calls and tokens are within 10% of the real run's, and it writes nothing", async () => {
    const db = join(dir(), "dry");
    const dry = await cli([...live("--mode", "batch", "--db", db, "--dry-run", "--format", "json")]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(db)).toBe(false);
    const estimate = JSON.parse(dry.stdout).dry_run;
    const before = server.stats.calls;
    const real = await cli([...live("--mode", "batch", "--db", db, "--format", "json")]);
    expect(real.code, real.stderr).toBe(0);
    const result = JSON.parse(real.stdout);
    const calls = server.stats.calls - before;
    expect(estimate.calls).toBe(calls);
    const used = result.totals.token_usage;
    const within = (a: number, b: number) => Math.abs(a - b) / b <= 0.1;
    expect(
      within(estimate.input_tokens + estimate.output_tokens, used.input_tokens + used.output_tokens),
    ).toBe(true);
    expect(within(estimate.input_tokens, used.input_tokens)).toBe(true);
  });

  it("many calls in flight print no warning: each worker's abort listener is expected", async () => {
    const r = await cli([
      ...live("--db", "memory://", "--concurrency", "32", "--no-progress", "--format", "json"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Warning/);
    expect(JSON.parse(r.stdout).totals.calls).toBeGreaterThan(10);
  });

  it("--record writes fixtures that replay to identical scores", async () => {
    const fixtures = join(dir(), "recorded.json");
    const recorded = await cli([...live("--db", "memory://", "--record", fixtures, "--format", "json")]);
    expect(recorded.code, recorded.stderr).toBe(0);
    const file = JSON.parse(readFileSync(fixtures, "utf8"));
    expect(file.format).toBe("dramaturg.judge-fixtures/v1");
    expect(file.note).toMatch(/Recorded by dramaturg from a live run of openai-compatible:fake-model/);
    expect(JSON.stringify(file)).not.toContain("sk-test-live");
    const args = live("--db", "memory://", "--format", "json");
    args[args.indexOf("--judge") + 1] = `fixtures:${fixtures}`;
    const replayed = await cli(args);
    expect(replayed.code, replayed.stderr).toBe(0);
    const scores = (out: string) => {
      const r = JSON.parse(out);
      return [r.runs.map((x: { overall_score: number }) => x.overall_score), r.environments];
    };
    expect(scores(replayed.stdout)).toEqual(scores(recorded.stdout));
  });

  it("a rejected API key stops the run with exit 3 and never prints the key", async () => {
    process.env.WRONG_KEY = "sk-wrong-key-abcdefghijkl";
    const args = live("--db", "memory://");
    args[args.indexOf("FAKE_JUDGE_KEY")] = "WRONG_KEY";
    const r = await cli(args);
    delete process.env.WRONG_KEY;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/401/);
    expect(r.stderr + r.stdout).not.toContain("sk-wrong-key-abcdefghijkl");
  });
});

describe("the verdict cache through the CLI", () => {
  it("a second identical eval makes no judge call and prints the same scores; --no-cache calls again", async () => {
    const db = join(dir(), "cached");
    const first = await cli([...live("--db", db, "--format", "json")]);
    expect(first.code, first.stderr).toBe(0);
    const firstJson = JSON.parse(first.stdout);
    const calls = firstJson.totals.calls;
    expect(calls).toBeGreaterThan(0);

    let before = server.stats.calls;
    const second = await cli([...live("--db", db, "--format", "json")]);
    expect(second.code, second.stderr).toBe(0);
    expect(server.stats.calls - before).toBe(0);
    const secondJson = JSON.parse(second.stdout);
    expect(secondJson.runs.map((r: { dimensions: unknown }) => r.dimensions)).toEqual(
      firstJson.runs.map((r: { dimensions: unknown }) => r.dimensions),
    );
    expect(secondJson.environments).toEqual(firstJson.environments);
    expect(secondJson.totals.cache).toMatchObject({ misses: 0, saved_calls: calls });
    expect(secondJson.totals.cache.hits).toBe(firstJson.totals.verdicts);
    expect(secondJson.totals.cache.saved_tokens.input_tokens).toBeGreaterThan(0);

    // A dry run now finds everything in the cache.
    const dry = JSON.parse(
      (await cli([...live("--db", db, "--dry-run", "--format", "json")])).stdout,
    ).dry_run;
    expect(dry).toMatchObject({ requests: 0, calls: 0, input_tokens: 0 });
    expect(dry.cached.verdicts).toBe(firstJson.totals.verdicts);

    before = server.stats.calls;
    const uncached = await cli([...live("--db", db, "--no-cache", "--format", "json")]);
    expect(uncached.code, uncached.stderr).toBe(0);
    expect(server.stats.calls - before).toBe(calls);
  });

  it("--trials 2 makes two real judgements per verdict, never a cached copy", async () => {
    const db = join(dir(), "trials");
    const before = server.stats.calls;
    const r = await cli([
      ...live("--db", db, "--trials", "2", "--dimensions", "fluency", "--format", "json"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(server.stats.calls - before).toBe(json.totals.verdicts);
    expect(json.runs[0].dimensions.fluency.trials).toHaveLength(2);
  });
});

describe("stored messages", () => {
  it("import then eval --from-store with an agent, a window and a seeded sample", async () => {
    const db = join(dir(), "stored");
    const imported = await cli(["import", transcript, "--db", db]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(/imported 55 messages/);
    const args = [
      "eval",
      "--from-store",
      "--db",
      db,
      "--propositions",
      propositions,
      "--judge",
      `fixtures:${ROOT}examples/ensemble/judge-fixtures.json`,
      "--agent",
      "dov",
      "--window-start",
      "2025-03-14T00:00:00Z",
      "--sample",
      "5",
      "--seed",
      "7",
      "--dimensions",
      "adherence",
      "--format",
      "json",
    ];
    const first = JSON.parse((await cli(args)).stdout);
    const second = JSON.parse((await cli(args)).stdout);
    expect(first.runs).toHaveLength(1);
    expect(first.runs[0]).toMatchObject({ agent_id: "dov", sample_size: 5 });
    expect(first.source).toBe("store");
    // The same seed picks the same messages, so the same scores.
    expect(second.runs[0].dimensions).toEqual(first.runs[0].dimensions);
  });
});

describe("when every verdict errors", () => {
  it("says why: each distinct reason with its count and an example, on stderr and in the JSON result", async () => {
    // Every answer names claim ids nobody asked about (a provider that ignores the schema's enum).
    const wrong = await startFakeOpenAIServer({
      respond: () => ({ verdicts: [{ id: "id ge", score: 5, reasoning: "r" }] }),
    });
    try {
      const args = live("--db", "memory://", "--format", "json", "--retries", "0", "--dimensions", "fluency");
      args[args.indexOf("--judge-base-url") + 1] = wrong.url;
      const r = await cli(args);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/every verdict errored/);
      const result = JSON.parse(r.stdout);
      expect(result.totals.verdicts).toBe(0);
      const reasons = result.totals.error_reasons;
      expect(reasons.reduce((n: number, x: { count: number }) => n + x.count, 0)).toBe(result.totals.errored);
      expect(reasons[0].example).toContain("id ge");
      expect(r.stderr).toContain(`${reasons[0].count} × ${reasons[0].reason}`);
    } finally {
      await wrong.close();
    }
  });
});
