// An experiment as a picture: for each metric a panel with the control's and the treatment's values as dots,
// each arm's mean and the 95 % confidence interval of that mean, and Δ and p underneath. A self-contained SVG
// (no scripts, no external fonts or styles) with a fixed layout and fixed number formatting, so the same
// input gives the same bytes; every piece of text in it is escaped, for metric names and arm names are data.
import { escapeXml } from "../core/index.ts";
import { formatP, formatSigned } from "./comparison-report.ts";
import { compareArms } from "./statistics.ts";

/** One panel of the chart: a metric and both arms' values. */
export interface ChartMetric {
  metric: string;
  control: readonly number[];
  treatment: readonly number[];
  /** Δ = mean(treatment) − mean(control), printed under the panel; null where undefined. */
  delta: number | null;
  /** Welch's two-sided p, printed under the panel; null where undefined. */
  p: number | null;
  /** Marked with `*` when true. */
  significant: boolean | null;
}

export interface ExperimentChartInput {
  /** The line at the top: which experiment. */
  title: string;
  /** The arms' names, in the legend and under each panel. */
  control: string;
  treatment: string;
  /** The significance level of the `*` marks. */
  alpha: number;
  metrics: readonly ChartMetric[];
}

/**
 * The 95 % confidence interval of the mean of `values` (Student's t with n − 1 degrees of freedom); null with
 * fewer than 2 values or none that differ. It is Welch's interval of `values` against a constant sample: a
 * constant has no variance, so the interval is the mean's own and the library's t quantile is the one used.
 */
export function meanCi95(values: readonly number[]): [number, number] | null {
  return compareArms([0, 0], values).ci95;
}

const PANEL_WIDTH = 240;
const PANEL_HEIGHT = 290;
const PANELS_PER_ROW = 3;
const TOP = 84;
const MARGIN = 16;
/** The plot area inside a panel. */
const PLOT = { left: 44, right: 228, top: 36, bottom: 226 };
const ARM_X = [PLOT.left + (PLOT.right - PLOT.left) * 0.28, PLOT.left + (PLOT.right - PLOT.left) * 0.72];
const COLOURS = ["#4f6d8a", "#c0522b"];
/** Half the width of an arm's strip of dots. */
const SPREAD = 26;
/** The golden ratio's fraction: index × φ mod 1 spreads dots evenly and the same way every time. */
const PHI = 0.6180339887498949;

const num = (x: number): string => {
  const text = x.toFixed(1);
  return text === "-0.0" ? "0.0" : text;
};

/** A tick step of 1, 2 or 5 × 10^k giving at most 6 intervals over `span`. */
function tickStep(span: number): number {
  const raw = span / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

/** The y range of a panel: 0–9 when everything fits in it (the judge's scale), else a range that holds it all. */
function yRange(numbers: readonly number[]): { low: number; high: number; step: number } {
  let low = Math.min(0, ...numbers);
  let high = Math.max(9, ...numbers);
  if (low === 0 && high === 9) return { low, high, step: 1 };
  if (high === low) high = low + 1;
  const step = tickStep(high - low);
  low = Math.floor(low / step) * step;
  high = Math.ceil(high / step) * step;
  return { low, high, step };
}

function text(x: number, y: number, content: string, attributes = ""): string {
  return `<text x="${num(x)}" y="${num(y)}"${attributes}>${escapeXml(content)}</text>`;
}

function panel(m: ChartMetric, labels: readonly string[]): string[] {
  const arms = [m.control, m.treatment].map((values) => values.filter(Number.isFinite));
  // Each arm against a constant sample (see meanCi95): its mean, and the interval of that mean.
  const own = arms.map((values) => compareArms([0, 0], values));
  const intervals = own.map((c) => c.ci95);
  const means = own.map((c) => c.treatment.mean);
  const all = [...arms.flat(), ...intervals.flatMap((ci) => ci ?? [])];
  const { low, high, step } = yRange(all);
  const y = (v: number) => PLOT.bottom - ((v - low) / (high - low)) * (PLOT.bottom - PLOT.top);
  const out: string[] = [
    `<rect x="0.5" y="0.5" width="${PANEL_WIDTH - 1}" height="${PANEL_HEIGHT - 1}" fill="#ffffff" stroke="#d0d4d9"/>`,
    text(PANEL_WIDTH / 2, 22, m.metric, ' text-anchor="middle" font-weight="bold"'),
  ];
  for (let i = 0; low + i * step <= high + step / 1e6; i++) {
    const v = low + i * step;
    out.push(
      `<line x1="${PLOT.left}" y1="${num(y(v))}" x2="${PLOT.right}" y2="${num(y(v))}" stroke="#eef0f2"/>`,
      text(PLOT.left - 6, y(v) + 4, String(Number(v.toPrecision(12))), ' text-anchor="end" fill="#6b7280"'),
    );
  }
  out.push(
    `<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}" stroke="#9ca3af"/>`,
  );
  arms.forEach((values, a) => {
    const x = ARM_X[a]!;
    const colour = COLOURS[a]!;
    values.forEach((v, i) => {
      const dx = (((i * PHI) % 1) - 0.5) * 2 * SPREAD;
      out.push(
        `<circle cx="${num(x + dx)}" cy="${num(y(v))}" r="2.5" fill="${colour}" fill-opacity="0.35"/>`,
      );
    });
    const ci = intervals[a];
    if (ci) {
      const [top, bottom] = [y(ci[1]), y(ci[0])];
      out.push(
        `<line x1="${num(x)}" y1="${num(top)}" x2="${num(x)}" y2="${num(bottom)}" stroke="#1f2937" stroke-width="1.5"/>`,
        `<line x1="${num(x - 8)}" y1="${num(top)}" x2="${num(x + 8)}" y2="${num(top)}" stroke="#1f2937" stroke-width="1.5"/>`,
        `<line x1="${num(x - 8)}" y1="${num(bottom)}" x2="${num(x + 8)}" y2="${num(bottom)}" stroke="#1f2937" stroke-width="1.5"/>`,
      );
    }
    const mean = means[a] ?? null;
    if (mean !== null)
      out.push(
        `<line x1="${num(x - SPREAD)}" y1="${num(y(mean))}" x2="${num(x + SPREAD)}" y2="${num(y(mean))}" stroke="#1f2937" stroke-width="3"/>`,
      );
    out.push(
      text(x, PLOT.bottom + 18, labels[a]!, ` text-anchor="middle" fill="${colour}"`),
      text(x, PLOT.bottom + 32, `n ${values.length}`, ' text-anchor="middle" fill="#6b7280"'),
    );
  });
  const mark = m.significant ? " *" : "";
  out.push(
    text(
      PANEL_WIDTH / 2,
      PANEL_HEIGHT - 14,
      `Δ ${formatSigned(m.delta)} · p ${formatP(m.p)}${mark}`,
      ' text-anchor="middle"',
    ),
  );
  return out;
}

/** The chart as SVG text: one panel per metric, three to a row, in the order given. */
export function renderExperimentChart({
  title,
  control,
  treatment,
  alpha,
  metrics,
}: ExperimentChartInput): string {
  const columns = Math.max(1, Math.min(PANELS_PER_ROW, metrics.length));
  const rows = Math.max(1, Math.ceil(metrics.length / PANELS_PER_ROW));
  const width = MARGIN * 2 + columns * PANEL_WIDTH + (columns - 1) * MARGIN;
  const height = TOP + rows * PANEL_HEIGHT + (rows - 1) * MARGIN + MARGIN;
  const legend = [control, treatment].map((label, a) => {
    const x = MARGIN + a * 200;
    return [`<circle cx="${x + 5}" cy="46" r="5" fill="${COLOURS[a]}"/>`, text(x + 16, 50, label, "")].join(
      "",
    );
  });
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12" fill="#1f2937">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#f8f9fa"/>`,
    text(MARGIN, 24, title, ' font-size="15" font-weight="bold"'),
    ...legend,
    text(
      MARGIN,
      68,
      `dots: values · bar: mean · whiskers: 95% CI of the mean · * p < ${alpha}`,
      ' fill="#6b7280" font-size="11"',
    ),
  ];
  metrics.forEach((m, i) => {
    const x = MARGIN + (i % PANELS_PER_ROW) * (PANEL_WIDTH + MARGIN);
    const y = TOP + Math.floor(i / PANELS_PER_ROW) * (PANEL_HEIGHT + MARGIN);
    out.push(`<g transform="translate(${x},${y})">`, ...panel(m, [control, treatment]), "</g>");
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
