// One stored calibration: its warnings first, then where it comes from, the judge's agreement with people
// overall and per dimension (each figure with its 95 % CI), the raters' own agreement beside the judge's,
// the band confusion matrix, "fails", and per proposition — flagged first — with the flagged ones' largest
// disagreements side by side. The document is read defensively: older ones may lack warnings or hashes.
import {
  CALIBRATION_FORMAT,
  type CalibrationDisagreement,
  type CalibrationProposition,
  type CalibrationResult,
  type CalibrationSummary,
  SCORE_BANDS,
} from "../calibration/index.ts";
import type { EvaluationRow } from "../store/index.ts";
import {
  calibratedLink,
  calibratedRuns,
  FIGURE_HEADERS,
  figure,
  figureCell,
  figureCells,
  interval,
  judgeName,
} from "./calibration-figures.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { evaluationPage } from "./evaluation-page.ts";
import { shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";

/** A stored document, any part of which an older version may not have written. */
type StoredCalibration = Partial<Omit<CalibrationResult, "overall" | "dimensions" | "propositions">> & {
  overall?: Partial<CalibrationSummary>;
  dimensions?: (Partial<CalibrationSummary> & { dimension: string })[];
  propositions?: CalibrationProposition[];
};

type Kappa = { kappa_quadratic?: number | null };

/** κ ascending, an undefined κ last. */
const byKappa = (a: Kappa, b: Kappa) => {
  const x = a.kappa_quadratic ?? null;
  const y = b.kappa_quadratic ?? null;
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  return x - y;
};

/** Flagged first, then the rest; each part by κ ascending, an undefined κ last (ties in the document's order). */
export function propositionsInPageOrder<P extends Kappa & { flagged: boolean }>(
  propositions: readonly P[],
): P[] {
  return [
    ...propositions.filter((p) => p.flagged).sort(byKappa),
    ...propositions.filter((p) => !p.flagged).sort(byKappa),
  ];
}

function agreementTable(result: StoredCalibration): Html {
  const dimensions = result.dimensions ?? [];
  return html`<table class="agreement">
<thead><tr><th>Scope</th>${FIGURE_HEADERS}</tr></thead>
<tbody><tr class="overall"><th scope="row">Overall</th>${figureCells(result.overall ?? {})}</tr>
${dimensions.map((d) => html`<tr><th scope="row">${d.dimension}</th>${figureCells(d)}</tr>`)}</tbody></table>`;
}

/** The raters' α among themselves beside the judge's α with them: how far the judge is from the ceiling. */
function ceilingTable(result: StoredCalibration): Html {
  const overall = result.overall ?? {};
  const raters = result.raters;
  return html`<table class="ceiling">
<thead><tr><th>Who</th><th class="num">Items</th><th class="num">α interval</th><th class="num">α ordinal</th></tr></thead>
<tbody>
<tr><th scope="row">The judge with the raters</th><td class="num">${overall.n ?? "—"}</td>${figureCell(overall.alpha_interval, overall.ci?.alpha_interval)}${figureCell(overall.alpha_ordinal, overall.ci?.alpha_ordinal)}</tr>
<tr><th scope="row">The raters among themselves (the ceiling)</th><td class="num">${raters?.items ?? "—"}</td>${figureCell(raters?.alpha_interval, raters?.ci?.alpha_interval)}${figureCell(raters?.alpha_ordinal, raters?.ci?.alpha_ordinal)}</tr>
</tbody></table>
${raters && raters.items === 0 ? html`<p class="muted">No item has two raters: the people's own agreement, the ceiling, cannot be measured.</p>` : ""}`;
}

function confusionTable(summary: Partial<CalibrationSummary>): Html {
  const confusion = summary.confusion;
  if (!confusion) return html`<p class="muted">This document has no confusion matrix.</p>`;
  const bands = confusion.bands ?? SCORE_BANDS;
  return html`<table class="confusion">
<caption>Judged items by the judge's band (rows) and the people's band, their rounded mean (columns)</caption>
<thead><tr><th>Judge ↓ · people →</th>${bands.map((b) => html`<th class="num">${b}</th>`)}</tr></thead>
<tbody>${bands.map(
    (b, i) =>
      html`<tr><th scope="row">${b}</th>${bands.map(
        (_, j) =>
          html`<td class="num${i === j ? " agree" : ""}">${String(confusion.counts[i]?.[j] ?? 0)}</td>`,
      )}</tr>`,
  )}</tbody></table>`;
}

function failsSection(summary: Partial<CalibrationSummary>): Html {
  const fails = summary.fails;
  if (!fails) return html``;
  return html`<section><h2>Fails below ${fails.minimum}</h2>
<p>The judge's job in CI: a raw score below the minimum fails. Against the people's rounded mean:</p>
<table class="fails">
<thead><tr><th class="num">Precision</th><th class="num">Recall</th><th class="num" title="both fail">Both fail</th><th class="num" title="the judge fails, the people pass">Judge only</th><th class="num" title="the judge passes, the people fail">People only</th><th class="num" title="both pass">Both pass</th></tr></thead>
<tbody><tr>${figureCell(fails.precision, fails.ci?.precision)}${figureCell(fails.recall, fails.ci?.recall)}<td class="num">${fails.tp}</td><td class="num">${fails.fp}</td><td class="num">${fails.fn}</td><td class="num">${fails.tn}</td></tr></tbody></table>
</section>`;
}

const anchor = (i: number) => `flagged-${i + 1}`;

function propositionsTable(ordered: readonly CalibrationProposition[]): Html {
  let flaggedIndex = 0;
  return html`<table class="calibration-propositions">
<thead><tr><th></th><th>Dimension</th><th>Proposition</th>${FIGURE_HEADERS}</tr></thead>
<tbody>${ordered.map((p) => {
    const link = p.flagged ? anchor(flaggedIndex++) : undefined;
    return html`<tr class="${p.flagged ? "bad" : ""}" data-proposition="${p.proposition_id}">
<td>${p.flagged ? html`<span class="tag flagged">flagged</span>` : ""}${p.too_few ? html` <span class="tag few" title="under 5 judged items: too few to act on alone">too few</span>` : ""}</td>
<td>${p.dimension}</td>
<td>${link ? html`<a href="#${link}">${p.proposition_id}</a>` : p.proposition_id}</td>
${figureCells(p)}</tr>`;
  })}</tbody></table>`;
}

function targetCell(d: CalibrationDisagreement): Html {
  const who = d.speaker ?? d.agent_id;
  return html`<td>${who ? html`<strong>${who}</strong>` : ""}${
    d.message_id !== undefined
      ? html`<br><span class="muted">message <code>${d.message_id}</code></span>`
      : ""
  }${d.channel !== undefined ? html`<br><span class="muted">channel <code>${d.channel}</code></span>` : ""}${
    d.message_id === undefined && d.channel === undefined && who
      ? html`<br><span class="muted">as a whole</span>`
      : ""
  }</td>`;
}

function disagreementsSection(p: CalibrationProposition, index: number): Html {
  const list = p.disagreements ?? [];
  return html`<section class="disagreements" id="${anchor(index)}">
<h3>${p.dimension} / ${p.proposition_id} <span class="muted">κ ${figure(p.kappa_quadratic)}${interval(p.ci?.kappa_quadratic) ? ` (95 % CI ${interval(p.ci?.kappa_quadratic)})` : ""}, ${p.n_judged} judged item${p.n_judged === 1 ? "" : "s"}</span></h3>
${
  list.length === 0
    ? html`<p class="muted">No item where the judge and the people differ is kept with this proposition.</p>`
    : html`<table class="disagreements">
<thead><tr><th>Item</th><th>Message</th><th>People</th><th class="num">Judge</th><th>Judge's reasoning</th></tr></thead>
<tbody>${list.map(
        (d) => html`<tr>${targetCell(d)}
<td>${d.text !== undefined ? html`<p class="message-text">${d.text}</p>` : html`<span class="muted">—</span>`}</td>
<td><ul class="ratings">${d.raters.map(
          (r) =>
            html`<li><strong>${r.rater}</strong>: ${String(r.score)}${r.note ? html` — <span class="note">${r.note}</span>` : ""}</li>`,
        )}</ul>${d.raters.length > 1 ? html`<span class="muted">mean ${figure(d.human_mean)}</span>` : ""}</td>
<td class="num">${String(d.judge)}</td>
<td><p class="message-text">${d.reasoning}</p></td></tr>`,
      )}</tbody></table>`
}
</section>`;
}

function notJudgedSection(result: StoredCalibration): Html {
  const items = result.not_judged_items ?? [];
  if ((result.not_judged ?? 0) === 0) return html``;
  return html`<details class="not-judged"><summary>${result.not_judged} labelled item(s) the evaluation holds no verdict for, left out of every figure</summary>
<table><thead><tr><th>Dimension</th><th>Proposition</th><th>Agent</th><th>Message</th><th>Channel</th></tr></thead>
<tbody>${items.map(
    (i) =>
      html`<tr><td>${i.dimension}</td><td>${i.proposition_id}</td><td>${i.agent_id ?? "—"}</td><td>${i.message_id ?? "—"}</td><td>${i.channel ?? "—"}</td></tr>`,
  )}</tbody></table></details>`;
}

async function factsList(
  context: DashboardContext,
  row: EvaluationRow,
  result: StoredCalibration,
): Promise<Html> {
  const calibrated = result.calibrated_evaluation ?? null;
  const runs = await calibratedRuns(context.store, [calibrated]);
  const usage = result.token_usage;
  const bootstrap = result.overall?.bootstrap;
  return html`<dl class="facts">
<dt>Status</dt><dd><span class="status ${row.status}">${row.status}</span></dd>
<dt>Created</dt><dd>${when(row.created_at)}</dd>
<dt>Judge</dt><dd>${judgeName(result.judge)} <span class="muted">${result.judged ? "judged the labelled items for this calibration" : "its verdicts read from the evaluation"}</span></dd>
<dt>Calibrated</dt><dd>${calibratedLink(calibrated, runs)}</dd>
<dt>Labels</dt><dd>${(result.labels ?? []).length === 0 ? "—" : html`<ul class="label-files">${(result.labels ?? []).map((f) => html`<li><code>${f}</code></li>`)}</ul>`}</dd>
<dt>Items compared</dt><dd>${result.overall?.n ?? "—"}${result.overall && result.overall.n_judged !== result.overall.n ? ` (${result.overall.n_judged} with a judge score)` : ""}${result.not_judged ? `; ${result.not_judged} not judged in the evaluation` : ""}</dd>
<dt>Flag bar</dt><dd>κ below ${result.minimum_kappa ?? "—"}, with at least 2 judged items</dd>
${result.minimum !== null && result.minimum !== undefined ? html`<dt>Minimum</dt><dd>${result.minimum}</dd>` : ""}
${(result.judge_trials ?? 0) > 1 ? html`<dt>Judge trials</dt><dd>${result.judge_trials}: an item's judge score is their mean, rounded half up</dd>` : ""}
<dt>Rubric</dt><dd><code>${result.propositions_hash ?? "—"}</code></dd>
<dt>Bootstrap</dt><dd>${bootstrap ? `${bootstrap.resamples} resamples, seed ${bootstrap.seed}` : "—"}</dd>
${usage && usage.input_tokens + usage.output_tokens > 0 ? html`<dt>Token usage</dt><dd>${usage.input_tokens} in, ${usage.output_tokens} out</dd>` : ""}
</dl>`;
}

export function calibrationPage(context: DashboardContext, id: string): Promise<Html | undefined> {
  const title = `Calibration ${shortId(id)}`;
  return evaluationPage(context, id, {
    kind: "calibration",
    title,
    section: "calibrations",
    document: async () => {
      const result = (await context.store.evaluations.result(id)) as StoredCalibration | undefined;
      return result?.format === CALIBRATION_FORMAT ? result : undefined;
    },
    none: (row) =>
      html`<h1>${title}</h1><p>${
        row.status === "completed"
          ? "This calibration was stored without its document (by an older version); run it again."
          : `This calibration is ${row.status}; it has no result yet.`
      }${row.error ? html` <span class="muted">${row.error}</span>` : ""}</p><p><a href="/calibrations">Back to the calibrations</a></p>`,
    body: async (row, result) => {
      const propositions = propositionsInPageOrder(result.propositions ?? []);
      const flagged = propositions.filter((p) => p.flagged);
      const warnings = result.warnings ?? [];
      return html`<h1>${title} <span class="muted">of ${judgeName(result.judge)} · ${when(row.created_at)}</span></h1>
${
  warnings.length > 0
    ? html`<section class="warning calibration-warnings"><h2>Warnings</h2><ul>${warnings.map((w) => html`<li>${w}</li>`)}</ul></section>`
    : ""
}
<p class="calibration-verdict">${
        flagged.length > 0
          ? html`<strong>${flagged.length} of ${propositions.length} propositions below κ ${result.minimum_kappa}</strong>: the judge is not calibrated well enough there.`
          : html`Every proposition with enough items reaches κ ${result.minimum_kappa ?? "—"}.`
      }</p>
${await factsList(context, row, result)}
<section><h2>Agreement</h2>
<p class="muted">Raw claim scores 0–9; the people's reference is the mean of the raters, rounded half up for κ, exact and ±1. Each figure has its bootstrap 95 % CI beneath it.</p>
${agreementTable(result)}
</section>
<section><h2>The ceiling: people's own agreement</h2>
${ceilingTable(result)}
</section>
<section><h2>Bands</h2>
${confusionTable(result.overall ?? {})}
</section>
${failsSection(result.overall ?? {})}
<section><h2>Per proposition</h2>
<p class="muted">Flagged first, then the rest; each by κ, lowest first. "Too few": under 5 judged items, to read with care.</p>
${propositions.length === 0 ? html`<p>No proposition was compared.</p>` : propositionsTable(propositions)}
</section>
${
  flagged.length > 0
    ? html`<section><h2>Flagged propositions: the largest disagreements</h2>
${flagged.map((p, i) => disagreementsSection(p, i))}
</section>`
    : ""
}
${notJudgedSection(result)}`;
    },
  });
}
