// Prints a `dramaturg.calibration/v1` document for a person: a terminal table (flagged propositions first,
// then the rest, the overall line, the raters' ceiling, the flagged ones' worst items) or Markdown for a
// pull request. Pure: the same document gives the same text.

import { padColumns } from "../regression/index.ts";
import type {
  CalibrationDisagreement,
  CalibrationFigures,
  CalibrationProposition,
  CalibrationResult,
} from "./calibrate.ts";
import type { CalibrationComparison } from "./compare-judges.ts";
import { renderOrderEffects, renderOrderEffectsMarkdown } from "./order-effects-report.ts";

const COLUMNS = ["", "dimension", "proposition", "n", "κ", "ρ", "MAE", "bias", "exact", "±1"];

const fixed = (value: number | null, digits = 2) => (value === null ? "–" : value.toFixed(digits));
const signed = (value: number | null) =>
  value === null ? "–" : `${value > 0 ? "+" : value < 0 ? "−" : ""}${Math.abs(value).toFixed(2)}`;
const share = (value: number | null) => (value === null ? "–" : `${Math.round(value * 100)}%`);

/** Flagged first, then the rest; each part in the document's (dimension, proposition) order. */
export function propositionsInReportOrder(result: CalibrationResult): CalibrationProposition[] {
  return [...result.propositions.filter((p) => p.flagged), ...result.propositions.filter((p) => !p.flagged)];
}

function figureCells(f: CalibrationFigures): string[] {
  const n = f.n_judged === f.n ? String(f.n) : `${f.n_judged}/${f.n}`;
  return [
    n,
    fixed(f.kappa_quadratic),
    fixed(f.spearman),
    fixed(f.mae),
    signed(f.bias),
    share(f.exact),
    share(f.within_1),
  ];
}

function mark(p: CalibrationProposition): string {
  if (p.flagged) return p.too_few ? "✗ (few)" : "✗";
  return p.too_few ? "· (few)" : "✓";
}

function describeTarget(d: CalibrationDisagreement): string {
  if (d.message_id !== undefined) return `${d.message_id} (${d.speaker ?? d.agent_id})`;
  if (d.agent_id !== undefined) return `${d.speaker ?? d.agent_id} as a whole`;
  return `channel ${d.channel}`;
}

const oneLine = (text: string, max = 160) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export function judgeName(result: CalibrationResult): string {
  return result.judge ? `${result.judge.provider}:${result.judge.model}` : "an unknown judge";
}

function notes(result: CalibrationResult): string[] {
  const out = [
    `Scores are raw claim scores 0–9; the human reference is the mean of the raters, rounded half up for κ, exact and ±1.`,
    `Flagged: κ < ${result.minimum_kappa} with at least 2 judged items; "few": under 5 judged items, too few to act on alone.`,
  ];
  if (result.judge_trials > 1)
    out.push(
      `The judge scored each item in ${result.judge_trials} trials: its score is their mean, rounded half up.`,
    );
  if (result.not_judged > 0)
    out.push(`${result.not_judged} labelled item(s) not judged in this run, left out of every figure.`);
  return out;
}

/** Where the judge's scores came from: an evaluation's stored verdicts, or judged for this calibration. */
function whereFrom(result: CalibrationResult): string {
  const of = result.calibrated_evaluation ? ` evaluation ${result.calibrated_evaluation.slice(0, 8)}` : "";
  return result.judged ? `judging the labelled items afresh${of ? ` of${of}` : ""}` : `on${of}`;
}

/** The terminal table. */
export function renderCalibrationTable(result: CalibrationResult): string {
  const out: string[] = [];
  out.push(
    `Calibration${result.evaluation_id ? ` ${result.evaluation_id.slice(0, 8)}` : ""} of ${judgeName(result)} ${whereFrom(result)} against ${result.labels.join(", ")}`,
    "",
  );
  for (const warning of result.warnings) out.push(`! ${warning}`);
  if (result.warnings.length > 0) out.push("");
  const rows = [COLUMNS];
  for (const p of propositionsInReportOrder(result))
    rows.push([mark(p), p.dimension, p.proposition_id, ...figureCells(p)]);
  rows.push(["", "overall", "", ...figureCells(result.overall)]);
  out.push(padColumns(rows), "");
  const r = result.raters;
  out.push(
    r.items > 0
      ? `Raters' own agreement (the ceiling), over ${r.items} item(s) with 2+ raters: α interval ${fixed(r.alpha_interval)}, α ordinal ${fixed(r.alpha_ordinal)}`
      : "Raters' own agreement: no item has two raters",
  );
  const flagged = result.propositions.filter((p) => p.flagged);
  for (const p of flagged) {
    out.push(
      "",
      `✗ ${p.dimension}/${p.proposition_id}: κ ${fixed(p.kappa_quadratic)}, largest disagreements`,
    );
    for (const d of p.disagreements ?? []) {
      out.push(`  ${describeTarget(d)}: judge ${d.judge}, people ${fixed(d.human_mean, 1)}`);
      if (d.text !== undefined) out.push(`    message: ${oneLine(d.text)}`);
      for (const rating of d.raters)
        out.push(`    ${rating.rater}: ${rating.score}${rating.note ? ` — ${oneLine(rating.note)}` : ""}`);
      out.push(`    judge: ${oneLine(d.reasoning)}`);
    }
  }
  out.push("", ...notes(result));
  if (result.order_effects) out.push("", renderOrderEffects(result.order_effects).trimEnd());
  return `${out.join("\n")}\n`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();

/** Markdown for a pull request. */
export function renderCalibrationMarkdown(result: CalibrationResult): string {
  const flagged = result.propositions.filter((p) => p.flagged);
  const out: string[] = [
    `## Judge calibration: ${judgeName(result)}`,
    "",
    flagged.length > 0
      ? `**${flagged.length} proposition(s) below κ ${result.minimum_kappa}**: the judge is not calibrated well enough there.`
      : `Every proposition with enough items reaches κ ${result.minimum_kappa}.`,
    "",
    ...result.warnings.flatMap((w) => [`> **Warning:** ${cell(w)}`, ""]),
    `| | dimension | proposition | ${COLUMNS.slice(3).join(" | ")} |`,
    `|${"---|".repeat(COLUMNS.length)}`,
  ];
  for (const p of propositionsInReportOrder(result))
    out.push(`| ${mark(p)} | ${p.dimension} | ${p.proposition_id} | ${figureCells(p).join(" | ")} |`);
  out.push(`| | **overall** | | ${figureCells(result.overall).join(" | ")} |`, "");
  const r = result.raters;
  out.push(
    r.items > 0
      ? `Raters' own agreement (the ceiling), ${r.items} item(s): α interval ${fixed(r.alpha_interval)}, α ordinal ${fixed(r.alpha_ordinal)}.`
      : "Raters' own agreement: no item has two raters.",
  );
  for (const p of flagged) {
    out.push("", `### ${p.dimension}/${p.proposition_id} (κ ${fixed(p.kappa_quadratic)})`, "");
    out.push("| target | message | people | judge | reasoning |", "|---|---|---|---|---|");
    for (const d of p.disagreements ?? []) {
      const people = d.raters
        .map((x) => `${x.rater}: ${x.score}${x.note ? ` (${cell(x.note)})` : ""}`)
        .join("; ");
      out.push(
        `| ${cell(describeTarget(d))} | ${cell(oneLine(d.text ?? ""))} | ${cell(people)} | ${d.judge} | ${cell(oneLine(d.reasoning))} |`,
      );
    }
  }
  out.push("", ...notes(result).map((line) => `_${line}_`));
  if (result.order_effects) out.push("", renderOrderEffectsMarkdown(result.order_effects).trimEnd());
  return `${out.join("\n")}\n`;
}

const COMPARISON_COLUMNS = [
  "judge",
  "n",
  "κ",
  "κ 95% CI",
  "ρ",
  "MAE",
  "bias",
  "exact",
  "flagged",
  "tokens",
  "cost",
];

function comparisonCells(c: CalibrationComparison["judges"][number]): string[] {
  const tokens = c.token_usage.input_tokens + c.token_usage.output_tokens;
  return [
    c.judge,
    String(c.n_judged),
    fixed(c.kappa_quadratic),
    c.kappa_ci ? `${fixed(c.kappa_ci[0])}–${fixed(c.kappa_ci[1])}` : "–",
    fixed(c.spearman),
    fixed(c.mae),
    signed(c.bias),
    share(c.exact),
    `${c.flagged}/${c.propositions}`,
    tokens.toLocaleString("en-US"),
    c.cost_usd === null ? "?" : `$${c.cost_usd.toFixed(4)}`,
  ];
}

const COST_NOTE =
  'Cost is at the built-in or dramaturg.yaml prices ("?": no price known; cached verdicts cost nothing again).';

/** Several judges on the same items: the comparison first, then each judge's calibration. */
export function renderComparisonTable(comparison: CalibrationComparison): string {
  const out = [
    `Judges compared on the same labelled items (${comparison.judges.length})`,
    "",
    padColumns([COMPARISON_COLUMNS, ...comparison.judges.map(comparisonCells)]),
    "",
    COST_NOTE,
  ];
  for (const result of comparison.calibrations) out.push("", renderCalibrationTable(result).trimEnd());
  return `${out.join("\n")}\n`;
}

export function renderComparisonMarkdown(comparison: CalibrationComparison): string {
  const out = [
    "## Judges compared",
    "",
    `| ${COMPARISON_COLUMNS.join(" | ")} |`,
    `|${"---|".repeat(COMPARISON_COLUMNS.length)}`,
    ...comparison.judges.map((c) => `| ${comparisonCells(c).map(cell).join(" | ")} |`),
    "",
    COST_NOTE,
  ];
  for (const result of comparison.calibrations)
    out.push("", renderCalibrationMarkdown(result).replace(/^## /, "### ").trimEnd());
  return `${out.join("\n")}\n`;
}
