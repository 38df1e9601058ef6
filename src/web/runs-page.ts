// The Runs pages: evaluation runs newest first (filters, cursor, sort and "failures only" in the URL), and
// one run — its facts, dimensions, links to compare it, and its verdicts as evidence (see run-verdicts.ts).
import type { RunRow } from "../store/index.ts";
import { runCalibrationLinks } from "./calibrations-page.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { armLabel, experimentArmReader, pairedRun, previousRunInArm } from "./experiment-runs.ts";
import { dropCell, hrefWith, score9, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { layout } from "./layout.ts";
import { failuresSwitch, parseListView, type SortColumn, viewParams } from "./list-view.ts";
import { PageInputError, type PageQuery } from "./page-query.ts";
import { runPersonaSection } from "./persona-section.ts";
import {
  type AgentBaseline,
  agentBaseline,
  allBaselines,
  type BaselineDrop,
  baselineDrop,
  regressedDimensions,
} from "./run-baselines.ts";
import { type RunEvidence, runEvidence } from "./run-evidence.ts";
import {
  isFailure,
  PASS_MARK,
  SCORE_EXPLANATION,
  shownVerdicts,
  VERDICT_COLUMNS,
  type VerdictsBase,
  verdictSections,
  windowsSection,
} from "./run-verdicts.ts";
import { storedListPage } from "./stored-list-page.ts";
import { runTraceLinks } from "./trace-links.ts";

export const judgeText = (run: RunRow) =>
  run.judge ? `${run.judge.provider}:${run.judge.model} (${run.judge.mode})` : "—";

const RUN_COLUMNS = ["created", "agent", "status", "overall", "drop", "errored", "trial"] as const;
type RunColumn = (typeof RUN_COLUMNS)[number];

// The store pages runs by creation time (a keyset cursor on created_at, trial, id), so another column sorts
// the rows of one page: a global sort by score would need a cursor and an index per column, and a deep page
// of 10,000 runs would then cost an OFFSET scan or one index each to stay under the pages' 200 ms.
function runSorts(drop: (run: RunRow) => BaselineDrop | undefined): readonly SortColumn<RunRow, RunColumn>[] {
  return [
    { key: "created", label: "Created", value: (r) => r.created_at },
    { key: "agent", label: "Agent", value: (r) => r.agent_id },
    { key: "status", label: "Status", value: (r) => r.status },
    { key: "overall", label: "Overall", numeric: true, value: (r) => r.overall_score },
    // Ascending is the largest fall first: "who dropped" is one click.
    { key: "drop", label: "Δ baseline", numeric: true, value: (r) => drop(r)?.delta ?? null },
    { key: "errored", label: "Errored", numeric: true, value: (r) => r.errored },
    { key: "trial", label: "Trial", numeric: true, value: (r) => r.trial },
  ];
}

/** What "failures only" keeps on /runs, in the page's words. */
const RUN_FAILURES =
  "runs that failed, have errored verdicts, or have a dimension more than the regression threshold below their agent's baseline";

/** Why a run is in the failures view, as tags: failed, errored verdicts, regressed dimensions. */
function failureTags(run: RunRow, regressed: readonly string[]): Html {
  return html`${run.status === "failed" ? html` <span class="tag">failed</span>` : ""}${
    run.errored > 0 ? html` <span class="tag">errored verdicts</span>` : ""
  }${regressed.map((d) => html` <span class="tag regression">regression: ${d}</span>`)}`;
}

export async function runsPage(
  context: DashboardContext,
  query: PageQuery,
  raw: Readonly<Record<string, string>> = {},
): Promise<Html> {
  const { agent, dimension, since, until } = query;
  // Every agent's baseline in two reads: the Δ column and "failures only" both measure against it.
  const baselines = await allBaselines(context);
  const regressions = (run: RunRow) =>
    regressedDimensions(run, baselines.get(run.agent_id), context.regressionThreshold);
  const drop = (run: RunRow) => baselineDrop(run, baselines.get(run.agent_id), context.regressionThreshold);
  return storedListPage(
    context,
    {
      section: "runs",
      noun: "run",
      query,
      raw,
      fields: ["agent", "dimension", "since", "until"],
      list: (after, n) =>
        context.store.runs.list({ agentMatch: agent, dimension, since, until, after, limit: n }),
    },
    {
      columns: runSorts(drop),
      header: (th) =>
        html`<th>Run</th>${th("created")}${th("agent")}${th("status")}${th("overall")}${th("drop")}<th>Dimensions</th>${th("errored")}${th("trial")}<th>Judge</th>`,
      row: (r, { view }) => html`<tr>
<td><a href="/runs/${r.id}">${shortId(r.id)}</a>${r.is_baseline ? html` <span class="tag">baseline</span>` : ""}</td>
<td>${when(r.created_at)}</td>
<td><a href="/agents/${encodeURIComponent(r.agent_id)}">${r.agent_id}</a></td>
<td><span class="status ${r.status}">${r.status}</span>${view.failures ? failureTags(r, regressions(r)) : ""}</td>
<td class="num">${score9(r.overall_score)}</td>
${dropCell(drop(r), "no baseline for this agent")}
<td>${Object.entries(r.dimension_scores ?? {}).map(([d, s]) => html`<span class="chip">${d} ${s.score === null && s.count != null ? String(s.count) : score9(s.score)}</span> `)}</td>
<td class="num">${r.errored}</td><td class="num">${r.trial}</td><td>${judgeText(r)}</td>
</tr>`,
      keep: (r) => r.status === "failed" || r.errored > 0 || regressions(r).length > 0,
      failures: RUN_FAILURES,
      form: "runs",
      counted: "runs",
    },
  );
}

/**
 * Links to compare this run with the agent's previous run and with its baseline run, where there are. A run
 * of an experiment names its experiment and arm, and its previous run is the previous one in the same arm: the
 * other arm's run of the same environment is offered as what it is (the treatment against the control), never
 * as the previous run.
 */
async function compareLinks(context: DashboardContext, run: RunRow): Promise<Html> {
  const armOf = experimentArmReader(context.store);
  const [place, baseline] = await Promise.all([armOf(run), agentBaseline(context, run.agent_id)]);
  const [previous, paired] = await Promise.all([
    previousRunInArm(context.store, run, place, armOf),
    place === undefined ? undefined : pairedRun(context.store, run, place),
  ]);
  const links: Html[] = [];
  if (previous)
    links.push(
      html`<a href="${hrefWith("/compare", { a: previous.id, b: run.id })}">Compare with the previous run of ${run.agent_id}${place ? " in this arm" : ""}</a> (${when(previous.created_at)})`,
    );
  if (paired)
    links.push(
      html`<a href="${hrefWith("/compare", { a: paired.run.id, b: run.id })}">Compare with ${run.agent_id}'s ${paired.arm} run of the same environment</a>`,
    );
  if (baseline?.runId && baseline.runId !== run.id)
    links.push(
      html`<a href="${hrefWith("/compare", { a: baseline.runId, b: run.id })}">Compare with the baseline run</a>`,
    );
  const experiment =
    place === undefined
      ? ""
      : html`<p class="experiment-arm">This run is ${run.agent_id} in environment ${place.environment + 1} of <a href="/experiments/${place.experimentId}#environment-${place.environment + 1}">${armLabel(place)}</a>.${
          previous
            ? ""
            : html` It has no earlier run in the ${place.arm} arm: its runs in another arm had another treatment, so none of them is its previous run.`
        }</p>`;
  return html`${experiment}${
    links.length === 0
      ? html`<p class="muted">${nothingToCompare(run, baseline, place !== undefined)}</p>`
      : html`<p class="compare-links">${links.map((l, i) => html`${i > 0 ? " · " : ""}${l}`)}</p>`
  }`;
}

/**
 * Why a run has no comparison link, in words that are true of it: a run that is itself the baseline is said
 * to be it, and an agent with a baseline file is never said to have no baseline.
 */
function nothingToCompare(run: RunRow, baseline: AgentBaseline | undefined, inArm: boolean): string {
  const earlier = `${run.agent_id} has no earlier run${inArm ? " in this arm" : ""}`;
  if (run.is_baseline || baseline?.runId === run.id)
    return `This run is ${run.agent_id}'s baseline, what later runs are compared with; ${earlier}.`;
  if (baseline?.source === "baseline file")
    return `Nothing to compare with here: ${earlier}, and the run of its baseline file is not in this store.`;
  return `Nothing to compare with: ${earlier} and no baseline run in this store.`;
}

/** `?p=DIMENSION/PROPOSITION&page=N`: one proposition's verdicts listed whole, a page at a time. */
function parseFocus(raw: Readonly<Record<string, string>>): VerdictsBase["focus"] {
  const page = raw.page === undefined || raw.page === "" ? 1 : Number(raw.page);
  if (!Number.isInteger(page) || page < 1)
    throw new PageInputError("expected a page number (1, 2, …)", "page");
  if (!raw.p) return undefined;
  if (!/^[^/]+\/[^/]+$/.test(raw.p)) throw new PageInputError("expected DIMENSION/PROPOSITION", "p");
  return { key: raw.p, page };
}

/** `?message=ID`: the run's verdicts of one message of its transcript (where the search leads). */
function parseMessage(raw: Readonly<Record<string, string>>): string | undefined {
  if (raw.message === undefined || raw.message === "") return undefined;
  if (raw.message.length > 200)
    throw new PageInputError("expected a message id of at most 200 characters", "message");
  return raw.message;
}

/** The one message the page is about (`?message=`): who sent it where, its text, and how many verdicts of it follow. */
function messageSection(
  evidence: RunEvidence,
  messageId: string,
  verdicts: number,
  agentId: string,
  allHref: string,
): Html {
  const message = evidence.messages.get(messageId);
  const from = message
    ? html`<p class="muted"><strong>${message.speaker}</strong> in #${message.channel}${message.recipient ? ` → ${message.recipient}` : ""}</p>`
    : "";
  const judged =
    verdicts > 0
      ? html`${verdicts} ${verdicts === 1 ? "verdict" : "verdicts"} of this message below`
      : message && message.sender !== agentId
        ? html`This run judged ${evidence.agentName}'s messages; this one is ${message.speaker}'s, which the judge read only around them`
        : html`This run has no verdict of this message`;
  return html`<section class="judged-message" id="message"><h3>Message <code>${messageId}</code></h3>
${from}${message ? html`<p class="message-text">${message.text}</p>` : html`<p class="muted">Its text is not kept with this run.</p>`}
<p>${judged} · <a href="${allHref}">every verdict of the run</a></p>
</section>`;
}

/** `windows=inline`: the judge windows of the verdicts shown written into the page (the static report's). */
function parseInlineWindows(raw: Readonly<Record<string, string>>): boolean {
  if (raw.windows === undefined || raw.windows === "") return false;
  if (raw.windows !== "inline") throw new PageInputError('expected "inline"', "windows");
  return true;
}

export async function runPage(
  context: DashboardContext,
  id: string,
  query: PageQuery,
  raw: Readonly<Record<string, string>> = {},
): Promise<Html | undefined> {
  const { store } = context;
  const view = parseListView(raw, VERDICT_COLUMNS);
  const focus = parseFocus(raw);
  const message = parseMessage(raw);
  const run = await store.runs.get(id);
  if (!run) return undefined;
  const dimension = focus ? focus.key.split("/")[0] : query.dimension;
  // The evaluation's input, read once here for the evidence, the persona and the trace links.
  const [stored, input] = run.evaluation_id
    ? await Promise.all([
        store.scores.forEvaluation(run.evaluation_id, { run: run.id, dimension }),
        store.evaluations.input(run.evaluation_id),
      ])
    : [[], undefined];
  const scores = message === undefined ? stored : stored.filter((s) => s.message_id === message);
  const path = `/runs/${run.id}`;
  const base: VerdictsBase = {
    path,
    params: { dimension: query.dimension, p: focus?.key, message },
    ...(focus ? { focus } : {}),
  };
  // The windows the judge read load on demand (judge-window.ts); `windows=inline` plans those of the verdicts
  // shown with the page instead, for the static report, which has no server to load them from.
  const inline = parseInlineWindows(raw);
  const [evidence, compare, calibrations, persona, traces] = await Promise.all([
    inline
      ? runEvidence(store, run, shownVerdicts(scores, view, base), { input })
      : runEvidence(store, run, scores, { windows: false, input }),
    compareLinks(context, run),
    runCalibrationLinks(context, run),
    runPersonaSection(store, run, input),
    // The trace links want all the run's verdicts: `stored` are them unless a dimension filtered them.
    runTraceLinks(context, run, { input, rows: dimension === undefined ? stored : undefined }),
  ]);
  // The traces the judged messages came from, when the run judged an imported trace (a fact only then).
  const traceFact =
    traces.length === 0
      ? ""
      : html`\n<dt>Traces</dt><dd>${traces.map((links, i) => html`${i > 0 ? " · " : ""}${links}`)}</dd>`;
  const failing = scores.filter(isFailure).length;
  const usage = run.token_usage;
  const body = html`<h1>Run ${shortId(run.id)} <span class="muted">of <a href="/agents/${encodeURIComponent(run.agent_id)}">${evidence.agentName}</a></span></h1>
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
<dt>Persona hash</dt><dd><code>${run.persona_hash ?? "—"}</code></dd>${traceFact}
</dl>
${compare}
${persona}
<section><h2>Dimensions</h2>
<table class="scores"><thead><tr><th>Dimension</th><th class="num">Score</th><th class="num">Judged</th><th class="num">Errored</th></tr></thead>
<tbody>${Object.entries(run.dimension_scores ?? {}).map(
    ([d, s]) =>
      html`<tr><td><a href="${hrefWith(path, { dimension: d, ...viewParams(view) })}">${d}</a></td><td class="num">${s.score === null && s.count != null ? String(s.count) : score9(s.score)}</td><td class="num">${s.judged ?? "—"}</td><td class="num">${s.errored ?? 0}</td></tr>`,
  )}</tbody></table>
${query.dimension ? html`<p>Showing ${query.dimension} only · <a href="${hrefWith(path, viewParams(view))}">all dimensions</a></p>` : ""}
</section>
<section id="verdicts"><h2>Verdicts by proposition</h2>
${SCORE_EXPLANATION}
<p>Each dimension's propositions are listed lowest score first, and within one the lowest verdict first. ${
    evidence.messagesFrom === "store"
      ? "The messages come from the store's imported messages (this evaluation kept no transcript)."
      : evidence.messagesFrom === "none"
        ? "The judged messages are not kept with this run: only their ids are shown."
        : ""
  }</p>
${message === undefined ? "" : messageSection(evidence, message, scores.length, run.agent_id, hrefWith(path, { dimension: query.dimension, ...viewParams(view) }))}
${failuresSwitch(view, base, `verdicts scored below ${PASS_MARK} and errored ones: ${failing} of ${scores.length}`)}
${scores.length === 0 ? html`<p>This run has no verdict${query.dimension ? ` in ${query.dimension}` : ""}.</p>` : verdictSections(scores, evidence, view, base)}
</section>
${windowsSection(evidence)}
${calibrations}`;
  return layout({ title: `Run ${shortId(run.id)}`, section: "runs", body });
}
