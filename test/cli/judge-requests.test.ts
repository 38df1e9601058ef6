// One definition of a judge request in every table and document: a request sent to a provider. The verdict
// cache's answers are counted apart, and a fixture judge's lookups are none — in a run as in its dry run.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-judge-requests-");
let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server.close();
});

const live = (dimensions: string, ...extra: string[]) => [
  "eval",
  `${ROOT}examples/ensemble/transcript.json`,
  "--propositions",
  `${ROOT}examples/ensemble/propositions`,
  "--judge",
  "openai-compatible:fake-model",
  "--judge-base-url",
  server.url,
  "--agents",
  "dov,ines",
  "--dimensions",
  dimensions,
  "--format",
  "json",
  ...extra,
];

describe("judge requests", () => {
  it("with a partly warm cache, a run's requests are those its dry run foresaw and its calls those the provider received", async () => {
    const db = join(dir(), "store");
    expect((await cli(live("fluency", "--db", db))).code).toBe(0);
    const dry = JSON.parse((await cli(live("adherence,fluency", "--db", db, "--dry-run"))).stdout).dry_run;
    const before = server.stats.calls;
    const warm = await cli(live("adherence,fluency", "--db", db));
    expect(warm.code, warm.stderr).toBe(0);
    const { totals } = JSON.parse(warm.stdout);
    expect(totals.calls).toBe(server.stats.calls - before);
    expect(totals.requests).toBe(dry.requests);
    expect(totals.requests).toBeGreaterThan(0);
    // The cache's answers are apart: served, not sent.
    expect(totals.cache.served_requests).toBe(dry.cached.requests);
    expect(totals.cache.served_requests).toBeGreaterThan(0);
  });

  it("a fixture judge sends none: the run, its dry run and each of its dimensions say 0", async () => {
    const run = await cli(["eval", ...DEMO, "--db", "memory://", "--format", "json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).totals).toMatchObject({ requests: 0, calls: 0 });
    const table = await cli(["eval", ...DEMO, "--db", "memory://"]);
    expect(table.stdout).toMatch(/ · 0 judge requests · /);
    const dry = await cli(["eval", ...DEMO, "--db", "memory://", "--dry-run", "--format", "json"]);
    const report = JSON.parse(dry.stdout).dry_run;
    expect(report.requests).toBe(0);
    expect(Object.values(report.by_dimension).map((d) => (d as { requests: number }).requests)).toEqual(
      Object.keys(report.by_dimension).map(() => 0),
    );
  });
});
