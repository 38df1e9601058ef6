// Every output path is checked before the first model call: a path that cannot be written is bad input
// (exit 2, the flag named), found before any work is spent — not a stack trace after it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkOutputPaths } from "../../src/cli/output-paths.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO, modelFlags, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-output-paths-");
let agents: FakeOpenAIServer;
let judge: FakeOpenAIServer;

beforeAll(async () => {
  agents = await startFakeOpenAIServer({
    respond: () => ({
      tool_calls: [{ name: "send_message", arguments: { channel: "tasting", text: "Pear." } }],
    }),
  });
  judge = await startFakeOpenAIServer();
});
afterAll(async () => {
  await Promise.all([agents.close(), judge.close()]);
});

const experimentRun = (...more: string[]) => [
  "experiment",
  "run",
  `${ROOT}test/fixtures/experiments/scenarios/two-tasters.yaml`,
  ...modelFlags({ agents: agents.url, judge: judge.url, db: "memory://" }),
  ...more,
];

describe("output paths", () => {
  it("experiment run --out into a missing folder exits 2 before any model call", async () => {
    const out = join(dir(), "no-such-dir", "out.json");
    const r = await cli(experimentRun("--out", out));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--out: cannot write ${out}: the folder`);
    expect(r.stderr).toContain("does not exist");
    expect(agents.stats.calls + judge.stats.calls).toBe(0);
  });

  it("experiment run --svg naming a folder exits 2 before any model call", async () => {
    const r = await cli(experimentRun("--svg", dir()));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--svg: .* is a folder; expected a file to write/);
    expect(agents.stats.calls + judge.stats.calls).toBe(0);
  });

  it("eval --out and --record into a missing folder exit 2 and write nothing", async () => {
    for (const flag of ["--out", "--record"]) {
      const r = await cli(["eval", ...DEMO, "--db", "memory://", flag, join(dir(), "missing", "x.json")]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${flag}: cannot write`);
    }
  });

  it("record --out into a missing folder exits 2 before any judge call", async () => {
    const before = judge.stats.calls;
    const out = join(dir(), "missing", "fixtures.json");
    const r = await cli([
      "record",
      `${ROOT}examples/ensemble/transcript.json`,
      "--propositions",
      `${ROOT}examples/ensemble/propositions`,
      "--judge",
      "openai-compatible:judge",
      "--judge-base-url",
      judge.url,
      "--db",
      "memory://",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--out: cannot write ${out}: the folder`);
    expect(judge.stats.calls).toBe(before);
  });

  it("a folder flag may name a folder to create, but not a file, nor a place under a file", () => {
    const file = join(dir(), "a-file");
    writeFileSync(file, "");
    expect(() => checkOutputPaths({}, { "--out": join(dir(), "new", "deeper") })).not.toThrow();
    expect(() => checkOutputPaths({}, { "--out": file })).toThrow(/--out: .* is a file; expected a folder/);
    expect(() => checkOutputPaths({}, { "--out": join(file, "below") })).toThrow(/is a file, not a folder/);
    expect(() => checkOutputPaths({ "--out": undefined, "--svg": "-" })).not.toThrow();
  });
});
