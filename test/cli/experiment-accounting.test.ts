// What an experiment run says it spent and could not measure: judge calls as a provider received them (the
// verdict cache's answers apart), errored verdicts and unjudged gate checks in the report, exit 3 when the
// judge measured nothing, and no listener warning at the default concurrency.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, modelFlags, ROOT, spawnCli } from "./run-cli.ts";

const dir = useTempDir("dramaturg-experiment-accounting-");
let agents: FakeOpenAIServer;

beforeAll(async () => {
  agents = await startFakeOpenAIServer({
    respond: () => ({
      tool_calls: [
        { name: "send_message", arguments: { channel: "tasting", text: "Smoked pear and black tea." } },
      ],
    }),
  });
});
afterAll(async () => {
  await agents.close();
});

/** The two-tasters scenario with its treatment's corrections replaced, as a file of its own. */
function scenario(treatment: string, environments = 2): string {
  const source = readFileSync(`${ROOT}test/fixtures/experiments/scenarios/two-tasters.yaml`, "utf8")
    .replace("environments: 2", `environments: ${environments}`)
    .replace(
      "folder: ../populations/hand-written",
      `folder: ${ROOT}test/fixtures/experiments/populations/hand-written`,
    )
    .replace("      repetition_suppression_enabled: true", treatment);
  const file = join(dir(), `scenario-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, source);
  return file;
}

const run = (file: string, judge: FakeOpenAIServer, db: string, ...more: string[]) =>
  cli(["experiment", "run", file, ...modelFlags({ agents: agents.url, judge: judge.url, db }), ...more]);

type Arms = Record<
  string,
  { calls: { judge: number; judge_cached: number }; errored: number; gate_unjudged: number }
>;
const armsOf = (file: string): Arms => JSON.parse(readFileSync(file, "utf8")).arms;
const sentBy = (arms: Arms) => Object.values(arms).reduce((n, a) => n + a.calls.judge, 0);

describe("an experiment's accounting", () => {
  it("judge calls are the requests the provider received, with a partly warm cache too; cache answers apart", async () => {
    const judge = await startFakeOpenAIServer();
    try {
      const db = join(dir(), "store");
      const first = join(dir(), "first.json");
      const cold = await run(
        scenario("      repetition_suppression_enabled: true"),
        judge,
        db,
        "--out",
        first,
      );
      expect(cold.code, cold.stderr).toBe(0);
      expect(sentBy(armsOf(first))).toBe(judge.stats.calls);
      // Another experiment on the same store: its control arm asks what the first one asked.
      const before = judge.stats.calls;
      const second = join(dir(), "second.json");
      const warm = await run(
        scenario("      repetition_suppression_enabled: true\n      repetition_threshold: 0.31"),
        judge,
        db,
        "--out",
        second,
      );
      expect(warm.code, warm.stderr).toBe(0);
      const arms = armsOf(second);
      expect(sentBy(arms)).toBe(judge.stats.calls - before);
      expect(arms.control!.calls.judge_cached).toBeGreaterThan(0);
    } finally {
      await judge.close();
    }
  });

  it("at the default concurrency, environments under way print no listener warning", async () => {
    const judge = await startFakeOpenAIServer();
    try {
      // A process of its own: Node prints the warning once per process, on its own stderr.
      const r = await spawnCli([
        "experiment",
        "run",
        scenario("      repetition_suppression_enabled: true", 8),
        "--model",
        "openai-compatible:agents",
        "--base-url",
        agents.url,
        "--judge",
        "openai-compatible:judge",
        "--judge-base-url",
        judge.url,
        "--db",
        "memory://",
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/MaxListenersExceededWarning|Warning/);
    } finally {
      await judge.close();
    }
  });

  it("a judge whose every answer is unusable: exit 3, and its errored verdicts and unjudged gate checks per arm in the table, JSON and Markdown", async () => {
    const judge = await startFakeOpenAIServer({ faults: () => ({ type: "malformed" }) });
    try {
      const out = join(dir(), "failed.json");
      const r = await run(scenario("      gate_adherence_enabled: true"), judge, "memory://", "--out", out);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/every judge verdict errored \(\d+\); the experiment measured nothing/);
      const arms = armsOf(out);
      expect(arms.control!.errored).toBeGreaterThan(0);
      expect(arms.treatment!.gate_unjudged).toBeGreaterThan(0);
      expect(r.stdout).toContain(
        `errored verdicts (left out of the metrics): control ${arms.control!.errored} · treatment ${arms.treatment!.errored}`,
      );
      expect(r.stdout).toContain(
        `gate checks passed unjudged (the judge failed; the gate fails open): control 0 · treatment ${arms.treatment!.gate_unjudged}`,
      );
      // The JSON and Markdown reports of the same result count them per arm too.
      const json = JSON.parse((await cli(["experiment", "report", out, "--format", "json"])).stdout);
      expect(json.experiment.control).toMatchObject({ errored: arms.control!.errored, gate_unjudged: 0 });
      expect(json.experiment.treatment).toMatchObject({
        errored: arms.treatment!.errored,
        gate_unjudged: arms.treatment!.gate_unjudged,
      });
      const markdown = (await cli(["experiment", "report", out, "--format", "markdown"])).stdout;
      expect(markdown).toContain(
        `left out of the metrics\\): control ${arms.control!.errored} · treatment ${arms.treatment!.errored}`,
      );
    } finally {
      await judge.close();
    }
  });
});
