// `dramaturg experiment report FILE`: one experiment's result in Table 1's layout. The comparison is
// compare.ts's (treatment − control per metric, Welch); the report names the experiment it comes from —
// scenario, arms, scale, seed, file — above the table, in the JSON and in the chart.
import { basename } from "node:path";
import { escapeMarkdown, parseJsonText, readInputFile } from "../core/index.ts";
import {
  type CompareResultSetsOptions,
  chooseArms,
  compareResultSets,
  EXPERIMENT_RESULT_FORMAT,
  type ExperimentComparison,
  parseResultSets,
  type ResultSets,
} from "./compare.ts";
import {
  type ComparisonLabels,
  renderComparisonMarkdown,
  renderComparisonTable,
} from "./comparison-report.ts";
import type { ExperimentChartInput } from "./experiment-chart.ts";

/** One arm as the report names it. */
export interface ReportArm {
  /** Its key in the result document (`control`, `treatment`, …). */
  name: string;
  /** Its label, when the document gives one (`arms.<name>.label`). */
  label: string | null;
  /** Verdicts that errored and are missing from its metrics (`arms.<name>.errored`); null if not recorded. */
  errored: number | null;
  /** Gate checks that passed unjudged, the judge having failed (`arms.<name>.gate_unjudged`); null if not recorded. */
  gate_unjudged: number | null;
}

/**
 * `dramaturg experiment report --format json`: a `dramaturg.experiment-comparison/v1` document (`format` and
 * `comparisons`, exactly as `experiment compare` writes them), plus `experiment`: where the comparison comes
 * from and how it was made.
 */
export interface ExperimentReport extends ExperimentComparison {
  experiment: {
    /** The scenario id the document names (`scenario.id`, or `scenario` as a string); null if none. */
    scenario: string | null;
    /** The scenario's title (`scenario.title`); null if none. */
    title: string | null;
    /** The file read; null when the document did not come from a file. */
    source: string | null;
    control: ReportArm;
    treatment: ReportArm;
    /** The significance level of `significant`. */
    alpha: number;
    /** The scale the experiment ran at (`scenario.scale`), when the document records one. */
    scale: number | null;
    /** The experiment's seed (`seed`), when the document records one. */
    seed: number | null;
  };
}

export type ExperimentReportOptions = Omit<CompareResultSetsOptions, "file"> & {
  /** The file the document was read from, for error messages and the report's heading. */
  file?: string;
};

/** A report with what its chart needs: each metric's values in both arms. */
export interface ExperimentReportWithValues {
  report: ExperimentReport;
  chart: ExperimentChartInput;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const numberOrNull = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;
const stringOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);

/**
 * The report of a parsed result document (Dramaturg's own or a TinyTroupe results file, as `experiment compare`
 * reads them): the comparison of the treatment with the control, and what the document says of itself.
 */
export function experimentReport(
  document: unknown,
  { file, ...options }: ExperimentReportOptions = {},
): ExperimentReportWithValues {
  const where = file ?? "(the result document)";
  const sets: ResultSets = parseResultSets(document, where);
  const alpha = options.alpha ?? 0.05;
  const choice = { control: options.control, treatment: options.treatment, file: where };
  const comparison = compareResultSets(sets, { ...choice, alpha });
  const arms = chooseArms(sets, choice);
  const top = record(document);
  const scenario = record(top.scenario);
  const armOf = (name: string): ReportArm => {
    const stored = sets.source === "dramaturg" ? record(record(top.arms)[name]) : {};
    return {
      name,
      label: stringOrNull(stored.label),
      errored: numberOrNull(stored.errored),
      gate_unjudged: numberOrNull(stored.gate_unjudged),
    };
  };
  const report: ExperimentReport = {
    ...comparison,
    experiment: {
      scenario: stringOrNull(top.scenario) ?? stringOrNull(scenario.id),
      title: stringOrNull(scenario.title),
      source: file ?? null,
      control: armOf(arms.control.name),
      treatment: armOf(arms.treatment.name),
      alpha,
      scale: numberOrNull(scenario.scale),
      seed: numberOrNull(top.seed),
    },
  };
  const chart: ExperimentChartInput = {
    title: reportTitle(report),
    control: arms.control.name,
    treatment: arms.treatment.name,
    alpha,
    metrics: comparison.comparisons.map((c) => ({
      metric: c.metric,
      control: arms.control.metrics![c.metric] ?? [],
      treatment: arms.treatment.metrics![c.metric] ?? [],
      delta: c.delta,
      p: c.p,
      significant: c.significant,
    })),
  };
  return { report, chart };
}

/** Reads a result file and reports it; a bad file is an InputError naming it and the JSON path. */
export function readExperimentReport(
  file: string,
  options: Omit<ExperimentReportOptions, "file"> = {},
): ExperimentReportWithValues {
  const what = `a ${EXPERIMENT_RESULT_FORMAT} document or a TinyTroupe experiment results file`;
  return experimentReport(parseJsonText(readInputFile(file, "the result document"), file, what), {
    ...options,
    file,
  });
}

/** `experiment brainstorming-average: Its title · scale 0.1 · seed 42`: the line above the table and the chart. */
export function reportTitle({ experiment: e }: ExperimentReport): string {
  // Without a scenario to name it, the experiment is named after its file.
  const named =
    e.scenario !== null
      ? `experiment ${e.scenario}`
      : e.source !== null
        ? `experiment · ${basename(e.source)}`
        : "experiment";
  return [
    e.title === null ? named : `${named}: ${e.title}`,
    ...(e.scale === null ? [] : [`scale ${e.scale}`]),
    ...(e.seed === null ? [] : [`seed ${e.seed}`]),
  ].join(" · ");
}

function labelsOf({ experiment: e }: ExperimentReport): ComparisonLabels {
  return {
    control: e.control.name,
    treatment: e.treatment.name,
    alpha: e.alpha,
    ...(e.source === null ? {} : { source: e.source }),
  };
}

function armLines({ experiment: e }: ExperimentReport): string[] {
  return [e.control, e.treatment]
    .filter((a) => a.label !== null && a.label !== a.name)
    .map((a) => `${a.name}: ${a.label}`);
}

/**
 * What the judge could not measure, per arm, when anything: errored verdicts are missing from the metrics,
 * and a gate that passed messages unjudged did not correct them. A table that hid them would read as data.
 */
export function unmeasuredLines({ experiment: e }: ExperimentReport): string[] {
  const arms = [e.control, e.treatment];
  const line = (what: string, of: (a: ReportArm) => number | null) =>
    arms.some((a) => (of(a) ?? 0) > 0)
      ? [`${what}: ${arms.map((a) => `${a.name} ${of(a) ?? 0}`).join(" · ")}`]
      : [];
  return [
    ...line("errored verdicts (left out of the metrics)", (a) => a.errored),
    ...line("gate checks passed unjudged (the judge failed; the gate fails open)", (a) => a.gate_unjudged),
  ];
}

/** The report for a terminal: its title, the arms' labels, then the comparison table. */
export function renderExperimentReportTable(report: ExperimentReport): string {
  const head = [reportTitle(report), ...armLines(report).map((l) => `  ${l}`)];
  const unmeasured = unmeasuredLines(report);
  const tail = unmeasured.length > 0 ? `\n${unmeasured.join("\n")}\n` : "";
  return `${head.join("\n")}\n\n${renderComparisonTable(report, labelsOf(report))}${tail}`;
}

/** The report as Markdown: a heading, the arms' labels, then the comparison table. */
export function renderExperimentReportMarkdown(report: ExperimentReport): string {
  const head = [`### ${escapeMarkdown(reportTitle(report))}`, ""];
  const arms = armLines(report);
  if (arms.length > 0) head.push(...arms.map((l) => `- ${escapeMarkdown(l)}`), "");
  const unmeasured = unmeasuredLines(report);
  const tail =
    unmeasured.length > 0 ? `\n${unmeasured.map((l) => `- ${escapeMarkdown(l)}`).join("\n")}\n` : "";
  return `${head.join("\n")}\n${renderComparisonMarkdown(report, labelsOf(report))}${tail}`;
}
