// A comparison as a reader sees it: TinyTroupe's Table 1 layout, one row per metric — control and treatment
// mean±sd (n), Δ, percent change, t, df, p, the 95 % CI of Δ, Cohen's d and a significance mark — as a
// terminal table or a Markdown table, with the notes of undefined figures under it.
import type { ExperimentComparison, MetricComparison } from "./compare.ts";
import type { ArmSummary } from "./statistics.ts";

export interface ComparisonLabels {
  /** The control arm's name. */
  control: string;
  /** The treatment arm's name. */
  treatment: string;
  /** The significance level the comparison used. */
  alpha: number;
  /** Where the values came from (a file name), shown above the table. */
  source?: string;
}

const DASH = "–";
const HEADER = ["metric", "control", "treatment", "Δ", "%", "t", "df", "p", "95% CI of Δ", "d", "sig."];

const fixed = (x: number | null, digits = 2): string => {
  if (x === null) return DASH;
  const text = x.toFixed(digits);
  // -0.00 reads as a change where there is none.
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text;
};
/** A difference as the tables print it: `+0.80`, `-1.42`, `0.00`; a dash for null. */
export function formatSigned(x: number | null, digits = 2): string {
  const text = fixed(x, digits);
  return x !== null && x > 0 && text !== fixed(0, digits) ? `+${text}` : text;
}
const signed = formatSigned;
const arm = (a: ArmSummary): string =>
  a.mean === null ? `${DASH} (${a.n})` : `${fixed(a.mean)}±${fixed(a.sd)} (${a.n})`;

/** p as Table 1 prints it: 3 significant digits, in e-notation below 0.001. */
export function formatP(p: number | null): string {
  if (p === null) return DASH;
  if (p === 0) return "0";
  // 1.53e-08, as SciPy and TinyTroupe print it (JavaScript writes 1.53e-8).
  return p < 0.001 ? p.toExponential(2).replace(/e([+-])(\d)$/, "e$10$2") : p.toPrecision(3);
}

function cells(c: MetricComparison): string[] {
  return [
    c.metric,
    arm(c.control),
    arm(c.treatment),
    signed(c.delta),
    c.percent_change === null ? DASH : `${signed(c.percent_change, 1)}%`,
    signed(c.t),
    fixed(c.df, 1),
    formatP(c.p),
    c.ci95 === null ? DASH : `[${fixed(c.ci95[0])}, ${fixed(c.ci95[1])}]`,
    signed(c.cohen_d),
    c.significant === null ? DASH : c.significant ? "*" : "",
  ];
}

function caption(labels: ComparisonLabels): string {
  const from = labels.source ? ` (${labels.source})` : "";
  return `treatment "${labels.treatment}" vs control "${labels.control}"${from}`;
}

function legend(labels: ComparisonLabels): string {
  return `Δ = treatment − control · Welch's t-test, two-sided · * p < ${labels.alpha} · d = Cohen's d (pooled sd)`;
}

function notes(comparison: ExperimentComparison): string[] {
  return comparison.comparisons.filter((c) => c.note).map((c) => `${c.metric}: ${c.note}`);
}

/**
 * A plain-text table's lines: the header, a rule, the rows; the first `left` columns (1 by default)
 * left-aligned, the others right-aligned.
 */
export function alignedTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  { left = 1 }: { left?: number } = {},
): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i < left ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "─".repeat(w)).join("  "), ...rows.map(line)];
}

/** The comparison as a plain-text table for a terminal. */
export function renderComparisonTable(comparison: ExperimentComparison, labels: ComparisonLabels): string {
  const out = [caption(labels), "", ...alignedTable(HEADER, comparison.comparisons.map(cells))];
  out.push("", legend(labels));
  const notesShown = notes(comparison);
  if (notesShown.length > 0) out.push("", "Notes:", ...notesShown.map((n) => `  ${n}`));
  return `${out.join("\n")}\n`;
}

const escapeCell = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|");

/** The comparison as a GitHub-flavoured Markdown table. */
export function renderComparisonMarkdown(comparison: ExperimentComparison, labels: ComparisonLabels): string {
  const row = (r: string[]) => `| ${r.map(escapeCell).join(" | ")} |`;
  const out = [
    `**${escapeCell(caption(labels))}**`,
    "",
    row(HEADER),
    `|${HEADER.map((_, i) => (i === 0 ? " --- " : " ---: ")).join("|")}|`,
    ...comparison.comparisons.map((c) => row(cells(c))),
    "",
    legend(labels),
  ];
  const notesShown = notes(comparison);
  if (notesShown.length > 0) out.push("", ...notesShown.map((n) => `- ${escapeCell(n)}`));
  return `${out.join("\n")}\n`;
}
