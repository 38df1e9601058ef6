// The Conversations pages: stored conversation runs, and one run's result — both passes side by side,
// task scores with reasoning, assertions with expected and actual values, the composite and its parts.

import type { ConversationResult, PassResult } from "../conversations/index.ts";
import { listConversationResults, loadConversationResult } from "../conversations/index.ts";
import { fetchPage } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { filterForm } from "./filter-form.ts";
import { hrefWith, jsonText, milliseconds, score1, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { firstRun, layout, nextPageLink } from "./layout.ts";
import { decodeCursor, type PageQuery } from "./page-query.ts";

const PASS_TITLE: Record<string, string> = {
  without_facts: "Without the facts",
  with_facts: "With the facts",
};

export async function conversationsPage({ store }: DashboardContext, query: PageQuery): Promise<Html> {
  const { agent, since, until, limit } = query;
  const page = await fetchPage(limit, (n) =>
    listConversationResults({
      store,
      agent,
      since,
      until,
      after: decodeCursor(query.cursor),
      limit: n,
    }),
  );
  const body =
    page.rows.length === 0
      ? agent || since || until || query.cursor
        ? html`<p>No conversation matches these filters.</p>`
        : firstRun("conversations")
      : html`<table class="conversations">
<thead><tr><th>Run</th><th>Created</th><th>Job</th><th>Agent under test</th><th>Status</th><th>Composite per pass</th></tr></thead>
<tbody>${page.rows.map(
          (r) => html`<tr>
<td><a href="/conversations/${r.id}">${shortId(r.id)}</a></td><td>${when(r.created_at)}</td><td>${r.job}</td>
<td>${r.agent === null ? "—" : html`<a href="${hrefWith("/conversations", { agent: r.agent })}">${r.agent}</a>`}</td>
<td><span class="status ${r.status}">${r.status}</span></td>
<td>${r.passes.map((p) => html`<span class="chip">${PASS_TITLE[p.pass] ?? p.pass} ${score1(p.score)}</span> `)}</td>
</tr>`,
        )}</tbody></table>`;
  return layout({
    title: "Conversations",
    section: "conversations",
    body: html`<h1>Conversations</h1>
${filterForm("/conversations", query, ["agent", "since", "until"])}
${body}
${nextPageLink(page.next && hrefWith("/conversations", { agent, since, until, cursor: page.next }))}`,
  });
}

/** A stored pass, read defensively: results stored by older versions may lack parts. */
type StoredPass = Partial<Omit<PassResult, "composite">> & {
  pass: string;
  composite?: Partial<PassResult["composite"]>;
};

function passColumn(p: StoredPass): Html {
  const c = p.composite ?? {};
  const tasks = p.tasks ?? [];
  const assertions = p.assertions ?? [];
  const turns = p.transcript?.turns ?? [];
  const toolCalls = p.transcript?.tool_calls?.length ?? 0;
  const failures = p.transcript?.failures ?? 0;
  return html`<section class="pass" data-pass="${p.pass}">
<h2>${PASS_TITLE[p.pass] ?? p.pass} <span class="score">${score1(c.score)}</span></h2>
<table class="composite"><caption>Composite (${c.formula === "full" ? "(timing + 2·task + 4·assertions) / 7 − penalty" : "without assertions"})</caption>
<tbody>
<tr><th>Timing</th><td class="num">${score1(c.timing)}</td></tr>
<tr><th>Tasks</th><td class="num">${score1(c.task)}</td></tr>
<tr><th>Assertions</th><td class="num">${score1(c.assertions)}</td></tr>
<tr><th>Penalty</th><td class="num">${score1(c.penalty)}</td></tr>
<tr><th>Tone</th><td class="num">${score1(p.tone)}</td></tr>
</tbody></table>
<h3>Tasks</h3>
<table class="tasks"><thead><tr><th>Task</th><th>Score</th><th>Reasoning</th></tr></thead>
<tbody>${tasks.map((t) => html`<tr><td>${t.task} <span class="muted">${t.type}</span></td><td class="num">${score1(t.score)}</td><td>${t.reasoning}</td></tr>`)}</tbody></table>
<h3>Assertions</h3>
${
  assertions.length === 0
    ? html`<p class="muted">The job has no assertions.</p>`
    : html`<table class="assertions"><thead><tr><th>Assertion</th><th>Result</th><th>Expected</th><th>Actual</th></tr></thead>
<tbody>${assertions.map(
        (
          a,
        ) => html`<tr class="${a.passed ? "passed" : "failed"}"><td><code>${a.label}</code>${a.failed ? html`<p class="muted">false: <code>${a.failed}</code></p>` : ""}${a.error ? html`<p class="muted">${a.error}</p>` : ""}</td>
<td><span class="status ${a.passed ? "completed" : "failed"}">${a.passed ? "passed" : "failed"}</span></td><td><code>${jsonText(a.expected)}</code></td><td><code>${jsonText(a.actual)}</code></td></tr>`,
      )}</tbody></table>`
}
<h3>Transcript</h3>
<ol class="transcript">${turns.map(
    (t) =>
      html`<li class="turn ${t.role}"><span class="muted">${t.role}${t.latency_ms !== undefined ? ` · ${milliseconds(t.latency_ms)}` : ""}</span><p class="message-text">${t.content}</p></li>`,
  )}</ol>
<p class="muted">${toolCalls} tool call${toolCalls === 1 ? "" : "s"} · ${failures} failed request${failures === 1 ? "" : "s"}</p>
</section>`;
}

export async function conversationPage({ store }: DashboardContext, id: string): Promise<Html | undefined> {
  const row = await store.evaluations.get(id);
  if (row?.kind !== "conversation") return undefined;
  let body: Html;
  if (row.status !== "completed")
    body = html`<h1>Conversation ${shortId(id)}</h1><p>This run is ${row.status}; it has no result yet.</p>`;
  else {
    const result = (await loadConversationResult({ store, id })) as Partial<ConversationResult> & {
      passes?: StoredPass[];
    };
    body = html`<h1>Conversation ${shortId(id)} <span class="muted">${result.job ?? row.source} · ${when(row.created_at)}</span></h1>
<p>Difference with − without the facts: <strong>${score1(result.difference)}</strong>${result.judge ? ` · judge ${result.judge.spec}${result.judge.errored ? `, ${result.judge.errored} errored` : ""}` : ""}</p>
<div class="passes">${(result.passes ?? []).map(passColumn)}</div>`;
  }
  return layout({ title: `Conversation ${shortId(id)}`, section: "conversations", body });
}
