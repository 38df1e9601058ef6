// `dramaturg experiment report` and `experiment table1` as a user runs them: an experiment's result in the
// Table 1 layout (table, Markdown, JSON) with its SVG chart, and TinyTroupe's June-2025 results held against
// the published Table 1; bad input exits 2 naming the file, and writes nothing.
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadExperimentResult } from "../../src/experiments/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { tempDir, useTempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

const JUNE = `${ROOT}test/fixtures/experiments/tinytroupe-june-2025`;
const DEBATE = `${JUNE}/debating_quantitative_experimentation_1c.json`;
const RESULT = `${ROOT}test/fixtures/experiments/hand-made-result.json`;

describe("dramaturg experiment report", () => {
  it("prints the report as JSON: the comparison document's fields, then the experiment's", async () => {
    const { code, stdout, stderr } = await cli([
      "experiment",
      "report",
      RESULT,
      "--treatment",
      "gate",
      "--format",
      "json",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(Object.keys(report)).toEqual(["format", "comparisons", "experiment"]);
    expect(report.format).toBe("dramaturg.experiment-comparison/v1");
    expect(report.comparisons.map((c: { metric: string; delta: number }) => [c.metric, c.delta])).toEqual([
      ["adherence", 2],
      ["ideas_quantity", -0.25],
    ]);
    expect(report.experiment).toMatchObject({
      scenario: "hand-made",
      control: { name: "control", label: null },
      treatment: { name: "gate", label: null },
      alpha: 0.05,
    });
  });

  it("prints the Table 1 layout and writes the chart with --svg", async () => {
    const svg = join(tempDir(), "chart.svg");
    const { code, stdout } = await cli(["experiment", "report", DEBATE, "--svg", svg]);
    expect(code).toBe(0);
    expect(stdout.split("\n").slice(0, 3)).toEqual([
      "experiment · debating_quantitative_experimentation_1c.json",
      "",
      `treatment "Treatment" vs control "Control" (${DEBATE})`,
    ]);
    expect(stdout).toMatch(/^Hard Persona Adherence\s+6\.16±1\.59 \(120\)\s+6\.63±1\.34 \(120\)\s+\+0\.47/m);
    const chart = readFileSync(svg, "utf8");
    expect(chart).toMatch(
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>\n<title>experiment · debating_quantitative_experimentation_1c\.json<\/title>/,
    );
    expect(chart.match(/<circle /g)).toHaveLength(2 + 120 * 6 + 24 * 6);
    expect(chart.trimEnd().endsWith("</svg>")).toBe(true);
  });

  it("prints Markdown", async () => {
    const { code, stdout } = await cli([
      "experiment",
      "report",
      RESULT,
      "--treatment",
      "variety",
      "--format",
      "markdown",
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^### experiment hand-made\n\n\*\*treatment "variety" vs control "control"/);
    expect(stdout).toMatch(/^\| ideas_quantity \| 3\.75±0\.96 \(4\) \| 6\.75±0\.96 \(4\) \| \+3\.00 \|/m);
  });

  it("exits 2 naming the file and the JSON path of a bad value, and writes no chart", async () => {
    const dir = tempDir();
    const file = join(dir, "result.json");
    const svg = join(dir, "chart.svg");
    writeFileSync(file, JSON.stringify({ format: "dramaturg.experiment-result/v1", arms: { control: {} } }));
    const { code, stdout, stderr } = await cli(["experiment", "report", file, "--svg", svg]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(new RegExp(`^dramaturg: ${file}:arms\\.control\\.metrics: `));
    expect(existsSync(svg)).toBe(false);
  });

  it("exits 2 naming the chart file it cannot write, and prints nothing", async () => {
    const svg = join(tempDir(), "no-such-folder", "chart.svg");
    const { code, stdout, stderr } = await cli(["experiment", "report", DEBATE, "--svg", svg]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `dramaturg: --svg: cannot write ${svg}: the folder ${dirname(svg)} does not exist (create it first)\n`,
    );
  });
});

describe("dramaturg experiment table1", () => {
  it("agrees with the June-2025 set on every cell for TinyTroupe's June results folder, and exits 0", async () => {
    const { code, stdout, stderr } = await cli(["experiment", "table1", "--results", JUNE]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Table 1 reproduction: ours against TinyTroupe's published results$/m);
    for (const id of [
      "brainstorming-average",
      "brainstorming-difficult-full",
      "brainstorming-difficult-variety",
      "debate-controversial",
    ])
      expect(stdout).toMatch(new RegExp(`^${id} — `, "m"));
    expect(stdout).toMatch(/^June 2025, gpt-4o-mini: 24 of 24 cells agree, 0 disagree$/m);
  });

  it("prints the cells as JSON, and takes files as EXPERIMENT=FILE", async () => {
    const copy = join(tempDir(), "debate.json");
    copyFileSync(DEBATE, copy);
    const { code, stdout } = await cli([
      "experiment",
      "table1",
      "--results",
      `debate-controversial=${copy}`,
      "--format",
      "json",
    ]);
    expect(code).toBe(0);
    const comparison = JSON.parse(stdout);
    expect(comparison.format).toBe("dramaturg.table1-comparison/v1");
    expect(comparison.experiments).toEqual([
      {
        id: "debate-controversial",
        name: "Debate: controversial motions, political compass",
        treatment: "action correction only",
        source: copy,
      },
    ]);
    expect(comparison.cells).toHaveLength(6);
    expect(comparison.summary["june-2025"]).toEqual({ agree: 6, disagree: 0, not_compared: 0 });
  });

  it("exits 0 when cells disagree: the comparison is information", async () => {
    const document = JSON.parse(readFileSync(DEBATE, "utf8"));
    const { Control, Treatment } = document.experiments;
    [Control.results.Fluency, Treatment.results.Fluency] = [
      Treatment.results.Fluency,
      Control.results.Fluency,
    ];
    const file = join(tempDir(), "debating_quantitative_experimentation_1c.json");
    writeFileSync(file, JSON.stringify(document));
    const { code, stdout } = await cli(["experiment", "table1", "--results", file, "--format", "markdown"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^\| fluency \| Fluency \| \+0\.11 \| 0\.454 \| \+ n\.s\. \| -0\.11 \| − n\.s\. \| disagree \|/m,
    );
    expect(stdout).toMatch(/^- June 2025, gpt-4o-mini: 5 of 6 cells agree, 1 disagree$/m);
  });

  it("exits 2 naming a file it cannot place in Table 1", async () => {
    const file = join(tempDir(), "results.json");
    copyFileSync(DEBATE, file);
    const { code, stdout, stderr } = await cli(["experiment", "table1", "--results", file]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(new RegExp(`^dramaturg: ${file}: cannot tell which Table 1 experiment`));
  });

  it("exits 2 for a folder without results files, and without --results", async () => {
    const empty = tempDir();
    const none = await cli(["experiment", "table1", "--results", empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`dramaturg: ${empty}: no results files (*.json) in this folder\n`);
    const missing = await cli(["experiment", "table1"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--results/);
  });
});

describe("dramaturg experiment report ID", () => {
  // A stored experiment to read back: the two tasters against fake agent and judge servers, kept in a folder store.
  const dir = useTempDir("dramaturg-experiment-report-");
  let agents: FakeOpenAIServer;
  let judge: FakeOpenAIServer;
  let db: string;
  let out: string;
  let id: string;
  beforeAll(async () => {
    agents = await startFakeOpenAIServer({
      respond: () => ({
        tool_calls: [
          { name: "send_message", arguments: { channel: "tasting", text: "Smoked pear, for night owls." } },
        ],
      }),
    });
    judge = await startFakeOpenAIServer({});
    db = join(dir(), "store");
    out = join(dir(), "result.json");
    const run = await cli([
      "experiment",
      "run",
      `${ROOT}test/fixtures/experiments/scenarios/two-tasters.yaml`,
      "--model",
      "openai-compatible:agents",
      "--base-url",
      agents.url,
      "--judge",
      "openai-compatible:judge",
      "--judge-base-url",
      judge.url,
      "--db",
      db,
      "--out",
      out,
    ]);
    expect(run.code).toBe(0);
    id = /^experiment ([0-9a-f]{8}): /m.exec(run.stderr)![1]!;
  });
  afterAll(async () => {
    await Promise.all([agents.close(), judge.close()]);
  });

  it("reads the stored document back byte for byte as run --out wrote it, by the id's first 8 characters", async () => {
    const stored = await loadExperimentResult({ store: db, id });
    expect(stored.evaluation_id.startsWith(id)).toBe(true);
    expect(`${JSON.stringify(stored.document, null, 2)}\n`).toBe(readFileSync(out, "utf8"));
    const whole = await loadExperimentResult({ store: db, id: stored.evaluation_id });
    expect(whole.document).toEqual(stored.document);
  });

  it("prints the same report for the id as for the file run --out wrote", async () => {
    const svg = join(tempDir(), "chart.svg");
    const byId = await cli(["experiment", "report", id, "--db", db, "--format", "json", "--svg", svg]);
    expect(byId.stderr).toBe("");
    expect(byId.code).toBe(0);
    const byFile = await cli(["experiment", "report", out, "--format", "json"]);
    expect(byFile.code).toBe(0);
    const fromId = JSON.parse(byId.stdout);
    const fromFile = JSON.parse(byFile.stdout);
    // Only where the document came from differs.
    expect(fromId.experiment.source).toBeNull();
    expect(fromFile.experiment.source).toBe(out);
    expect({ ...fromId, experiment: { ...fromId.experiment, source: out } }).toEqual(fromFile);
    expect(fromId.experiment.scenario).toBe("two-tasters");
    expect(readFileSync(svg, "utf8")).toMatch(/^<svg /);
    const table = await cli(["experiment", "report", id, "--db", db]);
    expect(table.stdout).toMatch(/^experiment two-tasters: Two tasters name a blend · scale 1 · seed 0$/m);
  });

  it("exits 2 for an id the store does not have, and for a store that is not there", async () => {
    const unknown = await cli(["experiment", "report", "deadbeef", "--db", db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no evaluation or run with id deadbeef/);
    const nowhere = join(tempDir(), "no-store");
    const missing = await cli(["experiment", "report", id, "--db", nowhere]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no store here to read experiment/);
    expect(existsSync(nowhere)).toBe(false);
  });
});

describe("dramaturg experiment table1 without --results", () => {
  it("--dry-run prices the four built-in experiments at the scale, with a total, and writes nothing", async () => {
    const db = join(tempDir(), "store");
    const { code, stdout, stderr } = await cli([
      "experiment",
      "table1",
      "--scale",
      "0.1",
      "--model",
      "openai:gpt-4o-mini",
      "--judge",
      "openai:gpt-4o-mini",
      "--db",
      db,
      "--dry-run",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    for (const id of [
      "brainstorming-average",
      "brainstorming-difficult-full",
      "brainstorming-difficult-variety",
      "debate-controversial",
    ])
      expect(stdout).toMatch(new RegExp(`^Dry run · experiment ${id} at scale 0\\.1 · `, "m"));
    expect(stdout).toMatch(/^all 4 experiments\n {2}agents\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+\$\d+\.\d{4}$/m);
    expect(existsSync(db)).toBe(false);
  });

  it("exits 2 when given both --results and models, or neither", async () => {
    const both = await cli(["experiment", "table1", "--results", JUNE, "--model", "openai:gpt-4o-mini"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--results compares result files, --model and --judge run the experiments/);
    const judgeOnly = await cli(["experiment", "table1", "--judge", "openai:gpt-4o-mini"]);
    expect(judgeOnly.code).toBe(2);
    expect(judgeOnly.stderr).toMatch(/^dramaturg: --model: experiment table1 needs --model and --judge/);
  });
});
