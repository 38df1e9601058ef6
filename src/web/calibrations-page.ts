// The Calibrations list: stored calibrations (kind "calibration") newest first — who judged, the evaluation
// calibrated, the labels, items compared, overall κ with its CI, flagged propositions — with the filters,
// cursor, sort and "flagged only" of the other lists; and the run page's links to its evaluation's calibrations.
import {
  type CalibrationListRow,
  calibrationListRow,
  calibrationsOfEvaluation,
  listCalibrations,
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
import { filterForm } from "./filter-form.ts";
import { hrefWith, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { firstRun, layout, nextPageLink } from "./layout.ts";
import { failuresSwitch, listedPage, type SortColumn, sortedWithinPage, viewParams } from "./list-view.ts";
import type { PageQuery } from "./page-query.ts";

const SORTS = ["created", "judge", "items", "kappa", "flagged"] as const;
type CalibrationSort = (typeof SORTS)[number];

const COLUMNS: Record<CalibrationSort, SortColumn<CalibrationListRow, CalibrationSort>> = {
  created: { key: "created", label: "Created", value: (r) => r.created_at },
  judge: { key: "judge", label: "Judge", value: (r) => (r.judge ? judgeName(r.judge) : null) },
  items: { key: "items", label: "Items", numeric: true, value: (r) => r.n },
  kappa: { key: "kappa", label: "κ overall", numeric: true, value: (r) => r.kappa_quadratic },
  flagged: { key: "flagged", label: "Flagged", numeric: true, value: (r) => r.flagged },
};

/** What "flagged only" keeps, in the page's words. */
const FLAGGED_ONLY =
  "calibrations with a proposition whose judge is below their κ bar, and calibrations that failed";

const isFlagged = (r: CalibrationListRow) => r.status === "failed" || (r.flagged ?? 0) > 0;

export async function calibrationsPage(
  { store }: DashboardContext,
  query: PageQuery,
  raw: Readonly<Record<string, string>> = {},
): Promise<Html> {
  const { agent, since, until } = query;
  const filters = { agent, since, until };
  const {
    view,
    page,
    here: base,
    rows,
    header: th,
    filtered,
  } = await listedPage({
    path: "/calibrations",
    query,
    raw,
    sorts: SORTS,
    columns: COLUMNS,
    filters,
    list: (after, n) => listCalibrations({ store, agent, since, until, after, limit: n }),
    keep: isFlagged,
    newestFirst: true,
  });
  const runs = await calibratedRuns(
    store,
    page.rows.map((r) => r.calibrated_evaluation),
  );
  const body =
    rows.length === 0
      ? filtered
        ? html`<p>No calibration matches these filters${view.failures ? " among the calibrations looked at" : ""}.</p>`
        : firstRun("calibrations")
      : html`<table class="calibrations">
<thead><tr><th>Calibration</th>${th("created")}<th>Status</th>${th("judge")}<th>Calibrated</th><th>Labels</th>${th("items")}${th("kappa")}${th("flagged")}</tr></thead>
<tbody>${rows.map(
          (r) => html`<tr class="${isFlagged(r) ? "failed" : ""}">
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
        )}</tbody></table>`;
  return layout({
    title: "Calibrations",
    section: "calibrations",
    body: html`<h1>Calibrations</h1>
<p class="muted">How far the judge agrees with people's labels. κ is Cohen's quadratic-weighted κ of the judge against the raters' mean, with its bootstrap 95 % CI beneath; a proposition below its calibration's bar is flagged.</p>
${filterForm("/calibrations", query, ["agent", "since", "until"], viewParams(view))}
${failuresSwitch(view, base, FLAGGED_ONLY, { all: "All", failures: "Flagged only" })}
${page.stopped ? html`<p class="muted">Looked at ${page.scanned} calibrations for this page; the next page goes on from there.</p>` : ""}
${body}
${sortedWithinPage(view)}
${nextPageLink(page.next && hrefWith("/calibrations", { ...filters, cursor: page.next, ...viewParams(view) }))}`,
  });
}

/** The run page's line on the calibrations of its evaluation; nothing when it has none. */
export async function runCalibrationLinks({ store }: DashboardContext, run: RunRow): Promise<Html> {
  if (!run.evaluation_id) return html``;
  const found = await calibrationsOfEvaluation(store, run.evaluation_id);
  if (found.length === 0) return html``;
  const rows = await Promise.all(
    found
      .slice(0, 5)
      .map(async (row) =>
        calibrationListRow(
          row,
          row.status === "completed" ? await store.evaluations.result(row.id) : undefined,
        ),
      ),
  );
  return html`<p class="calibration-links">Calibrated against people's labels: ${rows.map(
    (r, i) =>
      html`${i > 0 ? " · " : ""}<a href="/calibrations/${r.id}">${shortId(r.id)}</a> <span class="muted">(${when(r.created_at)}, ${judgeName(r.judge)}${r.status === "completed" ? `, κ ${figure(r.kappa_quadratic)}, ${r.flagged ?? 0} flagged` : `, ${r.status}`})</span>`,
  )}${found.length > 5 ? html` <span class="muted">and ${found.length - 5} older</span>` : ""}</p>`;
}
