// The Calibrations list: stored calibrations (kind "calibration") newest first — who judged, the evaluation
// calibrated, the labels, items compared, overall κ with its CI, flagged propositions — with the filters,
// cursor, sort and "flagged only" of the other lists; and the run page's links to its evaluation's calibrations.
import {
  type CalibrationListRow,
  calibrationListRows,
  calibrationsOfEvaluation,
} from "../calibration/index.ts";
import type { RunRow } from "../store/index.ts";
import {
  calibratedLink,
  calibratedRuns,
  figure,
  figureCell,
  itemsText,
  judgeName,
} from "./calibration-figures.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { SortColumn } from "./list-view.ts";
import type { KindList } from "./stored-list-page.ts";

const SORTS = ["created", "judge", "items", "kappa", "flagged"] as const;
type CalibrationSort = (typeof SORTS)[number];

const COLUMNS: readonly SortColumn<CalibrationListRow, CalibrationSort>[] = [
  { key: "created", label: "Created", value: (r) => r.created_at },
  { key: "judge", label: "Judge", value: (r) => (r.judge ? judgeName(r.judge) : null) },
  { key: "items", label: "Items", numeric: true, value: (r) => r.n },
  { key: "kappa", label: "κ overall", numeric: true, value: (r) => r.kappa_quadratic },
  { key: "flagged", label: "Flagged", numeric: true, value: (r) => r.flagged },
];

/** What "flagged only" keeps, in the page's words. */
const FLAGGED_ONLY =
  "calibrations with a proposition whose judge is below their κ bar, and calibrations that failed";

const isFlagged = (r: CalibrationListRow) => r.status === "failed" || (r.flagged ?? 0) > 0;

/** The Calibrations list: "flagged only" keeps those with a proposition below their κ bar, and failed ones. */
export const calibrationsList: KindList<CalibrationListRow, CalibrationSort, Map<string, RunRow[]>> = {
  rows: calibrationListRows,
  columns: COLUMNS,
  header: (th) =>
    html`<th>Calibration</th>${th("created")}<th>Status</th>${th("judge")}<th>Calibrated</th><th>Labels</th>${th("items")}${th("kappa")}${th("flagged")}`,
  // The runs of the evaluations calibrated, read once for the page.
  lookup: (store, rows) =>
    calibratedRuns(
      store,
      rows.map((r) => r.calibrated_evaluation),
    ),
  row: (r, _, runs) => html`<tr class="${isFlagged(r) ? "failed" : ""}">
<td><a href="/calibrations/${r.id}">${shortId(r.id)}</a>${r.warnings.length > 0 ? html` <span class="tag warning" title="${r.warnings.join(" ")}">warning</span>` : ""}</td>
<td>${when(r.created_at)}</td>
<td><span class="status ${r.status}">${r.status}</span></td>
<td>${r.judge ? judgeName(r.judge) : "—"}${r.judged === true ? html` <span class="muted">judged afresh</span>` : ""}</td>
<td>${calibratedLink(r.calibrated_evaluation, runs, true)}</td>
<td>${r.labels.length === 0 ? "—" : html`<ul class="label-files">${r.labels.map((f) => html`<li>${f}</li>`)}</ul>`}</td>
<td class="num">${itemsText(r)}</td>
${figureCell(r.kappa_quadratic, r.kappa_ci)}
<td class="num">${r.flagged === null ? "—" : `${r.flagged} of ${r.propositions}`}</td>
</tr>`,
  keep: isFlagged,
  failures: FLAGGED_ONLY,
  switchLabels: { all: "All", failures: "Flagged only" },
  form: "runs",
  counted: "calibrations",
  intro: html`<p class="muted">How far the judge agrees with people's labels. κ is Cohen's quadratic-weighted κ of the judge against the raters' mean, with its bootstrap 95 % CI beneath; a proposition below its calibration's bar is flagged.</p>`,
};

/** A word as a POSIX shell reads it back: as it is when it is plain, else in single quotes. */
const shellWord = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

/**
 * A run's people's labels: its labelling queue, how many labels it has and from whom, the calibrations that
 * used them (at most five, newest first), and the exact commands that export them and calibrate the judge.
 */
export async function runCalibrationLinks({ store }: DashboardContext, run: RunRow): Promise<Html> {
  if (!run.evaluation_id) return html``;
  const evaluation = run.evaluation_id;
  const [found, raters] = await Promise.all([
    calibrationsOfEvaluation(store, evaluation),
    store.labels.countByRater(evaluation),
  ]);
  const labels = raters.reduce((n, r) => n + r.labels, 0);
  const rows = await calibrationListRows(store, found.slice(0, 5));
  // The store this server reads (its password shown as ***); memory:// is this process's own, no CLI reaches it.
  const db = store.location === "memory://" ? "" : ` --db ${shellWord(store.location)}`;
  const calibrations =
    rows.length === 0
      ? html`<p class="muted">No calibration has used this evaluation yet.</p>`
      : html`<p class="calibration-links">Calibrated against people's labels: ${rows.map(
          (r, i) =>
            html`${i > 0 ? " · " : ""}<a href="/calibrations/${r.id}">${shortId(r.id)}</a> <span class="muted">(${when(r.created_at)}, ${judgeName(r.judge)}${r.status === "completed" ? `, κ ${figure(r.kappa_quadratic)}, ${r.flagged ?? 0} flagged` : `, ${r.status}`})</span>`,
        )}${found.length > 5 ? html` <span class="muted">and ${found.length - 5} older</span>` : ""}</p>`;
  return html`<section class="people-labels"><h2>People's labels</h2>
<p><a href="/runs/${run.id}/label">Label this run's verdicts</a> · ${
    labels === 0
      ? "no label yet"
      : html`${labels} ${labels === 1 ? "label" : "labels"} by ${raters.map((r, i) => html`${i > 0 ? ", " : ""}${r.rater} (${r.labels})`)} · <a href="/api/evaluations/${evaluation}/labels?format=csv">export them (CSV)</a>`
  }</p>
${calibrations}
<p>To compare the judge with these labels:</p>${
    store.location === "memory://"
      ? html`<p class="muted">This server's store is <code>memory://</code>, which lives in its process: no command reaches it. Run these with <code>--db</code> naming a store that holds this run, or calibrate the exported labels with <code>--transcript</code>.</p>`
      : ""
  }
<pre class="command">dramaturg labels export${db} --run ${shortId(evaluation)} --format csv --out labels.csv
dramaturg calibrate${db} --labels labels.csv --run ${shortId(evaluation)}</pre>
</section>`;
}
