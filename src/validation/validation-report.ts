// A validation as text: a terminal table and Markdown, one row per question (n, mean and sd per side, the
// tests' p-values, sd ratio, entropy, verdict), then each question's reasons. Question names and categories
// are data: escaped in Markdown, printed as they are in a terminal.
import { escapeMarkdown, markdownTable } from "../core/index.ts";
import { reasonThemesLines } from "./reason-themes.ts";
import type { Validation, ValidationQuestion } from "./validation-format.ts";
import { formatP } from "./verdict.ts";

/** The columns of a question's row, in the table's order (the verdict last). */
export const VALIDATION_HEADER: readonly string[] = [
  "question",
  "n real/sim",
  "mean real/sim",
  "sd real/sim",
  "entropy real/sim",
  "Welch p",
  "χ² p",
  "KS p",
  "W1",
  "sd ratio",
  "verdict",
];

const dash = "–";
const fixed = (x: number | null, digits = 2) => (x === null ? dash : x.toFixed(digits));
const pOf = (p: number | null | undefined) => (p === null || p === undefined ? dash : formatP(p));
const pair = (a: string, b: string) => `${a} / ${b}`;

/** A question's row as the table and Markdown show it, a cell per {@link VALIDATION_HEADER} column. */
export function validationCells(q: ValidationQuestion): string[] {
  const chi = q.chi2
    ? `${pOf(q.chi2.p)}${q.chi2.monte_carlo ? ` (MC ${pOf(q.chi2.monte_carlo.p)})` : ""}`
    : dash;
  return [
    q.question,
    pair(String(q.real.n), String(q.simulated.n)),
    pair(fixed(q.real.mean), fixed(q.simulated.mean)),
    pair(fixed(q.real.sd), fixed(q.simulated.sd)),
    pair(fixed(q.real.entropy_bits), fixed(q.simulated.entropy_bits)),
    pOf(q.welch?.p),
    chi,
    pOf(q.ks?.p),
    fixed(q.wasserstein_1, 3),
    fixed(q.sd_ratio),
    q.verdict,
  ];
}

function alignedTable(rows: readonly (readonly string[])[]): string[] {
  const all = [VALIDATION_HEADER, ...rows];
  const widths = VALIDATION_HEADER.map((_, i) => Math.max(...all.map((r) => [...r[i]!].length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => {
        const pad = " ".repeat(widths[i]! - [...cell].length);
        return i === 0 || i === row.length - 1 ? cell + pad : pad + cell;
      })
      .join("  ")
      .trimEnd();
  return [line(VALIDATION_HEADER), widths.map((w) => "─".repeat(w)).join("  "), ...rows.map(line)];
}

/** The verdicts counted, and what the exit code is. */
export function validationSummaryLine(v: Validation): string {
  const counts = Object.entries(v.summary.verdicts)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${n} ${verdict}`)
    .join(", ");
  return `${v.summary.questions} question(s): ${counts}. ${v.summary.failed === 0 ? "Every question is consistent with the real answers." : `${v.summary.failed} not consistent (exit 1).`}`;
}

/** The thresholds the verdicts used. */
export function validationThresholdsLine(v: Validation): string {
  const t = v.thresholds;
  return `alpha ${t.alpha}; collapsed below sd ratio ${t.collapse_sd_ratio} or entropy ratio ${t.collapse_entropy_ratio}; χ² expected counts below ${t.small_expected} get a Monte-Carlo p (seed ${t.seed})`;
}

/** The validation as a plain-text table for a terminal. */
export function renderValidationTable(v: Validation): string {
  const out = [
    `Validation: ${v.simulated.file} against ${v.real.file}`,
    "",
    ...alignedTable(v.questions.map(validationCells)),
    "",
  ];
  for (const q of v.questions) {
    out.push(`${q.question}: ${q.verdict}`);
    for (const reason of q.reasons) out.push(`  - ${reason}`);
  }
  if (v.reason_themes) out.push("", ...reasonThemesLines(v.reason_themes));
  out.push("", validationSummaryLine(v), `Thresholds: ${validationThresholdsLine(v)}.`);
  return `${out.join("\n")}\n`;
}

/** The validation as Markdown (a table, then each question's reasons). */
export function renderValidationMarkdown(v: Validation): string {
  const out = [
    `## Validation: ${escapeMarkdown(v.simulated.file)} against ${escapeMarkdown(v.real.file)}`,
    "",
    ...markdownTable(
      VALIDATION_HEADER.map((title, i) => ({ title, right: i > 0 && i < VALIDATION_HEADER.length - 1 })),
      v.questions.map((q) =>
        validationCells(q).map((c, i) =>
          i === 0 || i === VALIDATION_HEADER.length - 1 ? escapeMarkdown(c) : c,
        ),
      ),
    ),
    "",
  ];
  for (const q of v.questions) {
    out.push(`**${escapeMarkdown(q.question)}: ${q.verdict}**`, "");
    for (const reason of q.reasons) out.push(`- ${escapeMarkdown(reason)}`);
    out.push("");
  }
  if (v.reason_themes)
    out.push(
      ...reasonThemesLines(v.reason_themes).map(
        (l, i) => `${i === 0 ? "" : "- "}${escapeMarkdown(l.trim())}`,
      ),
      "",
    );
  out.push(validationSummaryLine(v), "", `Thresholds: ${escapeMarkdown(validationThresholdsLine(v))}.`);
  return `${out.join("\n")}\n`;
}
