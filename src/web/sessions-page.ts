// The Sessions pages: stored session analyses (failures only, sortable columns), and one analysis as the
// seed shows it — overall, coordination and intent-drift scores, a card per agent with its scores and
// recommendations, the turns with their bad-turn detections, the session as a trace (session-timeline.ts),
// the latency table.

import { langfuseTraceUrl, phoenixTraceUrl } from "../export/index.ts";
import {
  type AgentScores,
  loadSessionAnalysis,
  RECOMMENDATION_THRESHOLD,
  type Session,
  type SessionAnalysis,
  type SessionsAnalysis,
  type ToolFinding,
} from "../sessions/index.ts";
import type { EvaluationRow, Store } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { evaluationPage } from "./evaluation-page.ts";
import { pathText, score1, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { failuresSwitch, parseFailuresOnly, type SortColumn } from "./list-view.ts";
import { sessionTrace, turnAnchor, turnIssues, turnNumber } from "./session-timeline.ts";
import type { KindList } from "./stored-list-page.ts";
import { exportedToPhoenix, traceLinks } from "./trace-links.ts";

/** A stored session analysis as the list shows it: its sessions' figures and what failed in them. */
interface SessionListRow {
  id: string;
  created_at: string;
  status: string;
  source: string;
  agents: string[];
  judge: string | null;
  sessions: {
    session_id: string | null;
    overall: number | null;
    bad_turns: number;
    /** Calls that broke their tool's schema, and tool errors. */
    findings: number;
    failures: string[];
  }[];
  /** Every failure of its sessions (and of the analysis itself). */
  failures: string[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * What failed in a session: a judged metric below the recommendation threshold (an agent's or the
 * coordination), a bad turn, a call that broke its tool's schema, a tool error, a task not completed.
 */
export function sessionFailures(a: SessionAnalysis): string[] {
  const out: string[] = [];
  const low = (v: number | null): v is number => v !== null && v < RECOMMENDATION_THRESHOLD;
  for (const [agent, s] of Object.entries(a.per_agent_scores))
    for (const m of METRICS)
      if (low(s[m]))
        out.push(`${agent} ${m.replace("_", " ")} ${score1(s[m])} < ${RECOMMENDATION_THRESHOLD}`);
  if (low(a.coordination_score))
    out.push(`coordination ${score1(a.coordination_score)} < ${RECOMMENDATION_THRESHOLD}`);
  if (a.conversation.bad_responses > 0) out.push(plural(a.conversation.bad_responses, "bad turn"));
  const invalid = a.tool_validation.filter((f) => f.type !== "tool_error").length;
  if (invalid > 0) out.push(`${plural(invalid, "tool call")} breaking the tool's schema`);
  const errors = a.tool_validation.length - invalid;
  if (errors > 0) out.push(plural(errors, "tool error"));
  if (a.task_completion === false) out.push("task not completed");
  return out;
}

async function sessionListRows(store: Store, rows: readonly EvaluationRow[]): Promise<SessionListRow[]> {
  return Promise.all(
    rows.map(async (row) => {
      const result =
        row.status === "completed"
          ? ((await store.evaluations.result(row.id)) as SessionsAnalysis | undefined)
          : undefined;
      const analyses = Array.isArray(result?.analyses) ? result.analyses : [];
      const sessions = analyses.map((a) => {
        const failures = sessionFailures(a);
        return {
          session_id: a.session_id,
          overall: a.overall_score,
          bad_turns: a.conversation.bad_responses,
          findings: a.tool_validation.length,
          failures,
        };
      });
      return {
        id: row.id,
        created_at: row.created_at,
        status: row.status,
        source: row.source,
        agents: row.agents,
        judge: result?.judge?.spec ?? (result ? "none" : null),
        sessions,
        failures: [
          ...(row.status === "failed" ? ["the analysis failed"] : []),
          ...sessions.flatMap((x) => x.failures),
        ],
      };
    }),
  );
}

const SESSION_SORTS = ["created", "source", "status", "overall", "bad_turns", "findings", "judge"] as const;
type SessionSort = (typeof SESSION_SORTS)[number];

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
const lowest = (values: readonly (number | null)[]) => {
  const known = values.filter((v): v is number => v !== null);
  return known.length > 0 ? Math.min(...known) : null;
};

/** Over a row's sessions: the lowest overall score, the bad turns and the tool findings (none without one). */
const overall = (r: SessionListRow) => lowest(r.sessions.map((x) => x.overall));
const badTurns = (r: SessionListRow) => (r.sessions.length ? sum(r.sessions.map((x) => x.bad_turns)) : null);
const findings = (r: SessionListRow) => (r.sessions.length ? sum(r.sessions.map((x) => x.findings)) : null);

const SESSION_COLUMNS: readonly SortColumn<SessionListRow, SessionSort>[] = [
  { key: "created", label: "Created", value: (r) => r.created_at },
  { key: "source", label: "Source", value: (r) => r.source },
  { key: "status", label: "Status", value: (r) => r.status },
  { key: "overall", label: "Overall (lowest)", numeric: true, value: overall },
  { key: "bad_turns", label: "Bad turns", numeric: true, value: badTurns },
  { key: "findings", label: "Tool findings", numeric: true, value: findings },
  { key: "judge", label: "Judge", value: (r) => r.judge },
];

/** A short list of what failed (the page of the analysis has the rest). */
function failureList(failures: readonly string[]): Html {
  if (failures.length === 0) return html``;
  const shown = failures.slice(0, 3);
  return html`<ul class="failure-reasons">${shown.map((f) => html`<li>${f}</li>`)}${
    failures.length > shown.length
      ? html`<li class="muted">and ${failures.length - shown.length} more</li>`
      : ""
  }</ul>`;
}

/** The Sessions list: failures are a judged metric under the threshold, a bad turn, a finding, a task not done. */
export const sessionsList: KindList<SessionListRow, SessionSort> = {
  rows: sessionListRows,
  columns: SESSION_COLUMNS,
  header: (th) =>
    html`<th>Analysis</th>${th("created")}${th("source")}${th("status")}<th>Agents</th><th>Sessions</th>${th("overall")}${th("bad_turns")}${th("findings")}${th("judge")}`,
  row: (r, { href }) => html`<tr class="${r.failures.length > 0 ? "failed" : ""}">
<td><a href="/sessions/${r.id}">${shortId(r.id)}</a></td><td class="when">${when(r.created_at)}</td><td class="path">${pathText(r.source)}</td>
<td><span class="status ${r.status}">${r.status}</span></td>
<td>${r.agents.map((a) => html`<a class="chip" href="${href({ agent: a })}">${a}</a> `)}</td>
<td>${r.sessions.map((x) => html`<span class="chip">${x.session_id ?? "session"}</span> ${failureList(x.failures)}`)}${
    r.status === "failed" ? failureList(["the analysis failed"]) : ""
  }</td>
<td class="num">${score1(overall(r))}</td>
<td class="num">${badTurns(r) ?? "—"}</td>
<td class="num">${findings(r) ?? "—"}</td>
<td class="path">${r.judge ? pathText(r.judge) : "—"}</td>
</tr>`,
  keep: (r) => r.failures.length > 0,
  failures: html`analyses with a judged metric below ${RECOMMENDATION_THRESHOLD}, a bad turn, a tool call that broke its schema, a tool error, or a task not completed.`,
  form: "sessions",
  counted: "analyses",
};

const METRICS = ["tool_use", "reasoning", "handoff", "response_quality"] as const;

const LEFT_OUT_WORDS: Record<string, string> = {
  not_judged: "not judged",
  errored: "the judge failed",
};

/**
 * Why an agent has no recommendation, without claiming more than was judged: with `--judge none` nothing
 * was compared with its threshold, and a low metric the seed's table has no row for is named.
 */
function noRecommendation(scores: AgentScores): Html {
  const unknown = scores.left_out
    .filter((l) => l.reason !== "not_applicable")
    .map((l) => `${l.metric.replace("_", " ")} (${LEFT_OUT_WORDS[l.reason] ?? l.reason})`);
  const judged = METRICS.filter((m) => scores[m] !== null);
  const below = judged.filter((m) => (scores[m] as number) < RECOMMENDATION_THRESHOLD);
  if (judged.length === 0)
    return html`<p class="muted">None: no metric was judged${unknown.length ? html` — ${unknown.join(", ")}` : ""}, so none was compared with its threshold.</p>`;
  const rest = unknown.length ? html` Unknown: ${unknown.join(", ")}.` : "";
  if (below.length > 0)
    return html`<p class="muted">None in the seed's table for ${below.map((m) => `${m.replace("_", " ")} ${score1(scores[m])}`).join(", ")}, below ${RECOMMENDATION_THRESHOLD}.${rest}</p>`;
  return html`<p class="muted">None: every judged metric is at or above its threshold (${RECOMMENDATION_THRESHOLD}).${rest}</p>`;
}

function agentCard(id: string, scores: AgentScores): Html {
  return html`<article class="agent-card" data-agent="${id}">
<h3>${id} <span class="score">${score1(scores.overall)}</span></h3>
<dl class="metrics">${METRICS.map((m) => html`<dt>${m.replace("_", " ")}</dt><dd>${score1(scores[m])}</dd>`)}</dl>
<p class="muted">${scores.interactions_count} interaction${scores.interactions_count === 1 ? "" : "s"}</p>
${scores.issues.length > 0 ? html`<h4>Issues</h4><ul class="issues">${scores.issues.map((i) => html`<li>${i}</li>`)}</ul>` : ""}
<h4>Recommendations</h4>
${
  scores.recommendations.length > 0
    ? html`<ul class="recommendations">${scores.recommendations.map((r) => html`<li>${r}</li>`)}</ul>`
    : noRecommendation(scores)
}
</article>`;
}

function findingItem(f: ToolFinding): Html {
  return html`<li class="finding ${f.severity}"><strong>${f.agent_id} → ${f.tool_name}</strong>: ${f.message} <span class="muted">${f.type} · <code>${f.path}</code></span></li>`;
}

/** The Bad turns tile: a count only of the turns that were judged; unknown (—) when none was, and why. */
function badTurnsTile(a: SessionAnalysis): Html {
  const c = a.conversation;
  const judged = c.total_responses - c.unknown_responses;
  const why = a.judge.spec === "none" ? "not judged (judge none)" : "the judge gave no verdict";
  const unknown = judged === 0 && c.total_responses > 0;
  const note = unknown
    ? why
    : c.unknown_responses > 0
      ? `${c.unknown_responses} of ${c.total_responses} unknown: ${why}`
      : "";
  return html`<div class="tile"><span class="label">Bad turns</span><span class="value">${unknown ? "—" : `${c.bad_responses} / ${judged}`}</span>${
    note ? html`<span class="muted">${note}</span>` : ""
  }</div>`;
}

function analysisSection(
  a: SessionAnalysis,
  session: Session | undefined,
  idPrefix: string,
  onlyIssues: boolean,
): Html {
  const findingsByTurn = new Map<number, ToolFinding[]>();
  for (const f of a.tool_validation)
    findingsByTurn.set(f.turn_index, [...(findingsByTurn.get(f.turn_index) ?? []), f]);
  // With the session's turns at hand the findings are shown in place, and the table links to them.
  const findingsCell = (turn: number, findings: ToolFinding[]) =>
    findings.length === 0
      ? "—"
      : session
        ? html`<a href="#${turnAnchor(idPrefix, turn)}">${findings.length} finding${findings.length === 1 ? "" : "s"}</a>`
        : html`<ul class="findings">${findings.map(findingItem)}</ul>`;
  const unjudged = a.judge.spec === "none" ? html`<span class="muted">not judged</span>` : "";
  const turns = a.turn_results
    .map((t, position) => ({ t, issues: turnIssues(a, position) }))
    .filter(({ issues }) => !onlyIssues || issues.length > 0);
  return html`<section class="session">
<h2>Session ${a.session_id ?? ""}${a.task_id ? html` <span class="muted">task ${a.task_id}</span>` : ""}</h2>
<div class="tiles">
<div class="tile"><span class="label">Overall</span><span class="value">${score1(a.overall_score)}</span>${a.overall_score === null ? unjudged : ""}</div>
<div class="tile"><span class="label">Coordination</span><span class="value">${score1(a.coordination_score)}</span>${a.coordination_score === null ? unjudged : ""}</div>
<div class="tile"><span class="label">Intent drift</span><span class="value">${score1(a.intent_drift_score)}</span><span class="muted">lower is better</span></div>
<div class="tile"><span class="label">Task completed</span><span class="value">${a.task_completion === null ? "—" : a.task_completion ? "yes" : "no"}</span></div>
${badTurnsTile(a)}
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
${onlyIssues ? html`<p class="muted">Only the turns with an issue: ${turns.length} of ${a.turn_results.length}.</p>` : ""}
<table class="turns"><thead><tr><th class="num">Turn</th><th>Detection</th><th class="num">Confidence</th><th>Interactions</th><th>Tool findings</th><th>Issues</th></tr></thead>
<tbody>${turns.map(({ t, issues }) => {
    const findings = findingsByTurn.get(t.turn_index) ?? [];
    const number = turnNumber(t.turn_index);
    return html`<tr class="${t.is_bad ? "bad" : ""}">
<td class="num">${session ? html`<a href="#${turnAnchor(idPrefix, t.turn_index)}">${number}</a>` : number}</td>
<td>${t.is_bad ? html`<span class="status failed">bad: ${t.detection_type}</span>` : t.is_bad === null ? html`unknown ${unjudged}` : "good"}${t.reason ? html`<p>${t.reason}</p>` : ""}</td>
<td class="num">${t.is_bad === null ? "—" : score1(t.confidence)}</td>
<td>${t.interactions.map((x) => html`<span class="chip">${x.agent_id} ${score1(x.score)}</span> `)}</td>
<td>${findingsCell(t.turn_index, findings)}</td>
<td>${issues.length === 0 ? "—" : html`<ul class="failure-reasons">${issues.map((i) => html`<li>${i}</li>`)}</ul>`}</td>
</tr>`;
  })}</tbody></table>
${session ? sessionTrace(session, a, { idPrefix, onlyIssues }) : ""}
<h3>Latency</h3>
<table class="latency"><thead><tr><th>Agent or tool</th><th class="num">Calls</th><th class="num">p50 ms</th><th class="num">p95 ms</th><th class="num">Max ms</th><th class="num">Total ms</th></tr></thead>
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

/** The traces the analysed sessions came from (kept by the importers), the first few, in order. */
function traceIdsOf(sessions: readonly Session[]): string[] {
  const ids = new Set<string>();
  for (const s of sessions) for (const t of s.turns ?? []) if (t.trace?.trace_id) ids.add(t.trace.trace_id);
  return [...ids].slice(0, 5);
}

export async function sessionPage(
  context: DashboardContext,
  id: string,
  raw: Readonly<Record<string, string>> = {},
): Promise<Html | undefined> {
  const onlyIssues = parseFailuresOnly(raw);
  const here = { path: `/sessions/${id}`, params: {} };
  return evaluationPage(context, id, {
    kind: "session",
    title: `Session ${shortId(id)}`,
    section: "sessions",
    document: () => loadSessionAnalysis({ store: context.store, id }),
    none: (row) =>
      html`<h1>Session analysis ${shortId(id)}</h1><p>This analysis is ${row.status}; it has no result yet.</p>`,
    body: async (row, result) => {
      // The sessions as analysed, one per analysis in order (stored with the evaluation for resume); an
      // analysis stored without them (by an older version) shows its findings per turn instead.
      const input = (await context.store.evaluations.input(id)) as { sessions?: unknown } | undefined;
      const sessions = Array.isArray(input?.sessions) ? (input.sessions as Session[]) : [];
      const sessionOf = (i: number) =>
        sessions.length === result.analyses.length && Array.isArray(sessions[i]?.turns)
          ? sessions[i]
          : undefined;
      const traces = traceIdsOf(sessions);
      const inPhoenix =
        traces.length > 0 && (await exportedToPhoenix(context, id, { kind: "session", document: result }));
      return html`<h1>Session analysis ${shortId(id)} <span class="muted">${when(row.created_at)}</span></h1>
<p class="muted">From ${result.sources.map((s) => `${s.file} (${s.from})`).join(", ")}${context.langfuseHost && traces.length > 0 ? html` · ${traceLinks("Langfuse", traces, (t) => langfuseTraceUrl(context.langfuseHost!, t))}` : ""}${inPhoenix ? html` · ${traceLinks("Phoenix", traces, (t) => phoenixTraceUrl(context.phoenixHost!, t))}` : ""}</p>
${failuresSwitch({ failures: onlyIssues, sort: undefined, order: "asc" }, here, "turns with a bad-turn detection, a tool finding, or a judged metric below its threshold.", { all: "All turns", failures: "Only turns with an issue" })}
${result.analyses.map((a, i) => analysisSection(a, sessionOf(i), `s${i + 1}-`, onlyIssues))}`;
    },
  });
}
