// TinyTroupe's published October-2025 results as Python wrote them: `NaN` and `Infinity` where a statistic
// could not be computed. Every file with both arms compares; Dramaturg's own documents stay strict JSON.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePythonJson } from "../../src/core/index.ts";
import { readResultSets } from "../../src/experiments/index.ts";
import { cli } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";

const FOLDER = "test/fixtures/experiments/tinytroupe-october-2025";
const FILES = readdirSync(FOLDER).filter((f) => f.endsWith(".json"));
const dir = useTempDir("dramaturg-tinytroupe-october-");

describe("Python's JSON", () => {
  it("reads NaN, Infinity and -Infinity outside strings as those numbers", () => {
    expect(parsePythonJson('{"t": NaN, "df": Infinity, "low": -Infinity, "xs": [1, NaN]}')).toEqual({
      t: Number.NaN,
      df: Number.POSITIVE_INFINITY,
      low: Number.NEGATIVE_INFINITY,
      xs: [1, Number.NaN],
    });
  });

  it("leaves the words inside strings as they are, escapes included", () => {
    expect(parsePythonJson('{"note": "NaN or \\"Infinity\\"", "x": NaN}')).toEqual({
      note: 'NaN or "Infinity"',
      x: Number.NaN,
    });
  });

  it("reads strict JSON as JSON.parse does, and gives nothing for text that is neither", () => {
    expect(parsePythonJson('{"a": [1, 2.5, "NaN"]}')).toEqual({ a: [1, 2.5, "NaN"] });
    expect(parsePythonJson("{'a': 1}")).toBeUndefined();
    expect(parsePythonJson('{"a": nan}')).toBeUndefined();
  });
});

describe("TinyTroupe's October-2025 results", () => {
  it("are nine files, two of them with NaN that strict JSON refuses", () => {
    expect(FILES).toHaveLength(9);
    const python = FILES.filter((f) => {
      try {
        JSON.parse(readFileSync(join(FOLDER, f), "utf8"));
        return false;
      } catch {
        return true;
      }
    });
    expect(python.sort()).toEqual([
      "brainstorming_and_focus_group_quantitative_experimentation_1.json",
      "brainstorming_and_focus_group_quantitative_experimentation_2.1c.json",
    ]);
  });

  it.each(FILES)("%s compares when both arms ran", async (file) => {
    const sets = readResultSets(join(FOLDER, file));
    const ran = sets.arms.filter((a) => a.metrics !== undefined).length;
    const run = await cli(["experiment", "compare", join(FOLDER, file), "--format", "json"]);
    if (ran === 2) {
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).comparisons.length).toBeGreaterThan(0);
    } else {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("has no results yet");
    }
  });

  it("compares the NaN file's metrics as Welch's test gives them, a single value per arm without a p", async () => {
    const run = await cli([
      "experiment",
      "compare",
      join(FOLDER, "brainstorming_and_focus_group_quantitative_experimentation_1.json"),
      "--format",
      "json",
    ]);
    expect(run.code).toBe(0);
    const byMetric = Object.fromEntries(
      JSON.parse(run.stdout).comparisons.map((c: { metric: string }) => [c.metric, c]),
    );
    expect(byMetric["Hard Persona Adherence"].p).toBeCloseTo(0.792, 3);
    // TinyTroupe wrote NaN for this p (one value per arm): ours is no p at all, never a number.
    expect(byMetric.Divergence.p ?? null).toBeNull();
  });

  it("a Dramaturg result document with NaN is still refused, at its line and column", async () => {
    const file = join(dir(), "ours.json");
    writeFileSync(
      file,
      '{"format": "dramaturg.experiment-result/v1", "arms": {"control": {"metrics": {"x": [NaN]}}}}',
    );
    const run = await cli(["experiment", "compare", file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:line 1, column 85: not valid JSON: expected a value, found "N"`);
  });
});
