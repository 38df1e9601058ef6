// The agents' model's server has one name in every command's help, --model-base-url (as --judge-base-url is the
// judge's); simulate's and experiment's old --base-url and --api-key-env still work, hidden.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { cli, ROOT } from "./run-cli.ts";

const WORLD = `${ROOT}test/fixtures/worlds/harbour.yml`;
const VERDICTS = `fixtures:${ROOT}test/fixtures/worlds/harbour-verdicts.json`;
let agents: FakeOpenAIServer;

beforeAll(async () => {
  agents = await startFakeOpenAIServer({
    respond: () => ({
      tool_calls: [{ name: "send_message", arguments: { channel: "harbour", text: "Before sunset, then." } }],
    }),
  });
});
afterAll(async () => {
  await agents.close();
});

function simulate(...serverFlags: string[]) {
  return cli([
    "simulate",
    WORLD,
    "--model",
    "openai-compatible:agents",
    ...serverFlags,
    "--judge",
    VERDICTS,
    "--steps",
    "1",
    "--db",
    "memory://",
  ]);
}

describe("the base URL of a model's server", () => {
  it("every command's help names it --<role>-base-url (judge, model, user, attacker), never another way", async () => {
    const { buildProgram } = await import("../../src/cli/program.ts");
    const program = await buildProgram();
    const leaves = program.commands.flatMap((c) => (c.commands.length ? c.commands : [c]));
    const names = new Set<string>();
    for (const command of leaves) {
      const name =
        command.parent === program ? command.name() : `${command.parent!.name()} ${command.name()}`;
      const { stdout } = await cli([...name.split(" "), "--help"]);
      // --target-url (converse) is the agent under test, as the job's target.url, not a model's server.
      for (const flag of stdout.match(/--[a-z-]*base-url\b/g) ?? []) names.add(flag);
      expect(stdout, name).not.toMatch(/(^|\s)--(base-url|api-key-env)\b/);
    }
    expect([...names].sort()).toEqual([
      "--attacker-base-url",
      "--judge-base-url",
      "--model-base-url",
      "--user-base-url",
    ]);
  });

  it("simulate reaches the agents' model at --model-base-url", async () => {
    const before = agents.stats.calls;
    const r = await simulate("--model-base-url", agents.url);
    expect(r.stderr).toMatch(/simulated 1 steps?: /);
    expect(r.code).toBe(0);
    expect(agents.stats.calls).toBeGreaterThan(before);
  });

  it("simulate still takes the old name --base-url, hidden from help, for the same server", async () => {
    const before = agents.stats.calls;
    const r = await simulate("--base-url", agents.url);
    expect(r.code).toBe(0);
    expect(agents.stats.calls).toBeGreaterThan(before);
  });

  it("the old --api-key-env names the agents' key variable as --model-api-key-env does", async () => {
    const r = await cli([
      "simulate",
      WORLD,
      "--model",
      "openai:gpt-4o-mini",
      "--api-key-env",
      "DRAMATURG_TEST_NO_SUCH_KEY",
      "--judge",
      VERDICTS,
      "--db",
      "memory://",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/DRAMATURG_TEST_NO_SUCH_KEY/);
  });
});
