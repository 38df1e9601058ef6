// Table 1 as data and our results held against it: TinyTroupe's own June-2025 results files (the data behind
// the published table) agree with the June set on every cell and reproduce its figures; a result with one
// metric flipped, or made significant, disagrees on that cell alone; results are recognised by scenario id,
// by TinyTroupe's file names or by EXPERIMENT=FILE, and a file that cannot be placed is refused by name.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import {
  compareResultSets,
  compareWithTable1,
  directionOf,
  ourMetricName,
  readResultSets,
  readTable1Result,
  renderTable1Markdown,
  renderTable1Table,
  TABLE1,
  TABLE1_ARTIFACT_SETS,
  type Table1Result,
} from "../../src/experiments/index.ts";
import { tempDir } from "../temp-dir.ts";

const JUNE = new URL("../fixtures/experiments/tinytroupe-june-2025/", import.meta.url).pathname;
const JUNE_FILES = readdirSync(JUNE)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => join(JUNE, f));
const DEBATE = join(JUNE, "debating_quantitative_experimentation_1c.json");

/** The error a call throws. */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

/**
 * A Dramaturg result document for the debate, hand-made in this test from TinyTroupe's debate results with
 * our metric names; `edit` changes its arms' values before it is written.
 */
function debateDocument(edit: (arms: Record<string, Record<string, number[]>>) => void): string {
  const tinyTroupe = JSON.parse(readFileSync(DEBATE, "utf8")).experiments;
  const arms: Record<string, Record<string, number[]>> = {};
  for (const [arm, name] of [
    ["control", "Control"],
    ["treatment", "Treatment"],
  ] as const)
    arms[arm] = Object.fromEntries(
      Object.entries(tinyTroupe[name].results as Record<string, number[]>).map(([metric, values]) => [
        ourMetricName(metric)!,
        values,
      ]),
    );
  edit(arms);
  const file = join(tempDir(), "debate-result.json");
  const document = {
    format: "dramaturg.experiment-result/v1",
    scenario: { id: "debate-controversial", title: "hand-made from TinyTroupe's debate results" },
    arms: Object.fromEntries(Object.entries(arms).map(([arm, metrics]) => [arm, { metrics }])),
  };
  writeFileSync(file, JSON.stringify(document));
  return file;
}

describe("the published Table 1", () => {
  it("has the four experiments of the seed, six metrics each, and both artifact sets in every cell", () => {
    expect(TABLE1.map((e) => e.id)).toEqual([
      "brainstorming-average",
      "brainstorming-difficult-full",
      "brainstorming-difficult-variety",
      "debate-controversial",
    ]);
    for (const e of TABLE1) {
      expect(e.rows.map((r) => r.metric)).toEqual([
        "adherence",
        "consistency",
        "fluency",
        "convergence",
        e.id === "debate-controversial" ? "opinions_quantity" : "ideas_quantity",
        "task_completion",
      ]);
      for (const r of e.rows) expect(Object.keys(r.published)).toEqual([...TABLE1_ARTIFACT_SETS]);
    }
  });

  it("maps our metric names to TinyTroupe's and back; Exp 2.2 measured the soft adherence", () => {
    expect(ourMetricName("Hard Persona Adherence")).toBe("adherence");
    expect(ourMetricName("Persona Adherence")).toBe("adherence");
    expect(ourMetricName("Self-consistency")).toBe("consistency");
    expect(ourMetricName("Divergence")).toBe("convergence");
    expect(ourMetricName("ideas_qty")).toBe("ideas_quantity");
    expect(ourMetricName("opinions_qty")).toBe("opinions_quantity");
    expect(ourMetricName("Task Completion")).toBe("task_completion");
    expect(ourMetricName("fluency")).toBe("fluency");
    expect(ourMetricName("Suitability")).toBeUndefined();
    const exp22 = TABLE1.find((e) => e.id === "brainstorming-difficult-variety")!;
    expect(exp22.rows[0]!.tinytroupe).toBe("Persona Adherence");
  });

  it("its June figures are those of TinyTroupe's June results files, to their rounding", () => {
    for (const file of JUNE_FILES) {
      const { experiment, comparison } = readTable1Result(file);
      const rows = TABLE1.find((e) => e.id === experiment)!.rows;
      for (const row of rows) {
        const ours = comparison.comparisons.find((c) => c.metric === row.tinytroupe)!;
        const published = row.published["june-2025"];
        const where = `${experiment} ${row.metric}`;
        expect(published.control.n, where).toBe(ours.control.n);
        expect(published.treatment.n, where).toBe(ours.treatment.n);
        // Two decimals, half-up on exact ties (5.805 → 5.81): within half a unit of the last digit.
        expect(Math.abs(published.control.mean - ours.control.mean!), where).toBeLessThanOrEqual(
          0.005 + 1e-9,
        );
        expect(Math.abs(published.treatment.mean - ours.treatment.mean!), where).toBeLessThanOrEqual(
          0.005 + 1e-9,
        );
        expect(Math.abs(published.delta - ours.delta!), where).toBeLessThanOrEqual(0.005 + 1e-9);
        // Three significant digits at most (0.0063 has two).
        expect(Math.abs(published.p! - ours.p!) / ours.p!, where).toBeLessThan(0.01);
        expect(published.significant, where).toBe(ours.p! < 0.05);
      }
    }
  });
});

describe("TinyTroupe's June-2025 results against the published Table 1", () => {
  const comparison = compareWithTable1(JUNE_FILES.map((file) => readTable1Result(file)));

  it("are recognised by their file names as the four experiments", () => {
    expect(comparison.experiments.map((e) => [e.id, e.source])).toEqual([
      [
        "brainstorming-average",
        join(JUNE, "brainstorming_and_focus_group_quantitative_experimentation_1c.json"),
      ],
      [
        "brainstorming-difficult-full",
        join(JUNE, "brainstorming_and_focus_group_quantitative_experimentation_2.1c.json"),
      ],
      [
        "brainstorming-difficult-variety",
        join(JUNE, "brainstorming_and_focus_group_quantitative_experimentation_2.2b.json"),
      ],
      ["debate-controversial", DEBATE],
    ]);
    expect(comparison.missing).toEqual([]);
  });

  it("agree with the June set on every one of the 24 cells, direction and significance", () => {
    expect(comparison.cells).toHaveLength(24);
    for (const cell of comparison.cells) {
      const june = cell.published["june-2025"];
      expect(june.verdict, `${cell.experiment} ${cell.metric}`).toBe("agree");
      expect(cell.ours!.direction).toBe(june.direction);
      expect(cell.ours!.significant).toBe(june.significant);
      // Each cell was found under TinyTroupe's name of it.
      expect(cell.ours!.name).toBe(cell.tinytroupe);
    }
    expect(comparison.summary["june-2025"]).toEqual({ agree: 24, disagree: 0, not_compared: 0 });
  });

  it("disagree with the October set where gpt-5-mini's runs went another way", () => {
    const october = (experiment: string, metric: string) =>
      comparison.cells.find((c) => c.experiment === experiment && c.metric === metric)!.published[
        "october-2025"
      ];
    // Exp 1's divergence fell in June (p 0.0496) and rose in October (p 1.44e-10).
    expect(october("brainstorming-average", "convergence")).toMatchObject({
      direction: "+",
      significant: true,
      verdict: "disagree",
      direction_agrees: false,
      significance_agrees: true,
    });
    // Exp 1's self-consistency fell in both, significantly only in June.
    expect(october("brainstorming-average", "consistency")).toMatchObject({
      direction: "-",
      verdict: "disagree",
      direction_agrees: true,
      significance_agrees: false,
    });
    expect(october("brainstorming-difficult-full", "adherence").verdict).toBe("agree");
    expect(comparison.summary["october-2025"]).toEqual({ agree: 11, disagree: 13, not_compared: 0 });
  });

  it("print a block per experiment and the tallies, as a table and as Markdown", () => {
    const table = renderTable1Table(comparison);
    expect(table).toMatch(
      /^debate-controversial — Debate: .*\(.*debating_quantitative_experimentation_1c\.json\)$/m,
    );
    expect(table).toMatch(
      /^adherence\s+Hard Persona Adherence\s+-0\.92\s+1\.53e-08\s+− sig\s+-0\.92\s+− sig\s+agree\s+-0\.21\s+− n\.s\.\s+disagree$/m,
    );
    expect(table).toMatch(/^June 2025, gpt-4o-mini: 24 of 24 cells agree, 0 disagree$/m);
    expect(table).toMatch(/^October 2025, gpt-5-mini: 11 of 24 cells agree, 13 disagree$/m);
    const markdown = renderTable1Markdown(comparison);
    expect(markdown).toMatch(/^\| metric \| TinyTroupe \| ours Δ \|/m);
    expect(markdown).toMatch(/^\| opinions_quantity \| opinions_qty \| -0\.04 \| 0\.855 \| − n\.s\. \|/m);
    expect(markdown).toMatch(/^- June 2025, gpt-4o-mini: 24 of 24 cells agree, 0 disagree$/m);
  });
});

describe("a result that differs from the published one", () => {
  it("disagrees on the cell whose arms are flipped, and on that cell only", () => {
    const file = debateDocument((arms) => {
      [arms.control!.adherence, arms.treatment!.adherence] = [
        arms.treatment!.adherence!,
        arms.control!.adherence!,
      ];
    });
    const result = readTable1Result(file);
    expect(result.experiment).toBe("debate-controversial");
    const { cells, summary } = compareWithTable1([result]);
    const adherence = cells.find((c) => c.metric === "adherence")!;
    expect(adherence.ours).toMatchObject({ name: "adherence", direction: "-", significant: true });
    expect(adherence.published["june-2025"]).toMatchObject({
      direction: "+",
      verdict: "disagree",
      direction_agrees: false,
      significance_agrees: true,
    });
    expect(cells.filter((c) => c.published["june-2025"].verdict === "disagree").map((c) => c.metric)).toEqual(
      ["adherence"],
    );
    expect(summary["june-2025"]).toEqual({ agree: 5, disagree: 1, not_compared: 0 });
  });

  it("disagrees on significance alone when the same difference is measured on twenty times the samples", () => {
    const file = debateDocument((arms) => {
      for (const arm of Object.values(arms))
        arm.fluency = Array.from({ length: 20 }, () => arm.fluency!).flat();
    });
    const fluency = compareWithTable1([readTable1Result(file)]).cells.find((c) => c.metric === "fluency")!;
    expect(fluency.ours).toMatchObject({ direction: "-", significant: true });
    expect(fluency.published["june-2025"]).toMatchObject({
      significant: false,
      verdict: "disagree",
      direction_agrees: true,
      significance_agrees: false,
    });
  });

  it("is not compared on a metric it did not measure, and the experiments not given are listed", () => {
    const file = debateDocument((arms) => {
      for (const arm of Object.values(arms)) delete arm.task_completion;
    });
    const comparison = compareWithTable1([readTable1Result(file)]);
    const task = comparison.cells.find((c) => c.metric === "task_completion")!;
    expect(task.ours).toBeNull();
    expect(task.published["june-2025"]).toMatchObject({ verdict: "not compared", direction_agrees: null });
    expect(comparison.summary["june-2025"]).toEqual({ agree: 5, disagree: 0, not_compared: 1 });
    expect(comparison.missing).toEqual([
      "brainstorming-average",
      "brainstorming-difficult-full",
      "brainstorming-difficult-variety",
    ]);
    expect(renderTable1Table(comparison)).toMatch(
      /^task_completion\s+Task Completion\s+not measured\s+–\s+–\s+\+0\.25/m,
    );
  });
});

describe("placing results in Table 1", () => {
  it("takes EXPERIMENT=FILE for a file whose name says nothing", () => {
    const file = join(tempDir(), "my-debate.json");
    writeFileSync(file, readFileSync(DEBATE));
    const result = readTable1Result(`debate-controversial=${file}`);
    expect(result.experiment).toBe("debate-controversial");
    expect(result.source).toBe(file);
    expect(thrown(() => readTable1Result(file)).message).toBe(
      `${file}: cannot tell which Table 1 experiment these results are (not a file name TinyTroupe's notebooks write); name it as EXPERIMENT=FILE, EXPERIMENT one of brainstorming-average, brainstorming-difficult-full, brainstorming-difficult-variety, debate-controversial`,
    );
  });

  it("refuses a Dramaturg result of a scenario that is not in Table 1, naming the file and the place", () => {
    const file = join(tempDir(), "tea.json");
    writeFileSync(
      file,
      JSON.stringify({ format: "dramaturg.experiment-result/v1", scenario: { id: "tea-tasting" }, arms: {} }),
    );
    const error = thrown(() => readTable1Result(file));
    expect(InputError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      new RegExp(`^${file}:scenario: "tea-tasting" is not an experiment of Table 1;`),
    );
  });

  it("refuses two results for the same experiment", () => {
    const one = readTable1Result(DEBATE);
    const error = thrown(() => compareWithTable1([one, { ...one, source: "again.json" }]));
    expect(error.message).toBe(`again.json: two results for "debate-controversial" (the other is ${DEBATE})`);
  });

  it("reads the arms as experiment compare does", () => {
    const result: Table1Result = readTable1Result(DEBATE);
    expect(result.comparison).toEqual(compareResultSets(readResultSets(DEBATE)));
  });

  it("reads a difference's direction from its sign", () => {
    expect([directionOf(0.01), directionOf(-2), directionOf(0), directionOf(null)]).toEqual([
      "+",
      "-",
      "0",
      null,
    ]);
  });
});
