import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { tempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(() => server.close());

const scope = [
  `${ROOT}examples/ensemble/transcript.json`,
  "--propositions",
  `${ROOT}examples/ensemble/propositions`,
  "--agents",
  "priya",
  "--dimensions",
  "fluency",
  "--db",
  "memory://",
];

describe("dramaturg record", () => {
  it("records a live judge's verdicts, replays them to identical scores and prints the CI commands", async () => {
    const out = join(tempDir("dramaturg-record-"), "judge.json");
    const r = await cli([
      "record",
      ...scope,
      "--judge",
      "openai-compatible:fake-model",
      "--judge-base-url",
      server.url,
      "--out",
      out,
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).format).toBe("dramaturg.judge-fixtures/v1");
    expect(r.stdout).toMatch(/recorded \d+ verdicts of openai-compatible:fake-model/);
    expect(r.stdout).toMatch(/replayed with the fixture judge: identical scores \(1 agents/);
    expect(r.stdout).toMatch(/dramaturg baseline .*transcript\.json .*--agents priya .*--judge fixtures:/);
    expect(r.stdout).toMatch(/dramaturg ci .*--judge fixtures:/);
    expect(server.stats.calls).toBeGreaterThan(0);
  });

  it("refuses a fixture judge with exit 2: there is nothing live to record", async () => {
    const out = join(tempDir("dramaturg-record-"), "judge.json");
    const r = await cli([
      "record",
      ...scope,
      "--judge",
      `fixtures:${ROOT}examples/ensemble/judge-fixtures.json`,
      "--out",
      out,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--judge: record needs a live judge/);
    expect(existsSync(out)).toBe(false);
  });

  it("its help explains record once live, replay in CI", async () => {
    const r = await cli(["record", "--help"]);
    expect(r.stdout).toMatch(/record once live, replay in CI/i);
  });
});
