// The Conversations pages: stored conversation runs (failures only, sortable columns), and one run's result —
// both passes side by side, task scores with reasoning, assertions with expected and actual values, the
// composite and its parts; a pass whose simulated user broke its brief carries a badge, the judge's
// reasoning, and is kept apart from the agent's failures.

import {
  CONVERSATION_RESULT_FORMAT,
  type ConversationResult,
  loadConversationResult,
  type PassResult,
} from "../conversations/index.ts";
import { RECOMMENDATION_THRESHOLD } from "../sessions/index.ts";
import type { EvaluationRow, Store } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { evaluationPage } from "./evaluation-page.ts";
import { jsonText, milliseconds, score1, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import type { SortColumn } from "./list-view.ts";
import type { KindList } from "./stored-list-page.ts";

const PASS_TITLE: Record<string, string> = {
  without_facts: "Without the facts",
  with_facts: "With the facts",
};

/**
 * A composite or task score under this is a failure for the failures-only view. A job has no threshold of
 * its own (`converse --min-score` is the command's and is not stored), so the page uses the sessions'
 * recommendation threshold, and says so.
 */
const PASS_THRESHOLD = RECOMMENDATION_THRESHOLD;

interface ConversationListRow {
  id: string;
  created_at: string;
  status: string;
  job: string;
  agent: string | null;
  passes: { pass: string; score: number | null; simulator_fault: boolean }[];
  failures: string[];
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * What failed in a conversation run: the run itself, a pass that could not be scored or whose agent
 * failed, a composite or task score under the threshold, a failed assertion, failed requests to the agent.
 */
function conversationFailures(status: string, result: Partial<ConversationResult> | undefined): string[] {
  const out: string[] = [];
  if (status === "failed") out.push("the run failed");
  if (result?.unscored) out.push(`not scored: ${result.unscored}`);
  const low = (v: number | null | undefined): v is number => typeof v === "number" && v < PASS_THRESHOLD;
  for (const p of (result?.passes ?? []) as StoredPass[]) {
    const title = PASS_TITLE[p.pass] ?? p.pass;
    // The simulated user broke its brief: the pass says nothing of the agent, and is no failure of its own.
    if (p.simulator_fault) continue;
    if (p.unscored) out.push(`${title}: not scored (${p.unscored})`);
    else if (low(p.composite?.score))
      out.push(`${title}: composite ${score1(p.composite?.score)} < ${PASS_THRESHOLD}`);
    for (const t of p.tasks ?? [])
      if (low(t.score)) out.push(`${title}: task ${t.task} ${score1(t.score)} < ${PASS_THRESHOLD}`);
    const failed = (p.assertions ?? []).filter((a) => !a.passed).length;
    if (failed > 0) out.push(`${title}: ${plural(failed, "assertion")} failed`);
    if (p.transcript?.ended === "agent_failed") out.push(`${title}: the agent failed`);
    else if ((p.transcript?.failures ?? 0) > 0)
      out.push(`${title}: ${plural(p.transcript!.failures, "failed request")}`);
  }
  return out;
}

async function conversationListRows(
  store: Store,
  rows: readonly EvaluationRow[],
): Promise<ConversationListRow[]> {
  return Promise.all(
    rows.map(async (row) => {
      const result =
        row.status === "completed"
          ? ((await store.evaluations.result(row.id)) as Partial<ConversationResult> | undefined)
          : undefined;
      const ours = result?.format === CONVERSATION_RESULT_FORMAT;
      return {
        id: row.id,
        created_at: row.created_at,
        status: row.status,
        job: result?.job ?? row.source,
        agent: row.agents[0] ?? null,
        passes: ours
          ? ((result.passes ?? []) as StoredPass[]).map((p) => ({
              pass: p.pass,
              score: p.composite?.score ?? null,
              simulator_fault: p.simulator_fault === true,
            }))
          : [],
        failures: conversationFailures(row.status, ours ? result : undefined),
      };
    }),
  );
}

const CONVERSATION_SORTS = ["created", "job", "agent", "status", "score"] as const;
type ConversationSort = (typeof CONVERSATION_SORTS)[number];

/** A row's lowest composite score over its passes, simulator faults left out (none without a scored pass). */
const lowestComposite = (r: ConversationListRow) => {
  const known = r.passes
    .filter((p) => !p.simulator_fault)
    .map((p) => p.score)
    .filter((v): v is number => v !== null);
  return known.length > 0 ? Math.min(...known) : null;
};

const CONVERSATION_COLUMNS: readonly SortColumn<ConversationListRow, ConversationSort>[] = [
  { key: "created", label: "Created", value: (r) => r.created_at },
  { key: "job", label: "Job", value: (r) => r.job },
  { key: "agent", label: "Agent under test", value: (r) => r.agent },
  { key: "status", label: "Status", value: (r) => r.status },
  { key: "score", label: "Lowest composite", numeric: true, value: lowestComposite },
];

/** The Conversations list: failures are a failed run or pass, a score under the threshold, a failed assertion. */
export const conversationsList: KindList<ConversationListRow, ConversationSort> = {
  rows: conversationListRows,
  columns: CONVERSATION_COLUMNS,
  header: (th) =>
    html`<th>Run</th>${th("created")}${th("job")}${th("agent")}${th("status")}<th>Composite per pass</th>${th("score")}<th>Failures</th>`,
  row: (r, { href }) => html`<tr class="${r.failures.length > 0 ? "failed" : ""}">
<td><a href="/conversations/${r.id}">${shortId(r.id)}</a></td><td>${when(r.created_at)}</td><td>${r.job}</td>
<td>${r.agent === null ? "—" : html`<a href="${href({ agent: r.agent })}">${r.agent}</a>`}</td>
<td><span class="status ${r.status}">${r.status}</span></td>
<td>${r.passes.map((p) => html`<span class="chip">${PASS_TITLE[p.pass] ?? p.pass} ${score1(p.score)}</span>${p.simulator_fault ? html` <span class="status failed" title="the simulated user broke its brief">simulator fault</span>` : ""} `)}</td>
<td class="num">${score1(lowestComposite(r))}</td>
<td>${r.failures.length === 0 ? "—" : html`<ul class="failure-reasons">${r.failures.slice(0, 3).map((f) => html`<li>${f}</li>`)}${r.failures.length > 3 ? html`<li class="muted">and ${r.failures.length - 3} more</li>` : ""}</ul>`}</td>
</tr>`,
  keep: (r) => r.failures.length > 0,
  failures: html`runs that failed, passes not scored or whose agent failed, a composite or task under ${PASS_THRESHOLD} (the sessions' threshold: a job stores none), a failed assertion or request. A pass whose simulated user broke its brief (a simulator fault) is not the agent's failure.`,
  form: "sessions",
  counted: "runs",
};

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
<h2>${PASS_TITLE[p.pass] ?? p.pass} <span class="score">${score1(c.score)}</span>${p.simulator_fault ? html` <span class="status failed simulator-fault">simulator fault</span>` : ""}</h2>
<p class="formula">Composite = ${c.formula === "full" ? "(timing + 2·task + 4·assertions) / 7 − penalty" : "(timing + 2·task) / 3 − penalty (no assertions)"}</p>
<table class="composite">
<tbody>
<tr><th>Timing</th><td class="num">${score1(c.timing)}</td></tr>
<tr><th>Tasks</th><td class="num">${score1(c.task)}</td></tr>
<tr><th>Assertions</th><td class="num">${score1(c.assertions)}</td></tr>
<tr><th>Penalty</th><td class="num">${score1(c.penalty)}</td></tr>
<tr><th>Tone</th><td class="num">${score1(p.tone)}</td></tr>
</tbody></table>
${simulatedUserSection(p)}<h3>Tasks</h3>
<table class="tasks"><thead><tr><th>Task</th><th class="num">Score</th><th>Reasoning</th></tr></thead>
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

/** The check of the pass's simulated user: each proposition's score and the judge's reasoning. */
function simulatedUserSection(p: StoredPass): Html | string {
  const check = p.simulated_user;
  if (!check) return "";
  return html`<h3>Simulated user</h3>
<p class="${check.fault ? "simulator-fault" : "muted"}">${
    check.fault
      ? "The simulated user broke its brief: this pass is a simulator fault, left out of the job's score, the difference and pass^k."
      : "The simulated user kept to its brief."
  } A proposition under ${check.threshold}/9 is a break${check.errored ? `; ${check.errored} not judged (the judge errored)` : ""}.</p>
<table class="simulated-user"><thead><tr><th>Proposition</th><th class="num">Score</th><th>Reasoning</th></tr></thead>
<tbody>${(check.findings ?? []).map((f) => html`<tr class="${f.broken ? "failed" : ""}"><td>${f.id}</td><td class="num">${f.score === null ? "—" : `${f.score}/9`}</td><td>${f.reasoning}</td></tr>`)}</tbody></table>
`;
}

export function conversationPage(context: DashboardContext, id: string): Promise<Html | undefined> {
  return evaluationPage(context, id, {
    kind: "conversation",
    title: `Conversation ${shortId(id)}`,
    section: "conversations",
    document: () =>
      loadConversationResult({ store: context.store, id }) as Promise<
        Partial<ConversationResult> & { passes?: StoredPass[] }
      >,
    none: (row) =>
      html`<h1>Conversation ${shortId(id)}</h1><p>This run is ${row.status}; it has no result yet.</p>`,
    body: (row, result) =>
      html`<h1>Conversation ${shortId(id)} <span class="muted">${result.job ?? row.source} · ${when(row.created_at)}</span></h1>
<p>Difference with − without the facts: <strong>${score1(result.difference)}</strong>${result.judge ? ` · judge ${result.judge.spec}${result.judge.errored ? `, ${result.judge.errored} errored` : ""}` : ""}</p>
<div class="passes">${(result.passes ?? []).map(passColumn)}</div>`,
  });
}
