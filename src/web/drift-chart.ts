// The drift chart of an agent: its dimension scores (0–9) over its completed runs as server-rendered SVG
// — one line per dimension, each baseline a dashed reference line, regressions ringed — so it needs no
// script and no inline style (colours come from the stylesheet's series classes).
import { score9, when } from "./format.ts";
import { type Html, html } from "./html.ts";

export interface DriftPoint {
  run_id: string;
  created_at: string;
  /** Dimension → score (0–9); a dimension the run did not score is absent or null. */
  scores: Readonly<Record<string, number | null | undefined>>;
}

export interface DriftChartInput {
  /** Oldest first. */
  points: readonly DriftPoint[];
  /** The dimensions to draw, in legend order. */
  dimensions: readonly string[];
  /** Dimension → its baseline score, when there is one. */
  baselines: Readonly<Record<string, number | null | undefined>>;
  /** Which (run, dimension) scores are regressions. */
  isRegression: (point: DriftPoint, dimension: string) => boolean;
}

const WIDTH = 760;
const HEIGHT = 280;
const PAD = { left: 36, right: 16, top: 14, bottom: 34 };
const MAX = 9;

const round1 = (n: number) => Math.round(n * 10) / 10;

export function driftChart({ points, dimensions, baselines, isRegression }: DriftChartInput): Html {
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) =>
    round1(PAD.left + (points.length <= 1 ? plotWidth / 2 : (i * plotWidth) / (points.length - 1)));
  const y = (score: number) =>
    round1(PAD.top + plotHeight - (Math.min(MAX, Math.max(0, score)) / MAX) * plotHeight);
  const series = (i: number) => `series-${i % 8}`;
  const grid = [0, 3, 6, 9].map(
    (v) =>
      html`<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v)}" y2="${y(v)}"></line><text class="axis" x="${PAD.left - 8}" y="${y(v) + 4}" text-anchor="end">${v}</text>`,
  );
  // At most about eight date labels under the axis, always the first and the last run.
  const step = Math.max(1, Math.ceil(points.length / 8));
  const ticks = points.map((p, i) =>
    i % step === 0 || i === points.length - 1
      ? html`<text class="axis" x="${x(i)}" y="${HEIGHT - 12}" text-anchor="middle">${when(p.created_at).slice(5, 10)}</text>`
      : "",
  );
  const baselineLines = dimensions.map((d, i) => {
    const b = baselines[d];
    return typeof b === "number"
      ? html`<line class="baseline ${series(i)}" data-dimension="${d}" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(b)}" y2="${y(b)}"><title>${d} baseline ${score9(b)}</title></line>`
      : "";
  });
  const lines = dimensions.map((d, i) => {
    const scored = points
      .map((p, index) => ({ p, index, score: p.scores[d] }))
      .filter((s): s is { p: DriftPoint; index: number; score: number } => typeof s.score === "number");
    if (scored.length === 0) return "";
    return html`<g class="dimension ${series(i)}" data-dimension="${d}">
<polyline class="line" points="${scored.map((s) => `${x(s.index)},${y(s.score)}`).join(" ")}"></polyline>
${scored.map((s) => {
  const regression = isRegression(s.p, d);
  return html`<a href="/runs/${s.p.run_id}"><circle class="${regression ? "point regression" : "point"}" cx="${x(s.index)}" cy="${y(s.score)}" r="${regression ? 6 : 3.5}"><title>${d} ${score9(s.score)} on ${when(s.p.created_at)}${regression ? " — regression" : ""}</title></circle></a>`;
})}
</g>`;
  });
  return html`<figure class="drift">
<svg class="drift-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Dimension scores over ${points.length} runs, with baselines">
${grid}${ticks}${baselineLines}${lines}
</svg>
<figcaption><ul class="legend">${dimensions.map(
    (d, i) =>
      html`<li class="${series(i)}"><span class="swatch"></span>${d}${
        typeof baselines[d] === "number"
          ? html` <span class="muted">(baseline ${score9(baselines[d])}, dashed)</span>`
          : ""
      }</li>`,
  )}<li class="regression-key"><span class="ring"></span>regression</li></ul></figcaption>
</figure>`;
}
