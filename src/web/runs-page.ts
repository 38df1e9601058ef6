// The Runs pages: evaluation runs newest first (filters and cursor in the URL), and one run — its
// dimensions, verdicts with reasoning, errored verdicts, token usage and the messages that were judged.
import { fetchPage, type MessageRow, type RunRow, type ScoreRow } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { filterForm } from "./filter-form.ts";
import { hrefWith, score9, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { firstRun, layout, nextPageLink } from "./layout.ts";
import { decodeCursor, type PageQuery } from "./page-query.ts";

const judgeText = (run: RunRow) =>
  run.judge ? `${run.judge.provider}:${run.judge.model} (${run.judge.mode})` : "—";

export async function runsPage({ store }: DashboardContext, query: PageQuery): Promise<Html> {
  const { agent, dimension, since, until, limit } = query;
  const page = await fetchPage(limit, (n) =>
    store.runs.list({
      agent,
      dimension,
      since,
      until,
      after: decodeCursor(query.cursor),
      limit: n,
    }),
  );
  const filtered = agent || dimension || since || until || query.cursor;
  const body =
    page.rows.length === 0
      ? filtered
        ? html`<p>No run matches these filters.</p>`
        : firstRun("runs")
      : html`<table class="runs">
<thead><tr><th>Run</th><th>Created</th><th>Agent</th><th>Status</th><th>Overall</th><th>Dimensions</th><th>Errored</th><th>Trial</th><th>Judge</th></tr></thead>
<tbody>${page.rows.map(
          (r) => html`<tr>
<td><a href="/runs/${r.id}">${shortId(r.id)}</a>${r.is_baseline ? html` <span class="tag">baseline</span>` : ""}</td>
<td>${when(r.created_at)}</td>
<td><a href="/agents/${encodeURIComponent(r.agent_id)}">${r.agent_id}</a></td>
<td><span class="status ${r.status}">${r.status}</span></td>
<td class="num">${score9(r.overall_score)}</td>
<td>${Object.entries(r.dimension_scores ?? {}).map(([d, s]) => html`<span class="chip">${d} ${s.score === null && s.count != null ? String(s.count) : score9(s.score)}</span> `)}</td>
<td class="num">${r.errored}</td><td class="num">${r.trial}</td><td>${judgeText(r)}</td>
</tr>`,
        )}</tbody></table>`;
  return layout({
    title: "Runs",
    section: "runs",
    body: html`<h1>Runs</h1>
${filterForm("/runs", query, ["agent", "dimension", "since", "until"])}
${body}
${nextPageLink(page.next && hrefWith("/runs", { agent, dimension, since, until, cursor: page.next }))}`,
  });
}

function verdictRow(s: ScoreRow): Html {
  return html`<tr class="${s.status}">
<td>${s.proposition_id}</td><td>${s.message_id ?? s.channel ?? "—"}</td><td>${s.trial}</td>
<td><span class="status ${s.status}">${s.status}</span></td>
<td class="num">${s.count !== null ? String(s.count) : score9(s.score)}</td><td class="num">${score9(s.raw_score)}</td>
<td>${s.reasoning}${s.ideas?.length ? html`<ul>${s.ideas.map((i) => html`<li>${i}</li>`)}</ul>` : ""}</td>
</tr>`;
}

export async function runPage(
  { store }: DashboardContext,
  id: string,
  query: PageQuery,
): Promise<Html | undefined> {
  const run = await store.runs.get(id);
  if (!run) return undefined;
  const scores = run.evaluation_id
    ? await store.scores.forEvaluation(run.evaluation_id, { run: run.id, dimension: query.dimension })
    : [];
  const errored = scores.filter((s) => s.status === "errored");
  const dimensions = [...new Set(scores.map((s) => s.dimension))];
  const messages: MessageRow[] = await store.messages.query({
    agent: run.agent_id,
    from: run.window_start ?? undefined,
    to: run.window_end ?? undefined,
    limit: 200,
  });
  // Without stored messages (an evaluation of a file), the judged text is in the verdicts' context.
  const snippets = [...new Set(scores.map((s) => s.context_snippet).filter((s): s is string => !!s))];
  const usage = run.token_usage;
  const body = html`<h1>Run ${shortId(run.id)} <span class="muted">of <a href="/agents/${encodeURIComponent(run.agent_id)}">${run.agent_id}</a></span></h1>
<dl class="facts">
<dt>Status</dt><dd><span class="status ${run.status}">${run.status}</span>${run.error ? html` — ${run.error}` : ""}</dd>
<dt>Created</dt><dd>${when(run.created_at)}</dd>
<dt>Overall</dt><dd>${score9(run.overall_score)}</dd>
<dt>Judge</dt><dd>${judgeText(run)}${run.judge ? html`, prompt ${run.judge.prompt_version}${run.judge.double_check ? ", double-checked" : ""}` : ""}</dd>
<dt>Trial</dt><dd>${run.trial}</dd>
<dt>Messages judged</dt><dd>${run.sample_size}</dd>
<dt>Errored verdicts</dt><dd>${run.errored}</dd>
<dt>Token usage</dt><dd>${usage ? `${usage.input_tokens ?? 0} in, ${usage.output_tokens ?? 0} out` : "—"}</dd>
<dt>Propositions hash</dt><dd><code>${run.propositions_hash ?? "—"}</code></dd>
</dl>
<section><h2>Dimensions</h2>
<table class="scores"><thead><tr><th>Dimension</th><th>Score</th><th>Judged</th><th>Errored</th></tr></thead>
<tbody>${Object.entries(run.dimension_scores ?? {}).map(
    ([d, s]) =>
      html`<tr><td><a href="${hrefWith(`/runs/${run.id}`, { dimension: d })}">${d}</a></td><td class="num">${s.score === null && s.count != null ? String(s.count) : score9(s.score)}</td><td class="num">${s.judged ?? "—"}</td><td class="num">${s.errored ?? 0}</td></tr>`,
  )}</tbody></table>
${query.dimension ? html`<p>Showing ${query.dimension} only · <a href="/runs/${run.id}">all dimensions</a></p>` : ""}
</section>
${
  errored.length > 0
    ? html`<section><h2>Errored verdicts</h2><p>These were left out of the scores: the judge failed, it did not give a 9.</p>
<table><thead><tr><th>Proposition</th><th>Target</th><th>Error</th></tr></thead><tbody>${errored.map(
        (s) =>
          html`<tr><td>${s.dimension} / ${s.proposition_id}</td><td>${s.message_id ?? s.channel ?? "—"}</td><td>${s.error ?? "—"}</td></tr>`,
      )}</tbody></table></section>`
    : ""
}
${dimensions.map(
  (d) => html`<section><h2>Verdicts: ${d}</h2>
<table class="verdicts"><thead><tr><th>Proposition</th><th>Target</th><th>Trial</th><th>Status</th><th>Score</th><th>Raw</th><th>Reasoning</th></tr></thead>
<tbody>${scores.filter((s) => s.dimension === d).map(verdictRow)}</tbody></table></section>`,
)}
<section id="messages"><h2>Messages judged</h2>
${
  messages.length > 0
    ? html`<ol class="messages">${messages.map(
        (m) =>
          html`<li><span class="muted">${when(m.at)} · ${m.channel}${m.recipient ? ` → ${m.recipient}` : ""}</span><p class="message-text">${m.text}</p></li>`,
      )}</ol>`
    : snippets.length > 0
      ? html`${snippets.map((s) => html`<pre class="snippet">${s}</pre>`)}`
      : html`<p>The messages are not stored with this run.</p>`
}
</section>`;
  return layout({ title: `Run ${shortId(run.id)}`, section: "runs", body });
}
