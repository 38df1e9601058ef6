// The Validations list and one validation's page (`/validations/{id}`): each question's row, its verdict
// first with the reasons, and the two distributions drawn inline as the validation's own SVG — made from
// numbers, every text in it (question names, categories, file names) escaped by validation-chart.ts, no script
// and no style attribute, so the dashboard's CSP lets it show; without a fixed size, so a phone's page fits
// it. And the experiment page's links to the validations that name it.
import { raw } from "hono/html";
import { InputError } from "../core/index.ts";
import type { EvaluationRow } from "../store/index.ts";
import {
  loadValidation,
  renderValidationChart,
  type StoredValidation,
  VALIDATION_HEADER,
  type ValidationListRow,
  validationAnswers,
  validationCells,
  validationListRow,
  validationSummaryLine,
  validationsOfExperiment,
  validationThresholdsLine,
} from "../validation/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { evaluationPage } from "./evaluation-page.ts";
import { shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { SortColumn } from "./list-view.ts";
import type { KindList } from "./stored-list-page.ts";

const SORTS = ["created", "name", "questions", "failed"] as const;
type ValidationSort = (typeof SORTS)[number];

const COLUMNS: readonly SortColumn<ValidationListRow, ValidationSort>[] = [
  { key: "created", label: "Created", value: (r) => r.created_at },
  { key: "name", label: "Name", value: (r) => r.name },
  { key: "questions", label: "Questions", numeric: true, value: (r) => r.questions },
  { key: "failed", label: "Not consistent", numeric: true, value: (r) => r.failed },
];

const notConsistent = (r: ValidationListRow) => r.status === "failed" || (r.failed ?? 0) > 0;

/** The verdicts of a list line, as `2 collapsed, 1 consistent`. */
const verdictCounts = (r: ValidationListRow) =>
  r.verdicts === null
    ? "—"
    : Object.entries(r.verdicts)
        .filter(([, n]) => n > 0)
        .map(([verdict, n]) => `${n} ${verdict}`)
        .join(", ") || "—";

const experimentLink = (id: string | null) =>
  id === null ? "—" : html`<a href="/experiments/${id}"><code>${shortId(id)}</code></a>`;

/** The Validations list: "not consistent only" keeps those with a question whose verdict is not consistent. */
export const validationsList: KindList<ValidationListRow, ValidationSort> = {
  rows: async (_, evaluations) => evaluations.map(validationListRow),
  // A validation names no agent: its list filters by time only.
  fields: ["since", "until"],
  columns: COLUMNS,
  header: (th) =>
    html`<th>Validation</th>${th("created")}<th>Status</th>${th("name")}<th>Experiment</th>${th("questions")}${th("failed")}<th>Verdicts</th>`,
  row: (r) => html`<tr class="${notConsistent(r) ? "failed" : ""}">
<td><a href="/validations/${r.id}"><code>${shortId(r.id)}</code></a></td>
<td>${when(r.created_at)}</td>
<td><span class="status ${r.status}">${r.status}</span></td>
<td>${r.name}</td>
<td>${experimentLink(r.experiment)}</td>
<td class="num">${r.questions ?? "—"}</td>
<td class="num">${r.failed ?? "—"}</td>
<td>${verdictCounts(r)}</td>
</tr>`,
  keep: notConsistent,
  failures: "validations with a question whose simulated answers are not consistent with the real ones",
  switchLabels: { all: "All", failures: "Not consistent only" },
  form: "runs",
  counted: "validations",
  intro: html`<p class="muted">Simulated answers held against real people's, question by question: consistent, shifted (the location differs), collapsed (the spread far below the real one), or different.</p>`,
};

/** The question's table: its verdict and reasons first, then the figures as `dramaturg validate` prints them. */
function questionsTable(v: StoredValidation): Html {
  const last = VALIDATION_HEADER.length - 1;
  return html`<table class="validation-questions">
<thead><tr><th>Verdict</th>${VALIDATION_HEADER.slice(0, last).map((title, i) => html`<th${i > 0 ? html` class="num"` : ""}>${title}</th>`)}</tr></thead>
<tbody>${v.questions.map((q) => {
    const cells = validationCells(q);
    return html`<tr class="${q.verdict === "consistent" ? "" : "failed"}">
<td><strong class="verdict ${q.verdict}">${q.verdict}</strong><ul class="reasons">${q.reasons.map((r) => html`<li>${r}</li>`)}</ul></td>
${cells.slice(0, last).map((cell, i) => (i === 0 ? html`<th scope="row">${cell}</th>` : html`<td class="num">${cell}</td>`))}
</tr>`;
  })}</tbody></table>`;
}

function body(row: EvaluationRow, v: StoredValidation, chart: string): Html {
  const name = validationListRow(row).name;
  return html`<h1>Validation ${shortId(row.id)}</h1>
<p class="report-title">${name}</p>
<dl class="facts">
<dt>Real answers</dt><dd>${v.real.file}</dd>
<dt>Simulated answers</dt><dd>${v.simulated.file}</dd>
<dt>Experiment</dt><dd>${experimentLink(v.experiment ?? null)}</dd>
<dt>Stored</dt><dd>${when(row.created_at)}</dd>
</dl>
<p>${validationSummaryLine(v)}</p>
<section id="questions"><h2>Questions</h2>
${questionsTable(v)}
<p class="muted">Thresholds: ${validationThresholdsLine(v)}.</p>
</section>
<section id="distributions"><h2>Distributions</h2>
<figure class="validation-chart">${
    // The validation's own SVG: numbers, and texts escaped by renderValidationChart (no script, no style).
    raw(chart)
  }</figure>
</section>`;
}

/** The page of a validation; undefined (a 404) when the id is not a validation's. */
export function validationPage(context: DashboardContext, id: string): Promise<Html | undefined> {
  const heading = `Validation ${shortId(id)}`;
  return evaluationPage(context, id, {
    kind: "validation",
    title: heading,
    document: (row) =>
      loadValidation({ store: context.store, id: row.id }).catch((error) => {
        if (InputError.isInstance(error)) return undefined;
        throw error;
      }),
    none: (row) => html`<h1>${heading}</h1>
<p>This validation is ${row.status}; it has no result${row.status === "completed" ? " stored" : " yet"}.</p>`,
    body: async (row, document) =>
      body(
        row,
        document,
        renderValidationChart(document, await validationAnswers(context.store, row.id), { fluid: true }),
      ),
  });
}

/** An experiment page's section on the validations that name it; nothing when none does. */
export async function experimentValidations({ store }: DashboardContext, experiment: string): Promise<Html> {
  const rows = await validationsOfExperiment(store, experiment);
  if (rows.length === 0) return html``;
  return html`
<section id="validations"><h2>Validated against real people</h2>
<ul>${rows.map(
    (r) =>
      html`<li><a href="/validations/${r.id}"><code>${shortId(r.id)}</code></a> ${r.name} <span class="muted">(${when(r.created_at)}, ${verdictCounts(r)})</span></li>`,
  )}</ul>
</section>`;
}
