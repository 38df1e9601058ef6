// The search page (`/search?q=`): what the header's search box finds among agents, runs, session analyses,
// imported messages, the messages of evaluated transcripts and the judge's reasoning, each kind's hits with links
// to their pages — a transcript's message to it on its run's page, a reasoning to its verdict's row — texts with
// the matched words marked and the whole a click away (<details>, no script). Matching and ranking are the
// store's (search.ts).
import { z } from "zod";
import { plainIssueMessage } from "../core/index.ts";
import {
  type AgentHit,
  MAX_SEARCH_LIMIT,
  type MessageHit,
  type ReasoningHit,
  type RunHit,
  type SearchResults,
  type SessionHit,
  type SnippetPart,
  searchQueryProblem,
  type TranscriptHit,
} from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { hrefWith, score9, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { layout } from "./layout.ts";
import { PageInputError } from "./page-query.ts";
import { messageHref, verdictHref } from "./run-verdicts.ts";

const DEFAULT_LIMIT = 20;

/** `q` absent shows the form; present, it must be something to look for (else a 400 naming it). */
const SearchPageQuery = z.object({
  q: z
    .string({ error: plainIssueMessage })
    .superRefine((q, ctx) => {
      const problem = searchQueryProblem(q);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
  limit: z.coerce
    .number({ error: plainIssueMessage })
    .int({ error: plainIssueMessage })
    .min(1, { error: plainIssueMessage })
    .max(MAX_SEARCH_LIMIT, { error: plainIssueMessage })
    .default(DEFAULT_LIMIT),
});

function parseSearchPageQuery(query: Record<string, string>) {
  const parsed = SearchPageQuery.safeParse(query, { error: plainIssueMessage });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new PageInputError(issue.message, issue.path.join(".") || "query");
}

const HINT = html`<p class="muted search-hint">Words in any order, case ignored; <code>"a phrase"</code>; <code>-word</code> to leave out; <code>or</code> between alternatives. Runs and session analyses also by the first characters of their id, or by an agent's id or name. Messages are those imported and those of the transcripts evaluated; the judge's reasoning is every verdict's.</p>`;

function searchForm(q: string | undefined): Html {
  return html`<form class="search-form" method="get" action="/search" role="search">
<label>Look for <input type="search" name="q" value="${q ?? ""}" maxlength="200" required></label>
<button type="submit">Search</button>
</form>`;
}

/** A snippet's text, its matched words in <mark>; every part escaped (it is message or persona text). */
function snippet(parts: readonly SnippetPart[]): Html {
  return html`${parts.map((p) => (p.match ? html`<mark>${p.text}</mark>` : p.text))}`;
}

/** The kinds of hits, each a section of the page. */
type HitKind = "agents" | "runs" | "sessions" | "messages" | "transcripts" | "reasonings";

/** A kind's hits: its heading with their count, then their list, or a line that says there is none. */
function hitsSection<K extends HitKind>(
  results: SearchResults,
  limit: number,
  kind: K,
  [title, none]: [string, string],
  list: (hits: SearchResults[K]["hits"]) => Html,
): Html {
  const group = results[kind];
  const count = group.hits.length;
  const more = group.more
    ? limit < MAX_SEARCH_LIMIT
      ? html` <span class="muted">— the first ${count}; <a href="${hrefWith("/search", { q: results.q, limit: MAX_SEARCH_LIMIT })}">show up to ${MAX_SEARCH_LIMIT}</a></span>`
      : html` <span class="muted">— the first ${count}; add words to narrow it down</span>`
    : "";
  return html`<section class="search-${kind}">
<h2>${title} <span class="muted">(${count}${group.more ? "+" : ""})</span>${more}</h2>
${count === 0 ? html`<p class="muted">${none}</p>` : list(group.hits)}
</section>`;
}

function agentHits(hits: readonly AgentHit[]): Html {
  return html`<ul class="search-hits">${hits.map(
    (a) =>
      html`<li><a href="/agents/${encodeURIComponent(a.id)}">${a.name}</a> <span class="muted">${a.id}</span><p class="snippet">${snippet(a.snippet)}</p></li>`,
  )}</ul>`;
}

function runHits(hits: readonly RunHit[]): Html {
  return html`<table class="search-runs">
<thead><tr><th>Run</th><th>Created</th><th>Agent</th><th>Status</th><th class="num">Overall</th></tr></thead>
<tbody>${hits.map(
    (r) => html`<tr>
<td><a href="/runs/${r.id}"><code>${shortId(r.id)}</code></a></td>
<td>${when(r.created_at)}</td>
<td><a href="/agents/${encodeURIComponent(r.agent_id)}">${r.agent_name ?? r.agent_id}</a></td>
<td><span class="status ${r.status}">${r.status}</span></td>
<td class="num">${score9(r.overall_score)}</td>
</tr>`,
  )}</tbody>
</table>`;
}

function sessionHits(hits: readonly SessionHit[]): Html {
  return html`<table class="search-sessions">
<thead><tr><th>Analysis</th><th>Created</th><th>Source</th><th>Status</th><th>Agents</th></tr></thead>
<tbody>${hits.map(
    (s) => html`<tr>
<td><a href="/sessions/${s.id}"><code>${shortId(s.id)}</code></a></td>
<td>${when(s.created_at)}</td>
<td>${s.source}</td>
<td><span class="status ${s.status}">${s.status}</span></td>
<td>${s.agents.join(", ")}</td>
</tr>`,
  )}</tbody>
</table>`;
}

/** A message hit: who said it where and when (the sender's page when it is an agent), the snippet, the whole. */
function messageHit(m: MessageHit): Html {
  const sender = m.sender_is_agent
    ? html`<a href="/agents/${encodeURIComponent(m.sender)}">${m.sender}</a>`
    : html`<span>${m.sender}</span>`;
  const cut = m.snippet.map((p) => p.text).join("") !== m.text;
  return html`<li>
<p class="muted">${sender} in ${m.channel}${m.recipient ? html` to ${m.recipient}` : ""} · ${when(m.at)} · <code>${m.id}</code> of ${m.source}</p>
<p class="snippet">${snippet(m.snippet)}</p>
${cut ? html`<details class="message"><summary>The whole message</summary><p class="message-text">${m.text}</p></details>` : ""}
</li>`;
}

/** The whole text under its snippet when the snippet was cut from it. */
function whole(text: string, parts: readonly SnippetPart[], summary: string): Html {
  return parts.map((p) => p.text).join("") === text
    ? html``
    : html`<details class="message"><summary>${summary}</summary><p class="message-text">${text}</p></details>`;
}

/** A message of an evaluated transcript: its kind, who said it where, the snippet, a link to it on its run's page. */
function transcriptHit(m: TranscriptHit): Html {
  const where = html`<code>${m.id}</code> · ${m.sender} in ${m.channel}${m.recipient ? html` to ${m.recipient}` : ""}`;
  return html`<li>
<p class="muted"><span class="tag hit-kind">evaluated message</span> ${m.run_id === null ? where : html`<a href="${messageHref(m.run_id, m.id)}">${where}</a>`} · ${m.judged ? "judged in" : "read around the verdicts of"} run ${m.run_id === null ? "—" : html`<a href="/runs/${m.run_id}">${shortId(m.run_id)}</a>`} · ${when(m.created_at)}</p>
<p class="snippet">${snippet(m.snippet)}</p>
${whole(m.text, m.snippet, "The whole message")}
</li>`;
}

/** A verdict whose reasoning matched: its kind, proposition, target and score, the snippet, a link to its row. */
function reasoningHit(r: ReasoningHit): Html {
  const target = r.message_id === null ? "the agent as a whole" : html`message <code>${r.message_id}</code>`;
  return html`<li>
<p class="muted"><span class="tag hit-kind">judge's reasoning</span> <a href="${verdictHref(r.run_id, { ...r })}">${r.dimension} · <code>${r.proposition_id}</code> on ${target}${r.trial > 1 ? ` (trial ${r.trial})` : ""}</a> · score ${score9(r.score)} · run <a href="/runs/${r.run_id}">${shortId(r.run_id)}</a>${r.agent_id ? html` of ${r.agent_id}` : ""} · ${when(r.created_at)}</p>
<p class="snippet">${snippet(r.snippet)}</p>
${whole(r.reasoning, r.snippet, "The whole reasoning")}
</li>`;
}

export async function searchPage({ store }: DashboardContext, query: Record<string, string>): Promise<Html> {
  const { q, limit } = parseSearchPageQuery(query);
  if (q === undefined)
    return layout({ title: "Search", body: html`<h1>Search</h1>${searchForm(undefined)}${HINT}` });
  const results = await store.search.query({ q, limit });
  const total = (["agents", "runs", "sessions", "messages", "transcripts", "reasonings"] as const).reduce(
    (n, kind) => n + results[kind].hits.length,
    0,
  );
  return layout({
    title: `Search: ${results.q}`,
    body: html`<h1>Search</h1>
${searchForm(results.q)}
${HINT}
${total === 0 ? html`<p>Nothing matches <strong>${results.q}</strong>.</p>` : ""}
${hitsSection(results, limit, "agents", ["Agents", "No agent."], agentHits)}
${hitsSection(results, limit, "runs", ["Runs", "No run."], runHits)}
${hitsSection(results, limit, "sessions", ["Session analyses", "No session analysis."], sessionHits)}
${hitsSection(results, limit, "messages", ["Messages", "No imported message."], (hits) => html`<ol class="search-hits">${hits.map(messageHit)}</ol>`)}
${hitsSection(results, limit, "transcripts", ["In evaluated transcripts", "No message of an evaluated transcript."], (hits) => html`<ol class="search-hits">${hits.map(transcriptHit)}</ol>`)}
${hitsSection(results, limit, "reasonings", ["In the judge's reasoning", "No verdict's reasoning."], (hits) => html`<ol class="search-hits">${hits.map(reasoningHit)}</ol>`)}`,
  });
}
