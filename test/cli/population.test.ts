// `dramaturg population generate` and `check` as a user runs them: the model behind the fake OpenAI-compatible
// server (scripted answers per stage) through the real provider client, a cassette recorded and replayed with
// no model, and bad input stopped with exit code 2 before any call or file.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, messageText, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { scriptedPopulationAnswer } from "../experiments/scripted-population-model.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-population-");
const POPULATIONS = `${ROOT}test/fixtures/experiments/populations/`;
let server: FakeOpenAIServer;

beforeAll(async () => {
  server = await startFakeOpenAIServer({
    respond: (request) => {
      const user = request.messages
        .filter((m) => m.role === "user")
        .map(messageText)
        .join("\n");
      return scriptedPopulationAnswer(request.response_format?.json_schema?.name, user);
    },
  });
});
afterAll(async () => {
  await server.close();
});

function folderBytes(folder: string): Record<string, string> {
  return Object.fromEntries(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f), "utf8")]));
}

const model = () => ["--model", "openai-compatible:people", "--model-base-url", server.url];

describe("dramaturg population generate", () => {
  it("generates through the provider, records, and replays the same folder byte for byte with no model", async () => {
    const recorded = join(dir(), "recorded");
    const cassette = join(dir(), "compass.cassette.json");
    const before = server.stats.calls;
    const first = await cli([
      "population",
      "generate",
      "political-compass",
      "--size",
      "6",
      "--seed",
      "42",
      "--out",
      recorded,
      ...model(),
      "--concurrency",
      "3",
      "--record",
      cassette,
    ]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(server.stats.calls - before).toBe(1 + 4 + 6);
    expect(server.stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(first.stdout).toMatch(
      /^wrote 6 people to .*recorded \(profile political-compass, seed 42, model openai-compatible:people\)\n/,
    );
    expect(first.stdout).toMatch(
      /left-libertarian: 2 people from 3 directives \(the model proposed 12; fitted to 2\)/,
    );
    expect(first.stdout).toMatch(/11 model calls/);

    const replayed = join(dir(), "replayed");
    const calls = server.stats.calls;
    const again = await cli([
      "population",
      "generate",
      "political-compass",
      "--size",
      "6",
      "--seed",
      "42",
      "--out",
      replayed,
      "--replay",
      cassette,
    ]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/replayed 11 answers from .*compass\.cassette\.json: no model called/);
    expect(server.stats.calls).toBe(calls);
    expect(folderBytes(replayed)).toEqual(folderBytes(recorded));
    expect(readFileSync(join(recorded, "_population.yaml"), "utf8")).toMatch(
      /model:\n {2}provider: openai-compatible\n {2}model: people\n {2}base_url: http:\/\/127\.0\.0\.1:\d+\/v1\n/,
    );

    const check = await cli(["population", "check", replayed]);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/: 6 people \(manifest political-compass, seed 42\)\n/);
  });

  it("a replay with another seed cannot complete: exit 3, nothing written", async () => {
    const cassette = join(dir(), "small.cassette.json");
    const out = join(dir(), "small");
    const args = ["population", "generate", "average-customers", "--size", "3"];
    expect((await cli([...args, "--seed", "1", "--out", out, ...model(), "--record", cassette])).code).toBe(
      0,
    );
    const other = join(dir(), "other-seed");
    const result = await cli([...args, "--seed", "2", "--out", other, "--replay", cassette]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/no recorded answer in .*small\.cassette\.json for the population call/);
    expect(existsSync(other)).toBe(false);
  });

  it("a bad profile file exits 2 naming the file, line and field, before any call or file", async () => {
    const out = join(dir(), "never");
    const calls = server.stats.calls;
    const file = `${POPULATIONS}profiles/bad-share.profile.yaml`;
    const result = await cli(["population", "generate", file, "--size", "4", "--out", out, ...model()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`dramaturg: ${file}:6:12: share: expected a number of 1 or more, got 0\n`);
    expect(server.stats.calls).toBe(calls);
    expect(existsSync(out)).toBe(false);
  });

  it("refuses a folder that is not empty, a replay with a model, and a missing size, with exit 2", async () => {
    const full = join(dir(), "full");
    mkdirSync(full);
    writeFileSync(join(full, "mine.txt"), "keep");
    const calls = server.stats.calls;
    const refused = await cli([
      "population",
      "generate",
      "average-customers",
      "--size",
      "2",
      "--out",
      full,
      ...model(),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/full: is not empty; expected a new or empty folder/);
    expect(readdirSync(full)).toEqual(["mine.txt"]);
    const both = await cli([
      "population",
      "generate",
      "average-customers",
      "--size",
      "2",
      "--out",
      join(dir(), "x"),
      "--replay",
      "c.json",
      ...model(),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--replay answers every call from the cassette: leave out --model/);
    const sizeless = await cli([
      "population",
      "generate",
      "average-customers",
      "--out",
      join(dir(), "y"),
      ...model(),
    ]);
    expect(sizeless.code).toBe(2);
    expect(sizeless.stderr).toMatch(/--size is required/);
    expect(server.stats.calls).toBe(calls);
  });
});

describe("dramaturg population check", () => {
  it("lists a hand-written folder's people", async () => {
    const result = await cli(["population", "check", `${POPULATIONS}hand-written`]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /hand-written: 3 people \(no manifest\)\n {2}ines-alvarez {2}Inés Álvarez\n/,
    );
  });

  it("a bad population folder exits 2 naming the file, line and field", async () => {
    const result = await cli(["population", "check", `${POPULATIONS}bad-person`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad-person\/tomas-berg\.yaml:5:3: unknown key "varietty"/);
  });
});
