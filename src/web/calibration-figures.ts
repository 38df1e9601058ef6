// How the calibration pages print agreement figures: each statistic with its bootstrap 95 % CI under it, the
// evaluation calibrated as links to its runs, and the judge's name — shared by the list, one calibration and
// the run page's links.
import type { CalibrationFigures, Interval, JudgeStatistic } from "../calibration/index.ts";
import type { RunRow, Store } from "../store/index.ts";
import { percent, shortId } from "./format.ts";
import { type Html, html } from "./html.ts";

/** The statistics of a figures row, in the pages' column order, with how each prints. */
export const FIGURE_COLUMNS: readonly { key: JudgeStatistic; label: string; title: string }[] = [
  { key: "spearman", label: "ρ", title: "Spearman's ρ, judge vs the raters' mean" },
  { key: "pearson", label: "r", title: "Pearson's r, judge vs the raters' mean" },
  { key: "kappa_quadratic", label: "κ", title: "Cohen's κ, quadratic weights, judge vs the rounded mean" },
  { key: "alpha_interval", label: "α int.", title: "Krippendorff's α (interval), the judge and every rater" },
  { key: "alpha_ordinal", label: "α ord.", title: "Krippendorff's α (ordinal), the judge and every rater" },
  { key: "mae", label: "MAE", title: "mean |judge − the raters' mean|" },
  {
    key: "bias",
    label: "Bias",
    title: "mean (judge − the raters' mean): positive when the judge scores higher",
  },
  { key: "exact", label: "Exact", title: "share where the judge equals the rounded mean" },
  { key: "within_1", label: "±1", title: "share where the judge is within 1 of the rounded mean" },
];

const SHARES = new Set<JudgeStatistic>(["exact", "within_1"]);

const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * A figure with two decimals (a share as a percentage, a bias with its sign); an em dash when undefined.
 * A negative figure has a true minus, and one that rounds to zero prints as 0.00, never "-0.00".
 */
export function figure(value: number | null | undefined, key?: JudgeStatistic): string {
  if (!isNumber(value)) return "—";
  if (key !== undefined && SHARES.has(key)) return percent(value);
  const rounded = Number(value.toFixed(2));
  if (rounded === 0) return "0.00";
  if (key === "bias") return `${rounded > 0 ? "+" : "−"}${Math.abs(rounded).toFixed(2)}`;
  return `${rounded < 0 ? "−" : ""}${Math.abs(rounded).toFixed(2)}`;
}

/**
 * A 95 % interval in the figure's own unit: `low–high`, or `low to high` when a bound is negative (a dash
 * between two minus signs reads as arithmetic); one value when both bounds print the same.
 */
export function interval(ci: Interval | undefined, key?: JudgeStatistic): string {
  if (!ci || !isNumber(ci[0]) || !isNumber(ci[1])) return "";
  if (key !== undefined && SHARES.has(key)) {
    const [low, high] = [Math.round(ci[0] * 100), Math.round(ci[1] * 100)];
    return low === high ? `${low} %` : `${low}–${high} %`;
  }
  const [low, high] = [figure(ci[0], key), figure(ci[1], key)];
  if (low === high) return `${low} in every resample`;
  return ci[0] < 0 || ci[1] < 0 ? `${low} to ${high}` : `${low}–${high}`;
}

/** A figure's cell: the value, its CI beneath it. */
export function figureCell(
  value: number | null | undefined,
  ci: Interval | undefined,
  key?: JudgeStatistic,
): Html {
  const range = interval(ci, key);
  return html`<td class="num">${figure(value, key)}${range ? html`<span class="ci">${range}</span>` : ""}</td>`;
}

/** Items compared: `judged/n` when the judge errored on some. */
export function itemsText(f: { n?: number | null; n_judged?: number | null }): string {
  if (!isNumber(f.n)) return "—";
  return isNumber(f.n_judged) && f.n_judged !== f.n ? `${f.n_judged}/${f.n}` : String(f.n);
}

/** The cells of a figures row: n, then every statistic with its CI. Reads older documents defensively. */
export function figureCells(f: Partial<CalibrationFigures>): Html {
  return html`<td class="num">${itemsText(f)}</td>${FIGURE_COLUMNS.map(({ key }) => figureCell(f[key], f.ci?.[key], key))}`;
}

/** The header cells matching {@link figureCells}. */
export const FIGURE_HEADERS = html`<th class="num" title="labelled items compared (judged/all when the judge errored on some)">n</th>${FIGURE_COLUMNS.map(
  (c) => html`<th class="num" title="${c.title}">${c.label}</th>`,
)}`;

export function judgeName(judge: { provider: string; model: string } | null | undefined): string {
  return judge ? `${judge.provider}:${judge.model}` : "an unknown judge";
}

/** The runs of the evaluations calibrated, each looked up once, oldest agent first as the evaluation made them. */
export async function calibratedRuns(
  store: Store,
  evaluations: readonly (string | null)[],
): Promise<Map<string, RunRow[]>> {
  const ids = [...new Set(evaluations.filter((e): e is string => e !== null))];
  const runs = await Promise.all(ids.map((id) => store.runs.list({ evaluation: id, limit: 200 })));
  return new Map(ids.map((id, i) => [id, runs[i]!.slice().reverse()]));
}

/**
 * The evaluation calibrated: a link to each of its runs (one per agent and trial) when it is a stored
 * persona evaluation with runs, else its short id; `compact` links its first run only, as a list does.
 */
export function calibratedLink(id: string | null, runs: Map<string, RunRow[]>, compact = false): Html {
  if (id === null) return html`<span class="muted">a transcript, no stored evaluation</span>`;
  const own = runs.get(id) ?? [];
  if (own.length === 0) return html`<code>${shortId(id)}</code>`;
  if (compact)
    return html`<a href="/runs/${own[0]!.id}">${shortId(id)}</a>${own.length > 1 ? html` <span class="muted">(${own.length} runs)</span>` : ""}`;
  return html`<code>${shortId(id)}</code>: ${own.map(
    (r, i) =>
      html`${i > 0 ? ", " : ""}<a href="/runs/${r.id}">${r.agent_id}${r.trial > 1 ? ` (trial ${r.trial})` : ""}</a>`,
  )}`;
}
