// `dramaturg doctor` against the fake OpenAI server: a checklist with what to fix, and the exit code that
// says what kind of problem it is (2 bad project file or missing key, 3 judge or store unreachable).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { tempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

let server: FakeOpenAIServer | undefined;
const saved = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, DOCTOR_TEST_KEY: process.env.DOCTOR_TEST_KEY };
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

function project(yaml: string): string {
  const dir = tempDir("dramaturg-doctor-");
  writeFileSync(join(dir, "dramaturg.yaml"), yaml);
  return dir;
}

describe("dramaturg doctor", () => {
  it("a working project passes every check and exits 0", async () => {
    server = await startFakeOpenAIServer();
    const dir = project(`judge:\n  model: openai:fake-model\n  base_url: ${server.url}\n`);
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✓ project file/);
    expect(r.stdout).toMatch(/✓ store .*does not exist yet/);
    expect(r.stdout).toMatch(
      /✓ judge .*openai:fake-model .* answered in \d+ ms and honoured the JSON schema/,
    );
    expect(r.stdout).toMatch(/all checks passed/);
    expect(server.stats.calls).toBe(1);
  });

  it("an existing store is opened without migrating and reported current", async () => {
    const dir = project(`judge:\n  model: fixtures:${ROOT}examples/ensemble/judge-fixtures.json\n`);
    expect((await cli(["cache", "clear"], { cwd: dir })).code).toBe(0);
    await cli(["import", `${ROOT}examples/ensemble/transcript.json`], { cwd: dir });
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.stdout).toMatch(/✓ store .*pglite.*schema current \(version \d+\)/);
  });

  it("memory:// is reported as a store in memory, with no database", async () => {
    const dir = project(
      `db: memory://\njudge:\n  model: fixtures:${ROOT}examples/ensemble/judge-fixtures.json\n`,
    );
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✓ store .*memory:\/\/ \(memory, opened in \d+ ms\).*no database/);
  });

  it("a fixtures judge is checked by loading the file and counting its verdicts", async () => {
    const dir = project(`judge:\n  model: fixtures:${ROOT}examples/ensemble/judge-fixtures.json\n`);
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✓ judge +fixtures .*judge-fixtures\.json: 148 verdicts/);
  });

  it("a rejected key fails with exit 3, a plain-words fix and the key redacted", async () => {
    server = await startFakeOpenAIServer({ requireApiKey: "sk-the-right-key-000000" });
    process.env.DOCTOR_TEST_KEY = "sk-wrong-key-1234567890";
    const dir = project(
      `judge:\n  model: openai:fake-model\n  base_url: ${server.url}\n  api_key_env: DOCTOR_TEST_KEY\n`,
    );
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/✗ judge .*rejected the credentials \(HTTP 401\)/);
    expect(r.stdout).toMatch(/→ the key was rejected: export DOCTOR_TEST_KEY=…/);
    expect(r.stdout + r.stderr).not.toContain("sk-wrong-key-1234567890");
  });

  it("a missing API key says which variable to export and exits 2", async () => {
    delete process.env.OPENAI_API_KEY;
    const dir = project("judge:\n  model: openai:fake-model-b\n");
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/✗ judge .*needs an API key/);
    expect(r.stdout).toMatch(/→ export OPENAI_API_KEY=…/);
  });

  it("a judge server that is down fails with exit 3", async () => {
    server = await startFakeOpenAIServer();
    const url = server.url;
    await server.close();
    server = undefined;
    const dir = project(`judge:\n  model: openai:fake-model\n  base_url: ${url}\n  retries: 0\n`);
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/✗ judge/);
    expect(r.stdout).toMatch(/→ check that the server is running/);
  });

  it("a model that ignores the JSON schema fails with exit 3 and says so", async () => {
    server = await startFakeOpenAIServer({ respond: () => "Sure! Ready." });
    const dir = project(`judge:\n  model: openai:fake-model\n  base_url: ${server.url}\n`);
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/malformed/);
    expect(r.stdout).toMatch(/→ this model does not follow JSON schemas/);
  });

  it("a bad project file fails with exit 2, naming the line, and skips the other checks", async () => {
    const dir = project("judge:\n  modle: openai:fake-model-b\n");
    const r = await cli(["doctor"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/✗ project file .*dramaturg\.yaml:2:3: unknown key "modle"/);
    expect(r.stdout).toMatch(/– store +not checked/);
  });

  it("an unreachable PostgreSQL store fails with exit 3 without showing its password", async () => {
    const dir = project(`judge:\n  model: fixtures:${ROOT}examples/ensemble/judge-fixtures.json\n`);
    const r = await cli(["doctor", "--db", "postgres://ci:pa55word@127.0.0.1:1/dramaturg"], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/✗ store/);
    expect(r.stdout).not.toContain("pa55word");
  });
});
