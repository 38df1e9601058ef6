// TinyTroupe's Table 1 (arXiv:2507.09788) as data, and our results held against it. The published figures are
// the authors' own experiment artifacts in two sets — June 2025 (gpt-4o-mini, behind the first version of the
// paper) and October 2025 (gpt-5-mini, a later revision) — and a reproduction is judged on each metric's
// direction (the sign of treatment − control) and significance (p < 0.05), never on exact values: another
// model and other agents cannot give the same numbers.
import { escapeMarkdown, InputError, markdownTable } from "../core/index.ts";
import {
  compareResultSets,
  type ExperimentComparison,
  type MetricComparison,
  parseResultSets,
  readResultsJson,
} from "./compare.ts";
import { alignedTable, formatP, formatSigned } from "./comparison-report.ts";

/** The two published sets of artifacts, in the order they appeared. */
export const TABLE1_ARTIFACT_SETS = ["june-2025", "october-2025"] as const;
export type Table1ArtifactSet = (typeof TABLE1_ARTIFACT_SETS)[number];

/** What each artifact set is, for headings. */
export const TABLE1_ARTIFACT_SET_TITLES: Record<Table1ArtifactSet, string> = {
  "june-2025": "June 2025, gpt-4o-mini",
  "october-2025": "October 2025, gpt-5-mini",
};

/** The significance level of the published tests (TinyTroupe's StatisticalTester default). */
export const TABLE1_ALPHA = 0.05;

/** The sign of treatment − control: "+" higher, "-" lower, "0" no difference. */
export type Direction = "+" | "-" | "0";

/** One metric of one experiment as published: means rounded to 2 decimals, as the artifacts print them. */
export interface PublishedCell {
  control: { mean: number; n: number };
  treatment: { mean: number; n: number };
  /** Δ = treatment − control, as published (rounded). */
  delta: number;
  /** Welch's two-sided p; null where the test is undefined (neither arm varies). */
  p: number | null;
  /** p < 0.05 (false where p is undefined, as TinyTroupe's `p_value < alpha` is for NaN). */
  significant: boolean;
  /** Why this cell needs a word of caution, when it does. */
  note?: string;
}

/** A row of Table 1: one of our metrics, the name TinyTroupe's results give it, and both published cells. */
export interface Table1Row {
  /** Our metric name (what a `dramaturg.experiment-result/v1` document calls it). */
  metric: string;
  /** TinyTroupe's name of the same measure in its results files. */
  tinytroupe: string;
  published: Record<Table1ArtifactSet, PublishedCell>;
}

/** One of the four experiments: our built-in scenario of the same design, and its published rows. */
export interface Table1Experiment {
  /** The id of our built-in scenario that reproduces it. */
  id: string;
  /** The paper's name of it. */
  name: string;
  /** What differs between the arms. */
  treatment: string;
  rows: Table1Row[];
}

/**
 * Our metric names and TinyTroupe's. `convergence` is our name of voice divergence (higher = more distinct),
 * which TinyTroupe calls "Divergence": same direction, no sign flip. Adherence is the hard variant in all but
 * Exp 2.2, which measured the soft "Persona Adherence".
 */
export const TINYTROUPE_METRIC_NAMES: Readonly<Record<string, readonly string[]>> = {
  adherence: ["Hard Persona Adherence", "Persona Adherence"],
  consistency: ["Self-consistency"],
  fluency: ["Fluency"],
  convergence: ["Divergence"],
  ideas_quantity: ["ideas_qty"],
  opinions_quantity: ["opinions_qty"],
  task_completion: ["Task Completion"],
};

/** Our name of a metric named either way; undefined for a metric neither names. */
export function ourMetricName(name: string): string | undefined {
  if (Object.hasOwn(TINYTROUPE_METRIC_NAMES, name)) return name;
  return Object.keys(TINYTROUPE_METRIC_NAMES).find((ours) => TINYTROUPE_METRIC_NAMES[ours]!.includes(name));
}

type Figures = [
  controlMean: number,
  controlN: number,
  treatmentMean: number,
  treatmentN: number,
  delta: number,
];

function cell([cm, cn, tm, tn, delta]: Figures, p: number | null, note?: string): PublishedCell {
  return {
    control: { mean: cm, n: cn },
    treatment: { mean: tm, n: tn },
    delta,
    p,
    significant: p !== null && p < TABLE1_ALPHA,
    ...(note ? { note } : {}),
  };
}

function row(metric: string, tinytroupe: string, june: PublishedCell, october: PublishedCell): Table1Row {
  return { metric, tinytroupe, published: { "june-2025": june, "october-2025": october } };
}

const RECOMPUTED =
  "the authors printed no test for this set's debate: figures recomputed from their results file (Welch, SciPy)";

/**
 * The four experiments of Table 1 with every published figure (reference: tinytroupe-table1.md, §1A and §1B).
 * Task completion was measured in every artifact; whether the typeset table shows it is not known.
 */
export const TABLE1: readonly Table1Experiment[] = [
  {
    id: "brainstorming-average",
    name: "Exp 1: brainstorming, average customers",
    treatment: "action correction + variety intervention",
    rows: [
      row(
        "adherence",
        "Hard Persona Adherence",
        cell([6.72, 200, 5.81, 200, -0.92], 1.53e-8),
        cell([8.03, 120, 7.82, 120, -0.21], 0.205),
      ),
      row(
        "consistency",
        "Self-consistency",
        cell([7.16, 200, 5.0, 200, -2.16], 7.12e-37),
        cell([8.96, 120, 8.93, 120, -0.03], 0.605),
      ),
      row(
        "fluency",
        "Fluency",
        cell([7.27, 200, 6.75, 200, -0.52], 3.2e-9),
        cell([8.4, 120, 7.16, 120, -1.24], 8.7e-16),
      ),
      row(
        "convergence",
        "Divergence",
        cell([6.63, 40, 6.15, 40, -0.48], 0.0496),
        cell([3.37, 30, 7.37, 30, 4.0], 1.44e-10),
      ),
      row(
        "ideas_quantity",
        "ideas_qty",
        cell([3.85, 40, 8.28, 39, 4.43], 1.37e-13),
        cell([4.17, 29, 9.7, 30, 5.53], 9.76e-12),
      ),
      row(
        "task_completion",
        "Task Completion",
        cell([7.85, 40, 7.7, 40, -0.15], 0.566),
        cell([9.0, 30, 8.97, 30, -0.03], 0.326),
      ),
    ],
  },
  {
    id: "brainstorming-difficult-full",
    name: "Exp 2.1: brainstorming, difficult customers",
    treatment: "action correction + variety intervention",
    rows: [
      row(
        "adherence",
        "Hard Persona Adherence",
        cell([4.15, 96, 4.95, 96, 0.8], 1.52e-5),
        cell([1.53, 120, 2.72, 120, 1.18], 9.54e-7),
      ),
      row(
        "consistency",
        "Self-consistency",
        cell([5.6, 96, 3.54, 96, -2.06], 2.66e-18),
        cell([8.65, 120, 4.06, 120, -4.59], 1.64e-30),
      ),
      row(
        "fluency",
        "Fluency",
        cell([6.34, 96, 3.22, 96, -3.13], 1.98e-35),
        cell([7.99, 120, 5.02, 120, -2.97], 3.02e-34),
      ),
      row(
        "convergence",
        "Divergence",
        cell([6.29, 24, 4.88, 24, -1.42], 0.00374),
        cell([1.2, 30, 5.7, 30, 4.5], 2.58e-10),
      ),
      row(
        "ideas_quantity",
        "ideas_qty",
        cell([4.17, 24, 2.45, 20, -1.72], 0.00807),
        cell([3.83, 29, 5.84, 25, 2.01], 1.03e-5),
      ),
      row(
        "task_completion",
        "Task Completion",
        cell([5.96, 24, 2.5, 24, -3.46], 9.0e-7),
        cell([8.73, 30, 5.8, 30, -2.93], 4.88e-6),
      ),
    ],
  },
  {
    id: "brainstorming-difficult-variety",
    name: "Exp 2.2: brainstorming, difficult customers",
    treatment: "variety intervention only",
    rows: [
      row(
        "adherence",
        "Persona Adherence",
        cell([5.34, 96, 4.74, 96, -0.6], 0.0063),
        cell([6.4, 120, 5.77, 119, -0.63], 8.47e-6),
      ),
      row(
        "consistency",
        "Self-consistency",
        cell([5.47, 96, 4.55, 96, -0.92], 0.000163),
        cell([8.85, 120, 8.66, 120, -0.19], 0.123),
      ),
      row(
        "fluency",
        "Fluency",
        cell([6.45, 96, 6.11, 96, -0.33], 0.134),
        cell([7.52, 120, 6.01, 120, -1.51], 1.03e-15),
      ),
      row(
        "convergence",
        "Divergence",
        cell([5.88, 24, 6.42, 24, 0.54], 0.131),
        cell([3.8, 30, 8.17, 30, 4.37], 5.57e-12),
      ),
      row(
        "ideas_quantity",
        "ideas_qty",
        cell([3.96, 24, 9.29, 24, 5.33], 9.35e-8),
        cell([4.04, 26, 12.21, 29, 8.17], 3.26e-12),
      ),
      row(
        "task_completion",
        "Task Completion",
        cell([5.13, 24, 7.0, 24, 1.88], 0.00518),
        cell([8.53, 30, 8.77, 30, 0.24], 0.249),
      ),
    ],
  },
  {
    id: "debate-controversial",
    name: "Debate: controversial motions, political compass",
    treatment: "action correction only",
    rows: [
      row(
        "adherence",
        "Hard Persona Adherence",
        cell([6.16, 120, 6.63, 120, 0.47], 0.0148),
        cell([7.18, 120, 7.78, 120, 0.6], 0.00361, RECOMPUTED),
      ),
      row(
        "consistency",
        "Self-consistency",
        cell([5.81, 120, 6.79, 120, 0.98], 0.000239),
        cell([8.75, 120, 8.76, 120, 0.01], 0.95, RECOMPUTED),
      ),
      row(
        "fluency",
        "Fluency",
        cell([6.48, 120, 6.38, 120, -0.11], 0.454),
        cell([8.32, 120, 8.53, 120, 0.22], 0.00677, RECOMPUTED),
      ),
      row(
        "convergence",
        "Divergence",
        cell([5.04, 24, 4.92, 24, -0.13], 0.849),
        cell([1.13, 24, 0.79, 24, -0.33], 0.46, RECOMPUTED),
      ),
      row(
        "opinions_quantity",
        "opinions_qty",
        cell([2.25, 24, 2.21, 24, -0.04], 0.855),
        cell([2.75, 24, 2.96, 24, 0.21], 0.297, RECOMPUTED),
      ),
      row(
        "task_completion",
        "Task Completion",
        cell([7.33, 24, 7.58, 24, 0.25], 0.425),
        cell(
          [9.0, 24, 9.0, 24, 0],
          null,
          `every value is 9 in both arms, so there is no test; ${RECOMPUTED}`,
        ),
      ),
    ],
  },
];

/** The sign of a difference; null when there is none to read. */
export function directionOf(delta: number | null): Direction | null {
  if (delta === null) return null;
  return delta > 0 ? "+" : delta < 0 ? "-" : "0";
}

/** One experiment's results, compared treatment − control, ready to hold against Table 1. */
export interface Table1Result {
  /** Which experiment: the id of a {@link TABLE1} entry. */
  experiment: string;
  comparison: ExperimentComparison;
  /** Where the results came from (a file), shown in reports. */
  source?: string;
}

/** Ours against one published cell. */
export interface Table1Verdict {
  direction: Direction;
  significant: boolean;
  /** Same direction and same significance; `not compared` when our side has no direction or significance. */
  verdict: "agree" | "disagree" | "not compared";
  direction_agrees: boolean | null;
  significance_agrees: boolean | null;
}

/** One metric of one experiment: our figures, each published cell, and whether they agree. */
export interface Table1Cell {
  experiment: string;
  metric: string;
  tinytroupe: string;
  /** Our comparison's figures; null when our results do not have this metric. */
  ours: {
    /** The metric's name in our results (ours or TinyTroupe's). */
    name: string;
    delta: number | null;
    p: number | null;
    direction: Direction | null;
    significant: boolean | null;
    note?: string;
  } | null;
  published: Record<Table1ArtifactSet, PublishedCell & Table1Verdict>;
}

export const TABLE1_COMPARISON_FORMAT = "dramaturg.table1-comparison/v1";

/** `dramaturg experiment table1 --format json`: every cell of the experiments given, and the tallies. */
export interface Table1Comparison {
  format: typeof TABLE1_COMPARISON_FORMAT;
  alpha: number;
  /** The experiments compared, in Table 1's order, with where their results came from. */
  experiments: { id: string; name: string; treatment: string; source: string | null }[];
  /** The experiments of Table 1 no results were given for. */
  missing: string[];
  cells: Table1Cell[];
  /** Per artifact set: how many cells agree, disagree, or could not be compared. */
  summary: Record<Table1ArtifactSet, { agree: number; disagree: number; not_compared: number }>;
}

function verdictOf(ours: Table1Cell["ours"], published: PublishedCell): Table1Verdict {
  const direction = directionOf(published.delta)!;
  const base = { direction, significant: published.significant };
  if (ours === null || ours.direction === null || ours.significant === null)
    return { ...base, verdict: "not compared", direction_agrees: null, significance_agrees: null };
  const direction_agrees = ours.direction === direction;
  const significance_agrees = ours.significant === published.significant;
  return {
    ...base,
    verdict: direction_agrees && significance_agrees ? "agree" : "disagree",
    direction_agrees,
    significance_agrees,
  };
}

/** Our comparison of a row's metric: under our name, or else under TinyTroupe's name of it in that experiment. */
function findMetric(comparison: ExperimentComparison, row: Table1Row): MetricComparison | undefined {
  return (
    comparison.comparisons.find((c) => c.metric === row.metric) ??
    comparison.comparisons.find((c) => c.metric === row.tinytroupe)
  );
}

/**
 * Holds each experiment's results against the published Table 1: per metric, the published direction and
 * significance in both artifact sets, ours, and whether they agree (both the direction and the significance).
 * Our significance should be at 0.05, as published. An id that is not one of Table 1's, or given twice, is an
 * InputError.
 */
export function compareWithTable1(results: readonly Table1Result[]): Table1Comparison {
  const given = new Map<string, Table1Result>();
  for (const result of results) {
    if (!TABLE1.some((e) => e.id === result.experiment))
      throw new InputError(
        `"${result.experiment}" is not an experiment of Table 1; expected one of ${TABLE1.map((e) => e.id).join(", ")}`,
        { file: result.source },
      );
    const earlier = given.get(result.experiment);
    if (earlier)
      throw new InputError(
        `two results for "${result.experiment}"${earlier.source ? ` (the other is ${earlier.source})` : ""}`,
        { file: result.source },
      );
    given.set(result.experiment, result);
  }
  const summary = Object.fromEntries(
    TABLE1_ARTIFACT_SETS.map((set) => [set, { agree: 0, disagree: 0, not_compared: 0 }]),
  ) as Table1Comparison["summary"];
  const cells: Table1Cell[] = [];
  for (const experiment of TABLE1) {
    const result = given.get(experiment.id);
    if (!result) continue;
    for (const row of experiment.rows) {
      const found = findMetric(result.comparison, row);
      const ours: Table1Cell["ours"] = found
        ? {
            name: found.metric,
            delta: found.delta,
            p: found.p,
            direction: directionOf(found.delta),
            significant: found.significant,
            ...(found.note ? { note: found.note } : {}),
          }
        : null;
      const published = Object.fromEntries(
        TABLE1_ARTIFACT_SETS.map((set) => {
          const verdict = verdictOf(ours, row.published[set]);
          summary[set][verdict.verdict === "not compared" ? "not_compared" : verdict.verdict]++;
          return [set, { ...row.published[set], ...verdict }];
        }),
      ) as Table1Cell["published"];
      cells.push({
        experiment: experiment.id,
        metric: row.metric,
        tinytroupe: row.tinytroupe,
        ours,
        published,
      });
    }
  }
  return {
    format: TABLE1_COMPARISON_FORMAT,
    alpha: TABLE1_ALPHA,
    experiments: TABLE1.filter((e) => given.has(e.id)).map((e) => ({
      id: e.id,
      name: e.name,
      treatment: e.treatment,
      source: given.get(e.id)!.source ?? null,
    })),
    missing: TABLE1.filter((e) => !given.has(e.id)).map((e) => e.id),
    cells,
    summary,
  };
}

/**
 * Which experiment TinyTroupe's own results file is, by the name its notebook gave it
 * (`brainstorming_and_focus_group_quantitative_experimentation_2.1c.json`, `debating_…_1c.json`).
 */
function experimentOfTinyTroupeFile(file: string): string | undefined {
  const name = file.split(/[\\/]/).pop()!.toLowerCase();
  if (/^debating_quantitative_experimentation_1[a-z]?\.json$/.test(name)) return "debate-controversial";
  const brainstorming =
    /^brainstorming_and_focus_group_quantitative_experimentation_(1|2\.1|2\.2)[a-z]?\.json$/.exec(name);
  if (!brainstorming) return undefined;
  return {
    "1": "brainstorming-average",
    "2.1": "brainstorming-difficult-full",
    "2.2": "brainstorming-difficult-variety",
  }[brainstorming[1] as "1" | "2.1" | "2.2"];
}

/** The scenario id a Dramaturg result document names: `scenario: "id"` or `scenario: { id }`. */
function scenarioOf(value: unknown): string | undefined {
  const scenario = (value as { scenario?: unknown }).scenario;
  if (typeof scenario === "string") return scenario;
  if (typeof scenario === "object" && scenario !== null) {
    const id = (scenario as { id?: unknown }).id;
    if (typeof id === "string") return id;
  }
  return undefined;
}

/**
 * Reads one experiment's results for {@link compareWithTable1}: `FILE` or `EXPERIMENT=FILE`. Without a
 * name, a Dramaturg result is the experiment its scenario id names, and a TinyTroupe results file the one its
 * notebook's file name names. The arms are chosen as `experiment compare` chooses them (control, treatment).
 */
export function readTable1Result(argument: string): Table1Result {
  const named = /^([a-z0-9-]+)=(.+)$/.exec(argument);
  const file = named ? named[2]! : argument;
  const value = readResultsJson(file);
  const sets = parseResultSets(value, file);
  const experiment =
    named?.[1] ?? (sets.source === "dramaturg" ? scenarioOf(value) : experimentOfTinyTroupeFile(file));
  if (experiment === undefined)
    throw new InputError(
      `cannot tell which Table 1 experiment these results are (${
        sets.source === "dramaturg"
          ? "the document names no scenario"
          : "not a file name TinyTroupe's notebooks write"
      }); name it as EXPERIMENT=FILE, EXPERIMENT one of ${TABLE1.map((e) => e.id).join(", ")}`,
      { file },
    );
  if (!TABLE1.some((e) => e.id === experiment))
    throw new InputError(
      `"${experiment}" is not an experiment of Table 1; expected one of ${TABLE1.map((e) => e.id).join(", ")}`,
      { file, place: named ? undefined : "scenario" },
    );
  return {
    experiment,
    comparison: compareResultSets(sets, { alpha: TABLE1_ALPHA, file }),
    source: file,
  };
}

const DIRECTION_SHOWN: Record<Direction, string> = { "+": "+", "-": "−", "0": "0" };

/** `+ sig`, `− n.s.`: a direction and whether it is significant. */
function directionText(direction: Direction | null, significant: boolean | null): string {
  if (direction === null || significant === null) return "–";
  return `${DIRECTION_SHOWN[direction]} ${significant ? "sig" : "n.s."}`;
}

/** Short column names of the artifact sets. */
const SET_COLUMNS: Record<Table1ArtifactSet, string> = { "june-2025": "June", "october-2025": "Oct" };

const HEADER = [
  "metric",
  "TinyTroupe",
  "ours Δ",
  "ours p",
  "ours",
  ...TABLE1_ARTIFACT_SETS.flatMap((set) => [`${SET_COLUMNS[set]} Δ`, SET_COLUMNS[set], "verdict"]),
];

function cells(c: Table1Cell): string[] {
  return [
    c.metric,
    c.tinytroupe,
    c.ours === null ? "not measured" : formatSigned(c.ours.delta),
    c.ours === null ? "–" : formatP(c.ours.p),
    c.ours === null ? "–" : directionText(c.ours.direction, c.ours.significant),
    ...TABLE1_ARTIFACT_SETS.flatMap((set) => {
      const p = c.published[set];
      return [formatSigned(p.delta), directionText(p.direction, p.significant), p.verdict];
    }),
  ];
}

function summaryLines(comparison: Table1Comparison): string[] {
  const total = comparison.cells.length;
  const lines = TABLE1_ARTIFACT_SETS.map((set) => {
    const s = comparison.summary[set];
    const rest = s.not_compared > 0 ? `, ${s.not_compared} not compared` : "";
    return `${TABLE1_ARTIFACT_SET_TITLES[set]}: ${s.agree} of ${total} cells agree, ${s.disagree} disagree${rest}`;
  });
  if (comparison.missing.length > 0) lines.push(`no results given for: ${comparison.missing.join(", ")}`);
  return lines;
}

const LEGEND = [
  "A cell agrees when the direction of treatment − control and its significance (Welch, p < 0.05) are both the published ones.",
  `Published: ${TABLE1_ARTIFACT_SETS.map((set) => `${SET_COLUMNS[set]} = ${TABLE1_ARTIFACT_SET_TITLES[set]}`).join("; ")}.`,
];

function experimentHeading(e: Table1Comparison["experiments"][number]): string {
  return `${e.id} — ${e.name}; treatment: ${e.treatment}${e.source === null ? "" : ` (${e.source})`}`;
}

/** The reproduction for a terminal: a block per experiment, then the tallies per artifact set. */
export function renderTable1Table(comparison: Table1Comparison): string {
  const out = ["Table 1 reproduction: ours against TinyTroupe's published results", ...LEGEND];
  for (const e of comparison.experiments) {
    const rows = comparison.cells.filter((c) => c.experiment === e.id).map(cells);
    out.push("", experimentHeading(e), ...alignedTable(HEADER, rows, { left: 2 }));
  }
  out.push("", ...summaryLines(comparison));
  return `${out.join("\n")}\n`;
}

/** The reproduction as Markdown: a table per experiment, then the tallies. */
export function renderTable1Markdown(comparison: Table1Comparison): string {
  const columns = HEADER.map((title, i) => ({ title, right: i >= 2 }));
  const out = ["### Table 1 reproduction", "", LEGEND.join(" ")];
  for (const e of comparison.experiments) {
    // Every cell is our own text or a number; only the file name in the heading comes from outside.
    const rows = comparison.cells.filter((c) => c.experiment === e.id).map(cells);
    out.push("", `**${escapeMarkdown(experimentHeading(e))}**`, "", ...markdownTable(columns, rows));
  }
  out.push("", ...summaryLines(comparison).map((l) => `- ${l}`));
  return `${out.join("\n")}\n`;
}
