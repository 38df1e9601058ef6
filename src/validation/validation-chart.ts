// A validation as a picture: for each question a panel with the real and the simulated answers' shares side
// by side, per scale point, category or first choice (numeric answers: per bin of ten over both sides'
// range), with the verdict underneath. A self-contained SVG (no script, no external fonts or styles), fixed
// layout and number formatting so the same document gives the same bytes; every text is escaped, for
// question names and categories are data.
import { escapeXml } from "../core/index.ts";
import type { Validation, ValidationQuestion } from "./validation-format.ts";
import { formatP } from "./verdict.ts";

const PANEL_WIDTH = 300;
const PANEL_HEIGHT = 250;
const PANELS_PER_ROW = 3;
const TOP = 70;
const MARGIN = 16;
const PLOT = { left: 40, right: 288, top: 34, bottom: 186 };
const COLOURS = { real: "#4f6d8a", simulated: "#c0522b" };
const VERDICT_COLOURS: Record<ValidationQuestion["verdict"], string> = {
  consistent: "#2f7d32",
  shifted: "#b26a00",
  collapsed: "#b3261e",
  different: "#b3261e",
};
const BINS = 10;

const num = (x: number): string => {
  const text = x.toFixed(1);
  return text === "-0.0" ? "0.0" : text;
};

function text(x: number, y: number, content: string, attributes = ""): string {
  return `<text x="${num(x)}" y="${num(y)}"${attributes}>${escapeXml(content)}</text>`;
}

/** Category labels and each side's shares of them. */
interface Bars {
  labels: string[];
  real: number[];
  simulated: number[];
}

function barsOf(q: ValidationQuestion, numeric: NumericAnswers | undefined): Bars {
  if (q.real.counts && q.simulated.counts) {
    const labels = [...new Set([...Object.keys(q.real.counts), ...Object.keys(q.simulated.counts)])];
    const shares = (counts: Record<string, number>, n: number) =>
      labels.map((l) => (n === 0 ? 0 : (counts[l] ?? 0) / n));
    return {
      labels,
      real: shares(q.real.counts, q.real.n),
      simulated: shares(q.simulated.counts, q.simulated.n),
    };
  }
  if (!numeric) return { labels: [], real: [], simulated: [] };
  const all = [...Array.from(numeric.real), ...Array.from(numeric.simulated)];
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const v of all) {
    low = Math.min(low, v);
    high = Math.max(high, v);
  }
  if (!(high > low)) high = low + 1;
  const width = (high - low) / BINS;
  const hist = (values: ArrayLike<number>) => {
    const bins = new Array<number>(BINS).fill(0);
    for (let i = 0; i < values.length; i++)
      bins[Math.min(BINS - 1, Math.floor((values[i]! - low) / width))]!++;
    return bins.map((b) => (values.length === 0 ? 0 : b / values.length));
  };
  const short = (x: number) => String(Number(x.toPrecision(3)));
  return {
    labels: Array.from({ length: BINS }, (_, i) => short(low + i * width)),
    real: hist(numeric.real),
    simulated: hist(numeric.simulated),
  };
}

function panel(q: ValidationQuestion, numeric: NumericAnswers | undefined): string[] {
  const bars = barsOf(q, numeric);
  const top = Math.max(0.05, ...bars.real, ...bars.simulated);
  const scale = Math.ceil(top * 10) / 10;
  const y = (share: number) => PLOT.bottom - (share / scale) * (PLOT.bottom - PLOT.top);
  const out = [
    `<rect x="0.5" y="0.5" width="${PANEL_WIDTH - 1}" height="${PANEL_HEIGHT - 1}" fill="#ffffff" stroke="#d0d4d9"/>`,
    text(PANEL_WIDTH / 2, 20, q.question, ' text-anchor="middle" font-weight="bold"'),
  ];
  for (let i = 0; i <= 4; i++) {
    const share = (scale * i) / 4;
    out.push(
      `<line x1="${PLOT.left}" y1="${num(y(share))}" x2="${PLOT.right}" y2="${num(y(share))}" stroke="#eef0f2"/>`,
      text(
        PLOT.left - 4,
        y(share) + 4,
        `${Math.round(share * 100)}%`,
        ' text-anchor="end" fill="#6b7280" font-size="10"',
      ),
    );
  }
  const slot = (PLOT.right - PLOT.left) / Math.max(1, bars.labels.length);
  const barWidth = Math.min(18, slot * 0.4);
  bars.labels.forEach((label, i) => {
    const centre = PLOT.left + slot * (i + 0.5);
    for (const [s, share] of [
      ["real", bars.real[i]!],
      ["simulated", bars.simulated[i]!],
    ] as const) {
      const x = s === "real" ? centre - barWidth : centre;
      out.push(
        `<rect x="${num(x)}" y="${num(y(share))}" width="${num(barWidth)}" height="${num(PLOT.bottom - y(share))}" fill="${COLOURS[s]}"/>`,
      );
    }
    out.push(text(centre, PLOT.bottom + 14, label, ' text-anchor="middle" font-size="10"'));
  });
  out.push(
    `<line x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}" stroke="#9ca3af"/>`,
  );
  const figures = [
    q.welch ? `Welch p ${formatP(q.welch.p)}` : undefined,
    q.chi2 ? `χ² p ${formatP(q.chi2.monte_carlo?.p ?? q.chi2.p)}` : undefined,
    q.ks ? `KS p ${formatP(q.ks.p)}` : undefined,
    q.sd_ratio !== null ? `sd ratio ${q.sd_ratio.toFixed(2)}` : undefined,
  ].filter((f) => f !== undefined);
  out.push(
    text(
      PANEL_WIDTH / 2,
      PANEL_HEIGHT - 34,
      figures.join(" · "),
      ' text-anchor="middle" fill="#6b7280" font-size="10"',
    ),
    text(
      PANEL_WIDTH / 2,
      PANEL_HEIGHT - 14,
      q.verdict,
      ` text-anchor="middle" font-weight="bold" fill="${VERDICT_COLOURS[q.verdict]}"`,
    ),
  );
  return out;
}

/** A numeric question's answers, for its histogram (the document keeps no counts for them). */
export interface NumericAnswers {
  real: ArrayLike<number>;
  simulated: ArrayLike<number>;
}

/**
 * The chart as SVG text: one panel per question, three to a row, in the document's order. `numeric` gives
 * the answers of numeric questions by name (without them such a panel has no bars). `fluid` leaves out its
 * width and height, so that inline in a page it takes the width it is given (a phone's) at its aspect ratio.
 */
export function renderValidationChart(
  v: Validation,
  numeric: ReadonlyMap<string, NumericAnswers> = new Map(),
  { fluid = false }: { fluid?: boolean } = {},
): string {
  const n = v.questions.length;
  const columns = Math.max(1, Math.min(PANELS_PER_ROW, n));
  const rows = Math.max(1, Math.ceil(n / PANELS_PER_ROW));
  const width = MARGIN * 2 + columns * PANEL_WIDTH + (columns - 1) * MARGIN;
  const height = TOP + rows * PANEL_HEIGHT + (rows - 1) * MARGIN + MARGIN;
  const name = (file: string) => file.split(/[\\/]/).at(-1)!;
  const title = `Validation: ${name(v.simulated.file)} against ${name(v.real.file)}`;
  const legend = (["real", "simulated"] as const).map((s, i) => {
    const x = MARGIN + i * 140;
    return `<rect x="${x}" y="38" width="10" height="10" fill="${COLOURS[s]}"/>${text(x + 16, 48, s === "real" ? "real answers" : "simulated answers")}`;
  });
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg"${fluid ? "" : ` width="${width}" height="${height}"`} viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12" fill="#1f2937">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#f8f9fa"/>`,
    text(MARGIN, 24, title, ' font-size="15" font-weight="bold"'),
    ...legend,
  ];
  v.questions.forEach((q, i) => {
    const x = MARGIN + (i % PANELS_PER_ROW) * (PANEL_WIDTH + MARGIN);
    const y = TOP + Math.floor(i / PANELS_PER_ROW) * (PANEL_HEIGHT + MARGIN);
    out.push(`<g transform="translate(${x},${y})">`, ...panel(q, numeric.get(q.question)), "</g>");
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
