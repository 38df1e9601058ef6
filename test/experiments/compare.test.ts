// Results files compared: TinyTroupe's own June-2025 Table 1 files equal SciPy's figures (and TinyTroupe's
// stored ones, t's sign aside), Dramaturg's experiment result is read the same way, arms are chosen or
// refused with the arms found, and a bad file names itself and the JSON path.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compareResultSets,
  EXPERIMENT_COMPARISON_FORMAT,
  parseResultSets,
  readResultSets,
} from "../../src/experiments/index.ts";
import { tempDir } from "../temp-dir.ts";
import { expectScipy, REFERENCE } from "./scipy-reference.ts";

const FIXTURES = new URL("../fixtures/experiments/", import.meta.url).pathname;

/** What TinyTroupe's StatisticalTester stored for a metric (its `_run_welch_t_test`). */
interface TinyTroupeFigures {
  t_statistic: number;
  p_value: number;
  degrees_of_freedom: number;
  confidence_interval: [number, number];
  mean_difference: number;
  percent_change: number;
  effect_size: number;
  control_std: number;
  treatment_sample_size: number;
  significant: boolean;
}

/** The error a call throws, for its message. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("a TinyTroupe results file", () => {
  for (const { file, metrics } of REFERENCE.artifacts) {
    it(`is compared as SciPy compares it: ${file}`, () => {
      const comparison = compareResultSets(readResultSets(join(FIXTURES, file)));
      expect(comparison.format).toBe(EXPERIMENT_COMPARISON_FORMAT);
      // The control's metrics in file order; all of them are in the treatment too.
      expect(comparison.comparisons.map((c) => c.metric)).toEqual(Object.keys(metrics));
      for (const c of comparison.comparisons) expectScipy(c, metrics[c.metric]!, `${file} ${c.metric}`);
    });
  }

  it("gives TinyTroupe's own stored figures, with t of treatment − control", () => {
    const file = join(FIXTURES, REFERENCE.artifacts[0]!.file);
    const stored = JSON.parse(readFileSync(file, "utf8")).experiments.Control
      .statistical_test_results_vs_others.Treatment as Record<string, TinyTroupeFigures>;
    const comparison = compareResultSets(readResultSets(file));
    expect(comparison.comparisons).toHaveLength(Object.keys(stored).length);
    for (const c of comparison.comparisons) {
      const theirs = stored[c.metric]!;
      expect(c.t).toBeCloseTo(-theirs.t_statistic, 9);
      expect(c.p! / theirs.p_value).toBeCloseTo(1, 9);
      expect(c.df).toBeCloseTo(theirs.degrees_of_freedom, 9);
      expect(c.ci95![0]).toBeCloseTo(theirs.confidence_interval[0], 9);
      expect(c.ci95![1]).toBeCloseTo(theirs.confidence_interval[1], 9);
      expect(c.delta).toBeCloseTo(theirs.mean_difference, 12);
      expect(c.percent_change).toBeCloseTo(theirs.percent_change, 9);
      expect(c.cohen_d).toBeCloseTo(theirs.effect_size, 9);
      expect(c.control.sd).toBeCloseTo(theirs.control_std, 12);
      expect(c.treatment.n).toBe(theirs.treatment_sample_size);
      expect(c.significant).toBe(theirs.significant);
    }
  });

  it("chooses Control and Treatment by name, and lists a metric only one arm has with a note", () => {
    const sets = readResultSets(join(FIXTURES, "hand-made-tinytroupe.json"));
    expect(sets.source).toBe("tinytroupe");
    const { comparisons } = compareResultSets(sets);
    expect(comparisons.map((c) => c.metric)).toEqual([
      "Persona Adherence",
      "Fluency",
      "Task Completion",
      "ideas_qty",
    ]);
    const adherence = comparisons[0]!;
    expect(adherence.delta).toBe(2.75);
    expect(adherence.significant).toBe(true);
    const task = comparisons[2]!;
    expect(task).toMatchObject({ delta: 0, p: null, cohen_d: null, significant: null });
    expect(task.note).toMatch(/neither arm varies/);
    const extra = compareResultSets(
      parseResultSets(
        { experiments: { Control: { results: { a: [1, 2] } }, Treatment: { results: { b: [3, 4] } } } },
        "x.json",
      ),
    );
    expect(extra.comparisons.map((c) => [c.metric, c.control.n, c.treatment.n])).toEqual([
      ["a", 2, 0],
      ["b", 0, 2],
    ]);
    expect(extra.comparisons[0]!.note).toMatch(/treatment has no values/);
  });

  it("refuses an arm that has no results yet, naming its place", () => {
    const sets = parseResultSets(
      { experiments: { Control: { results: { a: [1, 2] } }, Treatment: {} } },
      "r.json",
    );
    expect(thrown(() => compareResultSets(sets, { file: "r.json" })).message).toBe(
      'r.json:experiments.Treatment.results: missing: the arm "Treatment" has no results yet',
    );
  });
});

describe("a dramaturg.experiment-result/v1 document", () => {
  const file = join(FIXTURES, "hand-made-result.json");

  it("is read arm by arm, metric by metric", () => {
    const sets = readResultSets(file);
    expect(sets.source).toBe("dramaturg");
    expect(sets.arms.map((a) => a.name)).toEqual(["control", "gate", "variety"]);
    const { comparisons } = compareResultSets(sets, { treatment: "gate" });
    expect(comparisons.map((c) => [c.metric, c.delta])).toEqual([
      ["adherence", 2],
      ["ideas_quantity", -0.25],
    ]);
  });

  it("with more than one other arm, needs the treatment named, and lists the arms found", () => {
    expect(thrown(() => compareResultSets(readResultSets(file), { file })).message).toBe(
      `${file}: cannot tell which arm is the treatment: none is named "treatment"; arms found: "control", "gate", "variety"; name it with --treatment`,
    );
  });

  it("refuses an arm name that is not there, and the same arm twice", () => {
    const sets = readResultSets(file);
    expect(thrown(() => compareResultSets(sets, { control: "baseline", file })).message).toBe(
      `${file}: no arm named "baseline" (--control); arms found: "control", "gate", "variety"`,
    );
    expect(
      thrown(() => compareResultSets(sets, { treatment: "control", control: "control" })).message,
    ).toMatch(/the control and the treatment are the same arm/);
  });

  it("takes the only other arm as the treatment, and any arm as the control when named", () => {
    const two = parseResultSets(
      {
        format: "dramaturg.experiment-result/v1",
        arms: { Control: { metrics: { m: [1, 2] } }, gated: { metrics: { m: [3, 5] } } },
      },
      "two.json",
    );
    expect(compareResultSets(two).comparisons[0]!.delta).toBe(2.5);
    const sets = readResultSets(file);
    expect(compareResultSets(sets, { control: "gate", treatment: "variety" }).comparisons[0]!.delta).toBe(-2);
  });
});

describe("a bad results file", () => {
  const write = (text: string) => {
    const path = join(tempDir(), "results.json");
    writeFileSync(path, text);
    return path;
  };

  it("names the file and the JSON path of a value that is not a number", () => {
    const path = write(JSON.stringify({ experiments: { Control: { results: { Fluency: [1, "7", 3] } } } }));
    expect(thrown(() => readResultSets(path)).message).toMatch(
      new RegExp(
        `^${path}:experiments\\.Control\\.results\\.Fluency\\[1\\]: expected a number, got the string "7"`,
      ),
    );
  });

  it("names the JSON path in a Dramaturg result too", () => {
    const path = write(
      JSON.stringify({
        format: "dramaturg.experiment-result/v1",
        arms: { control: { metrics: { adherence: [4, "5"] } } },
      }),
    );
    expect(thrown(() => readResultSets(path)).message).toMatch(
      new RegExp(
        `^${path}:arms\\.control\\.metrics\\.adherence\\[1\\]: expected a number, got the string "5"`,
      ),
    );
  });

  it("names the format it expected", () => {
    const path = write(JSON.stringify({ format: "dramaturg.eval-result/v1", arms: {} }));
    expect(thrown(() => readResultSets(path)).message).toMatch(
      new RegExp(`^${path}:format: expected "dramaturg.experiment-result/v1"`),
    );
    const neither = write(JSON.stringify({ results: { a: [1] } }));
    expect(thrown(() => readResultSets(neither)).message).toMatch(
      /:\(root\): expected a dramaturg.experiment-result\/v1 document or a TinyTroupe experiment results file/,
    );
  });

  it("names the line and column of a syntax error, and a file that is not there", () => {
    const path = write('{"experiments": {"Control": ');
    expect(thrown(() => readResultSets(path)).message).toMatch(
      new RegExp(`^${path}:line 1, column \\d+: not valid JSON`),
    );
    expect(thrown(() => readResultSets(join(tempDir(), "none.json"))).message).toMatch(
      /cannot read the results file \(ENOENT\)/,
    );
  });
});
