// The Sessions pages: stored session analyses, and one analysis as the seed shows it — overall,
// coordination and intent-drift scores, a card per agent with its scores and recommendations, the turns
// with their bad-turn detections and the tool findings in place, the latency table.

import type { Session, SessionAnalysis, ToolFinding } from "../sessions/index.ts";
import { listSessionAnalyses, loadSessionAnalysis } from "../sessions/index.ts";
import { fetchPage } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { filterForm } from "./filter-form.ts";
import { hrefWith, jsonText, score1, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { firstRun, layout, nextPageLink } from "./layout.ts";
import { decodeCursor, type PageQuery } from "./page-query.ts";

export async function sessionsPage({ store }: DashboardContext, query: PageQuery): Promise<Html> {
  const { agent, since, until, limit } = query;
  const page = await fetchPage(limit, (n) =>
    listSessionAnalyses({
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
        ? html`<p>No session analysis matches these filters.</p>`
        : firstRun("sessions")
      : html`<table class="sessions">
<thead><tr><th>Analysis</th><th>Created</th><th>Source</th><th>Status</th><th>Agents</th><th>Sessions</th><th>Judge</th></tr></thead>
<tbody>${page.rows.map(
          (r) => html`<tr>
<td><a href="/sessions/${r.id}">${shortId(r.id)}</a></td><td>${when(r.created_at)}</td><td>${r.source}</td>
<td><span class="status ${r.status}">${r.status}</span></td>
<td>${r.agents.map((a) => html`<a class="chip" href="${hrefWith("/sessions", { agent: a })}">${a}</a> `)}</td>
<td>${r.scores.map(
            (s) =>
              html`<span class="chip">${s.session_id ?? "session"} ${score1(s.overall_score)}${s.bad_turns ? html` · ${s.bad_turns} bad turn${s.bad_turns === 1 ? "" : "s"}` : ""}${s.findings ? html` · ${s.findings} finding${s.findings === 1 ? "" : "s"}` : ""}</span> `,
          )}</td>
<td>${r.judge ?? "—"}</td>
</tr>`,
        )}</tbody></table>`;
  return layout({
    title: "Sessions",
    section: "sessions",
    body: html`<h1>Sessions</h1>
${filterForm("/sessions", query, ["agent", "since", "until"])}
${body}
${nextPageLink(page.next && hrefWith("/sessions", { agent, since, until, cursor: page.next }))}`,
  });
}

const METRICS = ["tool_use", "reasoning", "handoff", "response_quality"] as const;

function agentCard(id: string, scores: SessionAnalysis["per_agent_scores"][string]): Html {
  return html`<article class="agent-card" data-agent="${id}">
<h3>${id} <span class="score">${score1(scores.overall)}</span></h3>
<dl class="metrics">${METRICS.map((m) => html`<dt>${m.replace("_", " ")}</dt><dd>${score1(scores[m])}</dd>`)}</dl>
<p class="muted">${scores.interactions_count} interaction${scores.interactions_count === 1 ? "" : "s"}</p>
${scores.issues.length > 0 ? html`<h4>Issues</h4><ul class="issues">${scores.issues.map((i) => html`<li>${i}</li>`)}</ul>` : ""}
<h4>Recommendations</h4>
${
  scores.recommendations.length > 0
    ? html`<ul class="recommendations">${scores.recommendations.map((r) => html`<li>${r}</li>`)}</ul>`
    : html`<p class="muted">None: every metric is at or above its threshold.</p>`
}
</article>`;
}

function findingItem(f: ToolFinding): Html {
  return html`<li class="finding ${f.severity}"><strong>${f.agent_id} → ${f.tool_name}</strong>: ${f.message} <span class="muted">${f.type} · <code>${f.path}</code></span></li>`;
}

/** A finding's step in its session, from its JSON path (`turns[0].agent_interactions[1].agent_steps[2]…`). */
const STEP_PATH = /^turns\[(\d+)\]\.agent_interactions\[(\d+)\]\.agent_steps\[(\d+)\]/;

/**
 * The session's turns as they were analysed (the stored input: the analysis itself keeps only counts of
 * them), each tool finding beside the step whose call it is about.
 */
function conversationSection(session: Session, findings: readonly ToolFinding[]): Html {
  const byStep = new Map<string, ToolFinding[]>();
  for (const f of findings) {
    const m = STEP_PATH.exec(f.path);
    if (m) byStep.set(`${m[1]}.${m[2]}.${m[3]}`, [...(byStep.get(`${m[1]}.${m[2]}.${m[3]}`) ?? []), f]);
  }
  return html`<h3>Conversation</h3>
<ol class="conversation">${session.turns.map(
    (turn, t) => html`<li class="turn" id="turn-${turn.turn_index}">
<p class="user"><strong>User</strong> ${turn.user_message}</p>
${turn.agent_interactions.map(
  (x, i) => html`<div class="interaction" data-agent="${x.agent_id}">
<p class="agent"><strong>${x.agent_id}</strong>${x.latency_ms === undefined ? "" : html` <span class="muted">${x.latency_ms} ms</span>`}</p>
${
  x.agent_steps.length > 0
    ? html`<ol class="steps">${x.agent_steps.map((step, s) => {
        const mine = byStep.get(`${t}.${i}.${s}`) ?? [];
        return html`<li class="step${mine.length > 0 ? " with-findings" : ""}">
${step.thought ? html`<p class="thought">${step.thought}</p>` : ""}
${step.tool_call ? html`<p class="tool-call"><code>${step.tool_call.tool_name}</code> <code>${step.tool_call.arguments_text ?? jsonText(step.tool_call.parameters)}</code></p>` : ""}
${step.handoff ? html`<p class="handoff">hands off to <strong>${step.handoff.to}</strong>${step.handoff.context ? html`: ${step.handoff.context}` : ""}</p>` : ""}
${mine.length > 0 ? html`<ul class="findings">${mine.map(findingItem)}</ul>` : ""}
</li>`;
      })}</ol>`
    : ""
}
${x.output ? html`<p class="output">${x.output}</p>` : ""}
</div>`,
)}
${turn.final_response ? html`<p class="final"><strong>Answer</strong> ${turn.final_response}</p>` : ""}
</li>`,
  )}</ol>`;
}

function analysisSection(a: SessionAnalysis, session: Session | undefined): Html {
  const findingsByTurn = new Map<number, ToolFinding[]>();
  for (const f of a.tool_validation)
    findingsByTurn.set(f.turn_index, [...(findingsByTurn.get(f.turn_index) ?? []), f]);
  // With the session's turns at hand the findings are shown in place, and the table links to them.
  const findingsCell = (turn: number, findings: ToolFinding[]) =>
    findings.length === 0
      ? "—"
      : session
        ? html`<a href="#turn-${turn}">${findings.length} finding${findings.length === 1 ? "" : "s"}</a>`
        : html`<ul class="findings">${findings.map(findingItem)}</ul>`;
  return html`<section class="session">
<h2>Session ${a.session_id ?? ""}${a.task_id ? html` <span class="muted">task ${a.task_id}</span>` : ""}</h2>
<div class="tiles">
<div class="tile"><span class="label">Overall</span><span class="value">${score1(a.overall_score)}</span></div>
<div class="tile"><span class="label">Coordination</span><span class="value">${score1(a.coordination_score)}</span></div>
<div class="tile"><span class="label">Intent drift</span><span class="value">${score1(a.intent_drift_score)}</span><span class="muted">lower is better</span></div>
<div class="tile"><span class="label">Task completed</span><span class="value">${a.task_completion === null ? "—" : a.task_completion ? "yes" : "no"}</span></div>
<div class="tile"><span class="label">Bad turns</span><span class="value">${a.conversation.bad_responses} / ${a.conversation.total_responses}</span></div>
<div class="tile"><span class="label">Tool calls with findings</span><span class="value">${a.tool_calls.with_findings} / ${a.tool_calls.total}</span></div>
</div>
<h3>Agents</h3>
<div class="cards">${Object.entries(a.per_agent_scores).map(([id, s]) => agentCard(id, s))}</div>
${
  a.recommendations.length > 0
    ? html`<h3>Recommendations</h3><ul class="recommendations">${a.recommendations.map(
        (r) =>
          html`<li><strong>${r.agent_id ?? "ensemble"}</strong>: ${r.text} <span class="muted">(${r.condition}: ${score1(r.value)})</span>${
            r.findings.length > 0 ? html`<ul>${r.findings.map((f) => html`<li>${f}</li>`)}</ul>` : ""
          }</li>`,
      )}</ul>`
    : ""
}
<h3>Turns</h3>
<table class="turns"><thead><tr><th>Turn</th><th>Detection</th><th>Confidence</th><th>Interactions</th><th>Tool findings</th></tr></thead>
<tbody>${a.turn_results.map((t) => {
    const findings = findingsByTurn.get(t.turn_index) ?? [];
    return html`<tr class="${t.is_bad ? "bad" : ""}">
<td>${t.turn_index + 1}</td>
<td>${t.is_bad ? html`<span class="status failed">bad: ${t.detection_type}</span>` : t.is_bad === null ? "unknown" : "good"}${t.reason ? html`<p>${t.reason}</p>` : ""}</td>
<td class="num">${score1(t.confidence)}</td>
<td>${t.interactions.map((x) => html`<span class="chip">${x.agent_id} ${score1(x.score)}</span> `)}</td>
<td>${findingsCell(t.turn_index, findings)}</td>
</tr>`;
  })}</tbody></table>
${session ? conversationSection(session, a.tool_validation) : ""}
<h3>Latency</h3>
<table class="latency"><thead><tr><th>Agent or tool</th><th>Calls</th><th>p50 ms</th><th>p95 ms</th><th>Max ms</th><th>Total ms</th></tr></thead>
<tbody>${Object.entries(a.latency.per_agent).map(
    ([id, l]) =>
      html`<tr><td>${id}</td><td class="num">${l.interactions}</td><td class="num">${l.p50_ms ?? "—"}</td><td class="num">${l.p95_ms ?? "—"}</td><td class="num">${l.max_ms ?? "—"}</td><td class="num">${l.total_ms}</td></tr>`,
  )}${Object.entries(a.latency.per_tool).map(
    ([id, l]) =>
      html`<tr class="tool"><td>tool ${id}${l.errors ? html` <span class="muted">(${l.errors} errors)</span>` : ""}</td><td class="num">${l.calls}</td><td class="num">${l.p50_ms ?? "—"}</td><td class="num">${l.p95_ms ?? "—"}</td><td class="num">${l.max_ms ?? "—"}</td><td class="num">${l.total_ms}</td></tr>`,
  )}</tbody></table>
<p class="muted">Session total: ${a.latency.total_latency_ms ?? "—"} ms${a.cost.agents !== null ? ` · agents' cost ${a.cost.agents}` : ""} · judge ${a.judge.spec}${a.judge.errored ? `, ${a.judge.errored} errored` : ""}</p>
</section>`;
}

export async function sessionPage({ store }: DashboardContext, id: string): Promise<Html | undefined> {
  const row = await store.evaluations.get(id);
  if (row?.kind !== "session") return undefined;
  const body =
    row.status !== "completed"
      ? html`<h1>Session analysis ${shortId(id)}</h1><p>This analysis is ${row.status}; it has no result yet.</p>`
      : await (async () => {
          const result = await loadSessionAnalysis({ store, id });
          // The sessions as analysed, one per analysis in order (stored with the evaluation for resume); an
          // analysis stored without them (by an older version) shows its findings per turn instead.
          const input = (await store.evaluations.input(id)) as { sessions?: unknown } | undefined;
          const sessions = Array.isArray(input?.sessions) ? (input.sessions as Session[]) : [];
          const sessionOf = (i: number) =>
            sessions.length === result.analyses.length && Array.isArray(sessions[i]?.turns)
              ? sessions[i]
              : undefined;
          return html`<h1>Session analysis ${shortId(id)} <span class="muted">${when(row.created_at)}</span></h1>
<p class="muted">From ${result.sources.map((s) => `${s.file} (${s.from})`).join(", ")}</p>
${result.analyses.map((a, i) => analysisSection(a, sessionOf(i)))}`;
        })();
  return layout({ title: `Session ${shortId(id)}`, section: "sessions", body });
}
