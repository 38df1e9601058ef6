// The Corrections page: the action gate's outcomes over time per agent and dimension, the statistics
// (`dramaturg corrections stats`: regeneration failure rate and the rest), and the checks themselves with
// the feedback a retry was given (the reasoning of the dimensions that failed).

import { CORRECTION_OUTCOMES, type CorrectionLog } from "../core/index.ts";
import { fetchPage } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { filterForm } from "./filter-form.ts";
import { hrefWith, percent, score1, score9, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { firstRun, layout, nextPageLink } from "./layout.ts";
import { decodeCursor, type PageQuery } from "./page-query.ts";

/** The newest this many checks make the over-time table. */
const OVER_TIME_CHECKS = 2_000;

const day = (iso: string) => iso.slice(0, 10);

/** Per (agent, dimension), per day: how many checks ended each way. */
function outcomesOverTime(checks: readonly CorrectionLog[]) {
  const days = [...new Set(checks.map((c) => day(c.created_at)))].sort();
  const rows = new Map<
    string,
    { agent: string; dimension: string; byDay: Map<string, Map<string, number>> }
  >();
  for (const check of checks)
    for (const dimension of Object.keys(check.dimension_scores)) {
      const key = `${check.agent_id}\u0000${dimension}`;
      let row = rows.get(key);
      if (!row) rows.set(key, (row = { agent: check.agent_id, dimension, byDay: new Map() }));
      const counts = row.byDay.get(day(check.created_at)) ?? new Map<string, number>();
      counts.set(check.outcome, (counts.get(check.outcome) ?? 0) + 1);
      row.byDay.set(day(check.created_at), counts);
    }
  return {
    days,
    rows: [...rows.values()].sort(
      (a, b) => a.agent.localeCompare(b.agent) || a.dimension.localeCompare(b.dimension),
    ),
  };
}

function feedbackOf(check: CorrectionLog): Html {
  const failed = Object.entries(check.dimension_scores).filter(([, s]) => s && !s.passed);
  if (failed.length === 0) return html`<span class="muted">—</span>`;
  return html`<ul class="feedback">${failed.map(
    ([d, s]) =>
      html`<li><strong>${d} ${score9(s?.score)}</strong>${s?.timed_out ? " (timed out)" : ""}: ${s?.reasoning ?? ""}</li>`,
  )}</ul>`;
}

export async function correctionsPage({ store }: DashboardContext, query: PageQuery): Promise<Html> {
  const { agent, dimension, since, until, limit } = query;
  const filter = { agent_id: agent, dimension, since, until };
  const [page, recent, stats] = await Promise.all([
    fetchPage(limit, (n) =>
      store.corrections.list({ ...filter, after: decodeCursor(query.cursor), limit: n }),
    ),
    store.corrections.list({ ...filter, limit: OVER_TIME_CHECKS }),
    store.corrections.statistics(filter),
  ]);
  const filtered = agent || dimension || since || until || query.cursor;
  if (page.rows.length === 0)
    return layout({
      title: "Corrections",
      section: "corrections",
      body: html`<h1>Corrections</h1>
${filterForm("/corrections", query, ["agent", "dimension", "since", "until"])}
${filtered ? html`<p>No gate check matches these filters.</p>` : firstRun("corrections")}`,
    });
  const overTime = outcomesOverTime(recent);
  const body = html`<h1>Corrections</h1>
${filterForm("/corrections", query, ["agent", "dimension", "since", "until"])}
<div class="tiles">
<div class="tile"><span class="label">Checks</span><span class="value">${stats.checks}</span></div>
<div class="tile"><span class="label">Passed first time</span><span class="value">${percent(stats.original_success_rate)}</span></div>
<div class="tile"><span class="label">Regeneration failure rate</span><span class="value">${percent(stats.regeneration_failure_rate)}</span><span class="muted">checks whose first attempt failed</span></div>
<div class="tile"><span class="label">Forced through</span><span class="value">${stats.forced_through}</span></div>
<div class="tile"><span class="label">Similarity mean</span><span class="value">${score1(stats.similarity.mean)}</span></div>
</div>
<section><h2>Outcomes</h2>
<table class="outcomes"><thead><tr>${CORRECTION_OUTCOMES.map((o) => html`<th class="num">${o.replaceAll("_", " ")}</th>`)}</tr></thead>
<tbody><tr>${CORRECTION_OUTCOMES.map((o) => html`<td class="num">${stats.outcomes[o]}</td>`)}</tr></tbody></table>
</section>
<section><h2>Outcomes over time, per agent and dimension</h2>
<table class="over-time"><thead><tr><th>Agent</th><th>Dimension</th>${overTime.days.map((d) => html`<th>${d.slice(5)}</th>`)}</tr></thead>
<tbody>${overTime.rows.map(
    (
      r,
    ) => html`<tr><td><a href="${hrefWith("/corrections", { agent: r.agent })}">${r.agent}</a></td><td><a href="${hrefWith("/corrections", { agent: r.agent, dimension: r.dimension })}">${r.dimension}</a></td>
${overTime.days.map((d) => {
  const counts = r.byDay.get(d);
  return html`<td>${counts ? [...counts].map(([o, n]) => html`<span class="outcome ${o}" title="${o}">${n} ${o.replaceAll("_", " ")}</span> `) : ""}</td>`;
})}</tr>`,
  )}</tbody></table>
</section>
<section><h2>Checks</h2>
<table class="checks"><thead><tr><th>Time</th><th>Agent</th><th>Outcome</th><th class="num">Attempt</th><th>Original</th><th>Committed</th><th>Retry feedback</th></tr></thead>
<tbody>${page.rows.map(
    (
      c,
    ) => html`<tr><td>${when(c.created_at)}</td><td>${c.agent_id}</td><td><span class="outcome ${c.outcome}">${c.outcome.replaceAll("_", " ")}</span></td><td class="num">${c.attempt_number}</td>
<td class="message-text">${c.original_text}</td><td class="message-text">${c.corrected_text ?? html`<span class="muted">as original</span>`}</td><td>${feedbackOf(c)}</td></tr>`,
  )}</tbody></table>
${nextPageLink(page.next && hrefWith("/corrections", { agent, dimension, since, until, cursor: page.next }))}
</section>`;
  return layout({ title: "Corrections", section: "corrections", body });
}
