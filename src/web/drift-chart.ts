// The drift chart of an agent: its dimension scores (0–9) over time as server-rendered SVG — x is each
// run's created_at (so a burst of runs bunches and a quiet month shows as a gap), one line per dimension,
// each baseline a dashed reference line, regressions ringed — so it needs no script and no inline style
// (colours and the phone-width font sizes come from the stylesheet's classes).
import { dimensionVerdictsPath } from "../regression/index.ts";
import { hrefWith, score9, when } from "./format.ts";
import { type Html, html } from "./html.ts";

export interface DriftPoint {
  run_id: string;
  created_at: string;
  /** Dimension → score (0–9); a dimension the run did not score is absent or null. */
  scores: Readonly<Record<string, number | null | undefined>>;
  /** The agent's completed run before this one, which a regression is compared with. */
  previous_run_id?: string;
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
const HEIGHT = 320;
// Room for the axis labels and titles at the largest font the stylesheet gives them (a phone's, where
// the chart is drawn at under half its size): about 27 units, so a label of 7 characters is ~115 wide.
const PAD = { left: 76, right: 64, top: 24, bottom: 84 };
const MAX = 9;
/** Few enough that labels ~115 units wide never touch: ticks are at least a fifth of the axis apart. */
export const MAX_TICKS = 5;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The narrowest time axis: a single run (or a burst within seconds) still gets minute ticks around it. */
const MIN_SPAN = 4 * MINUTE;

const round1 = (n: number) => Math.round(n * 10) / 10;

export interface TimeTick {
  at: number;
  label: string;
}

type Unit = "minute" | "day" | "month" | "year";
const STEPS: readonly [Unit, number][] = [
  ["minute", 1],
  ["minute", 2],
  ["minute", 5],
  ["minute", 10],
  ["minute", 15],
  ["minute", 30],
  ["minute", 60],
  ["minute", 120],
  ["minute", 180],
  ["minute", 360],
  ["minute", 720],
  ["day", 1],
  ["day", 2],
  ["day", 7],
  ["day", 14],
  ["month", 1],
  ["month", 2],
  ["month", 3],
  ["month", 6],
  ["year", 1],
  ["year", 2],
  ["year", 5],
  ["year", 10],
  ["year", 25],
  ["year", 50],
  ["year", 100],
];

const iso = (t: number) => new Date(t).toISOString();

/** The round times of one step within [from, to], in UTC. */
function ticksOf(unit: Unit, step: number, from: number, to: number): number[] {
  const out: number[] = [];
  if (unit === "minute" || unit === "day") {
    const size = (unit === "minute" ? MINUTE : DAY) * step;
    for (let t = Math.ceil(from / size) * size; t <= to; t += size) out.push(t);
    return out;
  }
  const start = new Date(from);
  const months = unit === "month" ? step : 12 * step;
  let index = start.getUTCFullYear() * 12 + start.getUTCMonth();
  index = Math.ceil(index / months) * months;
  for (; ; index += months) {
    const t = Date.UTC(Math.floor(index / 12), index % 12, 1);
    if (t > to) return out;
    if (t >= from) out.push(t);
  }
}

/**
 * At most {@link MAX_TICKS} round times across [from, to], labelled for the span: `14:05` within a day
 * (midnight as its date `11-27`), `11-27` over days, `2026-11` over months, `2026` over years. The finest
 * step that fits is chosen; clock times only when the span is under a day, so no two labels repeat.
 */
export function timeTicks(from: number, to: number): TimeTick[] {
  const span = to - from;
  for (const [unit, step] of STEPS) {
    if (unit === "minute" && span >= DAY) continue;
    const at = ticksOf(unit, step, from, to);
    if (at.length > MAX_TICKS) continue;
    return at.map((t) => ({ at: t, label: tickLabel(unit, t) }));
  }
  return [];
}

function tickLabel(unit: Unit, t: number): string {
  const text = iso(t);
  if (unit === "minute") return text.slice(11, 16) === "00:00" ? text.slice(5, 10) : text.slice(11, 16);
  if (unit === "day") return text.slice(5, 10);
  if (unit === "month") return text.slice(0, 7);
  return text.slice(0, 4);
}

/** The time axis: the runs' first and last times, widened to {@link MIN_SPAN} around their middle. */
function timeDomain(points: readonly DriftPoint[]): [number, number] {
  const times = points.map((p) => Date.parse(p.created_at));
  const [first, last] = [Math.min(...times), Math.max(...times)];
  if (last - first >= MIN_SPAN) return [first, last];
  const middle = (first + last) / 2;
  return [middle - MIN_SPAN / 2, middle + MIN_SPAN / 2];
}

/** The x-axis title: the time zone and the dates the axis covers (the tick labels may omit them). */
function timeTitle(from: number, to: number): string {
  const [a, b] = [iso(from).slice(0, 10), iso(to).slice(0, 10)];
  return `run time (UTC), ${a === b ? a : `${a} – ${b}`}`;
}

export function driftChart({ points, dimensions, baselines, isRegression }: DriftChartInput): Html {
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  const [from, to] = points.length === 0 ? [0, MIN_SPAN] : timeDomain(points);
  const xAt = (t: number) => round1(PAD.left + ((t - from) / (to - from)) * plotWidth);
  const x = (p: DriftPoint) => xAt(Date.parse(p.created_at));
  const y = (score: number) =>
    round1(PAD.top + plotHeight - (Math.min(MAX, Math.max(0, score)) / MAX) * plotHeight);
  const series = (i: number) => `series-${i % 8}`;
  const grid = [0, 3, 6, 9].map(
    (v) =>
      html`<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v)}" y2="${y(v)}"></line><text class="axis" x="${PAD.left - 8}" y="${y(v)}" dominant-baseline="middle" text-anchor="end">${v}</text>`,
  );
  const ticks = timeTicks(from, to).map(
    (t) =>
      html`<line class="tick" x1="${xAt(t.at)}" x2="${xAt(t.at)}" y1="${PAD.top + plotHeight}" y2="${PAD.top + plotHeight + 5}"></line><text class="axis tick-label" x="${xAt(t.at)}" y="${PAD.top + plotHeight + 10}" dominant-baseline="hanging" text-anchor="middle">${t.label}</text>`,
  );
  const titles = html`<text class="axis-title" x="${PAD.left + plotWidth / 2}" y="${HEIGHT - 6}" text-anchor="middle">${timeTitle(from, to)}</text><text class="axis-title" transform="rotate(-90)" x="${-(PAD.top + plotHeight / 2)}" y="6" dominant-baseline="hanging" text-anchor="middle">score (0–9)</text>`;
  const baselineLines = dimensions.map((d, i) => {
    const b = baselines[d];
    return typeof b === "number"
      ? html`<line class="baseline ${series(i)}" data-dimension="${d}" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(b)}" y2="${y(b)}"><title>${d} baseline ${score9(b)}</title></line>`
      : "";
  });
  const regressions: { p: DriftPoint; d: string }[] = [];
  const rings: Html[] = [];
  const lines = dimensions.map((d, i) => {
    const scored = points
      .map((p) => ({ p, score: p.scores[d] }))
      .filter((s): s is { p: DriftPoint; score: number } => typeof s.score === "number");
    if (scored.length === 0) return "";
    const dots = scored.flatMap((s) => {
      const regression = isRegression(s.p, d);
      if (!regression)
        return [pointLink(`/runs/${s.p.run_id}`, "point", x(s.p), y(s.score), 3.5, label(d, s))];
      regressions.push({ p: s.p, d });
      const note = s.p.previous_run_id
        ? " — regression; the list under the chart compares it with the previous run"
        : " — regression";
      rings.push(
        pointLink(
          fallenDimensionHref(s.p.run_id, d),
          "point regression",
          x(s.p),
          y(s.score),
          6,
          `${label(d, s)}${note}`,
        ),
      );
      return [];
    });
    return html`<g class="dimension ${series(i)}" data-dimension="${d}">
<polyline class="line" points="${scored.map((s) => `${x(s.p)},${y(s.score)}`).join(" ")}"></polyline>
${dots}
</g>`;
  });
  // The rings are drawn last, above every line and point, so that a neighbour's tap target never covers one.
  const ringGroup = rings.length ? html`<g class="rings">${rings}</g>` : "";
  return html`<figure class="drift">
<svg class="drift-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="Dimension scores over time (${points.length} runs), with baselines">
${grid}${ticks}${titles}${baselineLines}${lines}${ringGroup}
</svg>
<figcaption><ul class="legend">${dimensions.map(
    (d, i) =>
      html`<li class="${series(i)}"><span class="swatch"></span>${d}${
        typeof baselines[d] === "number"
          ? html` <span class="muted">(baseline ${score9(baselines[d])}, dashed)</span>`
          : ""
      }</li>`,
  )}<li class="regression-key"><span class="ring"></span>regression</li></ul>
${regressionLinks(regressions)}</figcaption>
</figure>`;
}

const label = (d: string, s: { p: DriftPoint; score: number }) =>
  `${d} ${score9(s.score)} on ${when(s.p.created_at)}`;

/**
 * A point as a link: the dot (or ring) as drawn, and over it an invisible circle that takes the taps — the
 * stylesheet sizes it so that it is 24 px across or more at any width the chart is drawn at (a phone's too).
 * Its name is the point's words, for a screen reader (aria-label) and a pointer (title).
 */
function pointLink(href: string, kind: string, cx: number, cy: number, r: number, text: string): Html {
  return html`<a href="${href}" aria-label="${text}"><title>${text}</title><circle class="${kind}" cx="${cx}" cy="${cy}" r="${r}"></circle><circle class="hit" cx="${cx}" cy="${cy}" r="12"></circle></a>`;
}

/** A regressed run's page opened at the dimension that fell: its verdicts only, lowest first. */
export const fallenDimensionHref = dimensionVerdictsPath;

/** The ringed points as links, so each regression's run and its comparison are reachable without a pointer. */
function regressionLinks(regressions: readonly { p: DriftPoint; d: string }[]): Html {
  if (regressions.length === 0) return html``;
  const sorted = [...regressions].sort((a, b) => a.p.created_at.localeCompare(b.p.created_at));
  return html`<ul class="regression-links">${sorted.map(
    ({ p, d }) =>
      html`<li>Regression: <a href="${fallenDimensionHref(p.run_id, d)}">${when(p.created_at)}</a> ${d} ${score9(p.scores[d])}${
        p.previous_run_id
          ? html` — <a class="compare" href="${hrefWith("/compare", { a: p.previous_run_id, b: p.run_id })}">compare with previous run</a>`
          : ""
      }</li>`,
  )}</ul>`;
}
