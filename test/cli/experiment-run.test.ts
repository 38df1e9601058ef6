// `dramaturg experiment run` as a user runs it: persona agents and the judge behind two fake OpenAI-compatible
// servers (scripted send_message calls; the default responder answers the judge's schemas), no network.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, killAfterCalls, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { BIN, cli, modelFlags, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-experiment-run-");
const SCENARIO = `${ROOT}test/fixtures/experiments/scenarios/two-tasters.yaml`;
let agents: FakeOpenAIServer;
let judge: FakeOpenAIServer;

beforeAll(async () => {
  agents = await startFakeOpenAIServer({
    // Slow enough that a kill lands part way through an environment run.
    latencyMs: 15,
    respond: () => ({
      tool_calls: [
        {
          name: "send_message",
          arguments: { channel: "tasting", text: "Smoked pear and black tea, for the night shift." },
        },
      ],
    }),
  });
  judge = await startFakeOpenAIServer({});
});
afterAll(async () => {
  await Promise.all([agents.close(), judge.close()]);
});

const runArgs = (db: string, ...more: string[]) => [
  "experiment",
  "run",
  SCENARIO,
  ...modelFlags({ agents: agents.url, judge: judge.url, db }),
  ...more,
];

describe("dramaturg experiment run", () => {
  it("runs both arms of every environment, writes the result document and prints the Table 1 layout", async () => {
    const out = join(dir(), "result.json");
    const svg = join(dir(), "result.svg");
    const { code, stdout, stderr } = await cli(runArgs("memory://", "--out", out, "--svg", svg));
    expect(stderr).toMatch(/4 environment runs/);
    expect(code).toBe(0);
    const document = JSON.parse(readFileSync(out, "utf8"));
    expect(document.format).toBe("dramaturg.experiment-result/v1");
    // Two people in each of two environments: one adherence value per agent and environment, per arm.
    expect(document.arms.control.metrics.adherence).toHaveLength(4);
    expect(document.arms.treatment.metrics.adherence).toHaveLength(4);
    expect(document.arms.control.metrics.ideas_quantity).toHaveLength(2);
    expect(stdout).toMatch(/adherence/);
    expect(stdout).toMatch(/ideas_quantity/);
    expect(readFileSync(svg, "utf8")).toMatch(/^<svg /);
    expect(agents.stats.calls).toBeGreaterThan(0);
  });

  it("a rerun on the same store reuses every finished environment: no agent is called again", async () => {
    const db = join(dir(), "store");
    const first = await cli(runArgs(db, "--format", "json"));
    expect(first.code).toBe(0);
    const calls = agents.stats.calls;
    const again = await cli(runArgs(db, "--format", "json"));
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/4 environment runs, 4 finished already/);
    expect(agents.stats.calls).toBe(calls);
    expect(JSON.parse(again.stdout)).toEqual(JSON.parse(first.stdout));
  });

  it("killed (SIGKILL) part way and run again, it runs only what had not finished and prints what an uninterrupted run prints", async () => {
    // One environment run at a time (concurrency 2 over groups of 2), so that some finish before the kill.
    const args = (db: string, out: string) =>
      runArgs(db, "--concurrency", "2", "--out", out, "--format", "json");
    const before = agents.stats.calls;
    const whole = await cli(args("memory://", join(dir(), "whole.json")));
    expect(whole.code).toBe(0);
    const total = agents.stats.calls - before;
    const db = join(dir(), "killed-store");
    const killed = await killAfterCalls([process.execPath, BIN, ...args(db, join(dir(), "never.json"))], {
      server: agents,
      calls: Math.ceil(total * 0.6),
      cwd: ROOT,
    });
    expect(killed.killed).toBe(true);
    const atRerun = agents.stats.calls;
    const resumed = await cli(args(db, join(dir(), "resumed.json")));
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/4 environment runs, [1-3] finished already/);
    // Finished environment runs are not played again: fewer agent calls than a whole run.
    expect(agents.stats.calls - atRerun).toBeLessThan(total);
    expect(readFileSync(join(dir(), "resumed.json"), "utf8")).toBe(
      readFileSync(join(dir(), "whole.json"), "utf8"),
    );
    expect(resumed.stdout).toBe(whole.stdout);
  });

  it("judges with the project file's judge.concurrency in flight when --concurrency is not given", async () => {
    const slowJudge = await startFakeOpenAIServer({ latencyMs: 30 });
    try {
      const config = join(dir(), "concurrency.yaml");
      writeFileSync(config, "judge:\n  concurrency: 2\n");
      const args = runArgs("memory://", "--config", config, "--format", "json");
      args[args.indexOf("--judge-base-url") + 1] = slowJudge.url;
      const r = await cli(args);
      expect(r.code, r.stderr).toBe(0);
      expect(slowJudge.stats.calls).toBeGreaterThan(8);
      expect(slowJudge.stats.maxInFlight).toBeLessThanOrEqual(2);
    } finally {
      await slowJudge.close();
    }
  });

  it("refuses a bad scale before any model is called", async () => {
    const calls = agents.stats.calls;
    const { code, stderr } = await cli(runArgs("memory://", "--scale", "2"));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--scale: expected a number above 0 and at most 1, got "2"/);
    expect(agents.stats.calls).toBe(calls);
  });

  it("--dry-run calls no server and writes nothing; its counts bound a real run's calls, and equal them without a gate", async () => {
    const db = join(dir(), "dry-store");
    const out = join(dir(), "dry.json");
    const before = { agents: agents.stats.calls, judge: judge.stats.calls };
    const dry = await cli(runArgs(db, "--dry-run", "--format", "json", "--out", out));
    expect(dry.code).toBe(0);
    expect(agents.stats.calls).toBe(before.agents);
    expect(judge.stats.calls).toBe(before.judge);
    expect(existsSync(db)).toBe(false);
    expect(existsSync(out)).toBe(false);
    const price = JSON.parse(dry.stdout).dry_run;
    expect(price.scenario).toMatchObject({ id: "two-tasters", environments: 2, agents: 2 });

    const real = await cli(runArgs("memory://", "--out", out, "--format", "json"));
    expect(real.code).toBe(0);
    const document = JSON.parse(readFileSync(out, "utf8"));
    for (const arm of ["control", "treatment"] as const) {
      // Neither arm has a gate (the treatment suppresses repetition, which calls no model): counts are exact.
      expect(price.arms[arm].upper_bound).toBe(false);
      expect(price.arms[arm].agent.calls).toBe(document.arms[arm].calls.agent);
      expect(price.arms[arm].judge.calls).toBe(document.arms[arm].calls.judge);
    }
    // ... and they are the calls the servers received.
    expect(agents.stats.calls - before.agents).toBe(price.total.agent.calls);
    expect(judge.stats.calls - before.judge).toBe(price.total.judge.calls);
  });

  it("--dry-run prints the prices per arm as a table, with no cost for a model it has no price for", async () => {
    const { code, stdout } = await cli(runArgs(join(dir(), "never"), "--dry-run"));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Dry run · experiment two-tasters at scale 1 · nothing was called or written$/m);
    expect(stdout).toMatch(/^control \(Control\)$/m);
    expect(stdout).toMatch(/^ {2}agents\s+10\s/m);
    expect(stdout).toMatch(/^ {4}persona dimensions\s/m);
    expect(stdout).toMatch(/^estimated cost: unknown$/m);
    expect(stdout).toMatch(/no price for openai-compatible:agents: add one under prices: in dramaturg\.yaml/);
  });

  it("with the action gate on, the dry run counts no fewer calls than a run makes, and exactly the control arm's", async () => {
    const scenario = join(dir(), "gated.yaml");
    writeFileSync(
      scenario,
      readFileSync(SCENARIO, "utf8")
        .replace(
          "folder: ../populations/hand-written",
          `folder: ${ROOT}test/fixtures/experiments/populations/hand-written`,
        )
        .replace(
          "repetition_suppression_enabled: true",
          "{ gate_adherence_enabled: true, gate_adherence_threshold: 5, max_correction_attempts: 2 }",
        ),
    );
    const args = (...more: string[]) => {
      const list = runArgs("memory://", ...more);
      list[2] = scenario;
      return list;
    };
    const dry = await cli(args("--dry-run", "--format", "json"));
    expect(dry.code).toBe(0);
    const price = JSON.parse(dry.stdout).dry_run;
    expect(price.arms.treatment.upper_bound).toBe(true);
    const out = join(dir(), "gated.json");
    const real = await cli(args("--out", out, "--format", "json"));
    expect(real.code).toBe(0);
    const document = JSON.parse(readFileSync(out, "utf8"));
    expect(document.environments[0].arms.treatment.gate.checks).toBeGreaterThan(0);
    expect(price.arms.control.agent.calls).toBe(document.arms.control.calls.agent);
    expect(price.arms.control.judge.calls).toBe(document.arms.control.calls.judge);
    expect(price.arms.treatment.agent.calls).toBeGreaterThanOrEqual(document.arms.treatment.calls.agent);
    expect(price.arms.treatment.judge.calls).toBeGreaterThanOrEqual(document.arms.treatment.calls.judge);
    expect(price.arms.treatment.judge.parts.gate.calls).toBeGreaterThan(0);
  });
});
