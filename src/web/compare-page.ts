// The comparison of two persona runs, `/compare?a=RUN&b=RUN` (a the earlier, b the later, as the drift chart
// links a regression; a run by its uuid or first 8+ characters): what differs between them that makes scores
// not comparable (agent, judge, propositions, persona — with the persona's and the claims' text diffed word by
// word), each dimension's and proposition's two scores and Δ = b − a, the worst first, and the verdicts that
// changed — the same dimension, proposition, target and trial with another score or status — grouped by
// proposition (improved, regressed, same; a filter in the URL) with the two reasonings diffed. Without two
// runs, `/compare` is the run picker (by agent and date; the baseline labelled).
import { z } from "zod";
import { plainIssueMessage } from "../core/index.ts";
import type { RunRow, ScoreRow, Store } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { filterForm } from "./filter-form.ts";
import { deltaText, hrefWith, score9, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { layout } from "./layout.ts";
import { PageInputError, parsePageQuery } from "./page-query.ts";
import { foldedText, type RunPersona, runPersona } from "./persona-section.ts";
import { propositionKey, type RunEvidence, runEvidence } from "./run-evidence.ts";
import { findRun, isRunRef, RUN_REF_ERROR } from "./run-ref.ts";
import { compareText, groupByProposition, messageDetails, propositionVerdictsHref } from "./run-verdicts.ts";
import { judgeText } from "./runs-page.ts";
import { wordDiff, wordDiffCounts, wordDiffHtml } from "./word-diff.ts";

const RunRef = z
  .string({ error: RUN_REF_ERROR })
  .trim()
  .refine(isRunRef, { error: RUN_REF_ERROR })
  .optional();

/** Which changed verdicts the page lists: all, or only those that fell (regressed) or rose (improved). */
export const CHANGE_FILTERS = ["all", "regressed", "improved"] as const;
export type ChangeFilter = (typeof CHANGE_FILTERS)[number];

const CompareQuerySchema = z.object({
  a: RunRef,
  b: RunRef,
  changed: z.enum(CHANGE_FILTERS, { error: `expected one of ${CHANGE_FILTERS.join(", ")}` }).default("all"),
  /** Show the picker with these two runs chosen, rather than their comparison. */
  pick: z.string().optional(),
});

export interface CompareQuery {
  a?: string;
  b?: string;
  changed: ChangeFilter;
  pick?: string;
}

/** The run refs of a comparison and its filter; a malformed one is a PageInputError naming it (a 400 page). */
export function parseCompareQuery(query: Readonly<Record<string, string>>): CompareQuery {
  // An empty field of the picker's form is "not chosen", not bad input.
  const given = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== ""));
  const parsed = CompareQuerySchema.safeParse(given, { error: plainIssueMessage });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new PageInputError(issue.message, issue.path.join(".") || "query");
}

const delta = (a: number | null | undefined, b: number | null | undefined) =>
  typeof a === "number" && typeof b === "number" ? b - a : null;

/** Worst first: the largest fall first, a Δ that cannot be computed last. */
const byDelta = (x: number | null, y: number | null) =>
  x === null || y === null ? (x === y ? 0 : x === null ? 1 : -1) : x - y;

/** Why the two runs' scores may not be comparable, in words; empty when they are. */
export function differences(a: RunRow, b: RunRow): string[] {
  const out: string[] = [];
  if (a.agent_id !== b.agent_id)
    out.push(`they are runs of different agents (${a.agent_id} and ${b.agent_id})`);
  const judge = (r: RunRow) =>
    r.judge
      ? `${judgeText(r)}, prompt ${r.judge.prompt_version}${r.judge.temperature !== undefined ? `, t=${r.judge.temperature}` : ""}${r.judge.double_check ? ", double-checked" : ""}`
      : "unknown";
  if (judge(a) !== judge(b)) out.push(`the judge differs: ${judge(a)} in A, ${judge(b)} in B`);
  if (a.propositions_hash !== b.propositions_hash)
    out.push(
      `the propositions differ (hash ${a.propositions_hash ?? "—"} in A, ${b.propositions_hash ?? "—"} in B)`,
    );
  if (a.persona_hash !== b.persona_hash)
    out.push(`the persona differs (hash ${a.persona_hash ?? "—"} in A, ${b.persona_hash ?? "—"} in B)`);
  return out;
}

/** What identifies a verdict across two runs: dimension, proposition, target and trial (not the run's agent). */
const verdictKey = (s: ScoreRow) =>
  `${s.dimension}\u0000${s.proposition_id}\u0000${s.message_id ?? ""}\u0000${s.channel ?? ""}\u0000${s.trial}`;

export interface ChangedVerdict {
  a: ScoreRow;
  b: ScoreRow;
  delta: number | null;
}

/** The verdicts of the same key whose score (or count) or status changed, the largest fall first. */
export function changedVerdicts(as: readonly ScoreRow[], bs: readonly ScoreRow[]): ChangedVerdict[] {
  const before = new Map(as.map((s) => [verdictKey(s), s]));
  const out: ChangedVerdict[] = [];
  for (const b of bs) {
    const a = before.get(verdictKey(b));
    if (!a) continue;
    if (a.status === b.status && a.score === b.score && a.count === b.count) continue;
    out.push({ a, b, delta: delta(a.score ?? a.count, b.score ?? b.count) });
  }
  return out.sort((x, y) => byDelta(x.delta, y.delta) || compareText(verdictKey(x.b), verdictKey(y.b)));
}

/**
 * Whether a changed verdict rose or fell: by its Δ, else by its status (a verdict lost to a judge failure
 * fell; one the judge gave again rose).
 */
export function changeDirection({ a, b, delta }: ChangedVerdict): "improved" | "regressed" {
  if (delta !== null && delta !== 0) return delta > 0 ? "improved" : "regressed";
  return b.status === "errored" && a.status !== "errored" ? "regressed" : "improved";
}

export interface PropositionChanges {
  key: string;
  dimension: string;
  proposition: string;
  improved: number;
  regressed: number;
  /** Verdicts matched in both runs with the same score and status. */
  same: number;
  /** This proposition's changed verdicts, the largest fall first. */
  changed: ChangedVerdict[];
}

/** The matched verdicts' changes by proposition; the proposition with the largest single fall first. */
export function changesByProposition(as: readonly ScoreRow[], bs: readonly ScoreRow[]): PropositionChanges[] {
  const before = new Set(as.map(verdictKey));
  const groups = new Map<string, PropositionChanges>();
  const groupOf = (s: ScoreRow) => {
    const key = propositionKey(s.dimension, s.proposition_id);
    let group = groups.get(key);
    if (!group) {
      group = {
        key,
        dimension: s.dimension,
        proposition: s.proposition_id,
        improved: 0,
        regressed: 0,
        same: 0,
        changed: [],
      };
      groups.set(key, group);
    }
    return group;
  };
  const changed = changedVerdicts(as, bs);
  const moved = new Set(changed.map((c) => verdictKey(c.b)));
  for (const c of changed) {
    const group = groupOf(c.b);
    group.changed.push(c);
    group[changeDirection(c)]++;
  }
  for (const b of bs) if (before.has(verdictKey(b)) && !moved.has(verdictKey(b))) groupOf(b).same++;
  const worst = (g: PropositionChanges) => g.changed[0]?.delta ?? (g.changed.length > 0 ? null : Infinity);
  return [...groups.values()].sort(
    (x, y) => byDelta(worst(x), worst(y)) || y.changed.length - x.changed.length || compareText(x.key, y.key),
  );
}

function verdictCell(s: ScoreRow): Html {
  return html`${s.count !== null ? String(s.count) : score9(s.score)} <span class="status ${s.status}">${s.status}</span>`;
}

const runLabel = (r: RunRow) =>
  html`<a href="/runs/${r.id}">${shortId(r.id)}</a> of ${r.agent_id}, ${when(r.created_at)}`;

export async function comparePage(
  context: DashboardContext,
  query: Readonly<Record<string, string>>,
): Promise<Html | undefined> {
  const { store } = context;
  const refs = parseCompareQuery(query);
  const [a, b] = await Promise.all([
    refs.a === undefined ? undefined : findRun(store, refs.a, "a"),
    refs.b === undefined ? undefined : findRun(store, refs.b, "b"),
  ]);
  if ((refs.a !== undefined && !a) || (refs.b !== undefined && !b)) return undefined;
  if (!a || !b || refs.pick !== undefined) return runPicker(store, query, a, b);
  const scoresOf = (r: RunRow) =>
    r.evaluation_id ? store.scores.forEvaluation(r.evaluation_id, { run: r.id }) : Promise.resolve([]);
  const [sa, sb] = await Promise.all([scoresOf(a), scoresOf(b)]);
  const [ea, eb, pa, pb] = await Promise.all([
    runEvidence(store, a, sa, { windows: false }),
    runEvidence(store, b, sb, { windows: false }),
    runPersona(store, a),
    runPersona(store, b),
  ]);
  const warnings = differences(a, b);

  const dimensions = [
    ...new Set([...Object.keys(a.dimension_scores ?? {}), ...Object.keys(b.dimension_scores ?? {})]),
  ]
    .map((d) => {
      const x = a.dimension_scores?.[d]?.score ?? null;
      const y = b.dimension_scores?.[d]?.score ?? null;
      return { dimension: d, a: x, b: y, delta: delta(x, y) };
    })
    .sort((x, y) => byDelta(x.delta, y.delta) || compareText(x.dimension, y.dimension));

  const groupsA = new Map(
    [...groupByProposition(sa).values()].flat().map((g) => [propositionKey(g.dimension, g.propositionId), g]),
  );
  const groupsB = new Map(
    [...groupByProposition(sb).values()].flat().map((g) => [propositionKey(g.dimension, g.propositionId), g]),
  );
  const propositions = [...new Set([...groupsA.keys(), ...groupsB.keys()])]
    .map((key) => {
      const x = groupsA.get(key);
      const y = groupsB.get(key);
      const g = (y ?? x)!;
      return {
        key,
        dimension: g.dimension,
        id: g.propositionId,
        a: x?.score ?? null,
        b: y?.score ?? null,
        delta: delta(x?.score, y?.score),
      };
    })
    .sort((x, y) => byDelta(x.delta, y.delta) || compareText(x.key, y.key));

  const matched = new Set(sa.map(verdictKey));
  const matchedCount = sb.filter((s) => matched.has(verdictKey(s))).length;
  const unmatched = sb.length - matchedCount;
  const changes = changesByProposition(sa, sb);
  const totals = {
    improved: changes.reduce((n, g) => n + g.improved, 0),
    regressed: changes.reduce((n, g) => n + g.regressed, 0),
    same: changes.reduce((n, g) => n + g.same, 0),
  };
  const here = { a: a.id, b: b.id };
  const filterLink = (f: ChangeFilter, label: string) =>
    f === refs.changed
      ? html`<strong aria-current="true">${label}</strong>`
      : html`<a href="${hrefWith("/compare", { ...here, changed: f === "all" ? undefined : f })}#changed">${label}</a>`;
  const shown = changes
    .map((g) => ({
      ...g,
      changed: g.changed.filter((c) => refs.changed === "all" || changeDirection(c) === refs.changed),
    }))
    .filter((g) => g.changed.length > 0);

  const body = html`<h1>Comparing two runs</h1>
<dl class="facts">
<dt>A</dt><dd>${runLabel(a)} · overall ${score9(a.overall_score)}</dd>
<dt>B</dt><dd>${runLabel(b)} · overall ${score9(b.overall_score)}</dd>
</dl>
<p>Δ is B − A: a negative Δ is a fall from A to B. The largest fall comes first. <a href="${hrefWith("/compare", { agent: b.agent_id, a: a.id, b: b.id, pick: "1" })}">Choose other runs</a></p>
${
  warnings.length > 0
    ? html`<section class="warning" role="note"><h2>Not comparable as they stand</h2><p>Scores of these runs may differ for reasons other than the agent:</p><ul>${warnings.map((w) => html`<li>${w}</li>`)}</ul></section>`
    : html`<p class="muted">Same agent, judge, propositions and persona: the scores are comparable.</p>`
}
${personaComparison(pa, pb)}
<section><h2>Dimensions</h2>
<table class="scores"><thead><tr><th>Dimension</th><th class="num">A</th><th class="num">B</th><th class="num">Δ</th></tr></thead>
<tbody>${dimensions.map(
    (d) =>
      html`<tr><td>${d.dimension}</td><td class="num">${score9(d.a)}</td><td class="num">${score9(d.b)}</td><td class="num">${deltaText(d.delta)}</td></tr>`,
  )}</tbody></table></section>
<section><h2>Propositions</h2>
<p class="muted">Propositions hash <code>${a.propositions_hash ?? "—"}</code> in A, <code>${b.propositions_hash ?? "—"}</code> in B${
    a.propositions_hash === b.propositions_hash ? " (the same set)" : ""
  }. A claim worded differently in B shows what changed: <del>A's words</del> <ins>B's words</ins>.</p>
<table class="propositions"><thead><tr><th>Dimension</th><th>Proposition</th><th class="num">A</th><th class="num">B</th><th class="num">Δ</th></tr></thead>
<tbody>${propositions.map(
    (p) =>
      html`<tr><td>${p.dimension}</td><td><code>${p.id}</code>${claimText(ea, eb, p.key)}</td><td class="num">${score9(p.a)}</td><td class="num">${p.b === null ? score9(p.b) : html`<a href="${propositionVerdictsHref(b.id, p.dimension, p.id)}" title="B's verdicts of this proposition">${score9(p.b)}</a>`}</td><td class="num">${deltaText(p.delta)}</td></tr>`,
  )}</tbody></table></section>
<section id="changed"><h2>Verdicts that changed</h2>
<p>The same dimension, proposition, target and trial in both runs, with another score or status: ${changes.reduce((n, g) => n + g.changed.length, 0)} of ${matchedCount} matched (${totals.regressed} regressed, ${totals.improved} improved, ${totals.same} the same)${
    unmatched > 0 ? `; ${unmatched} of B's verdicts have no counterpart in A` : ""
  }.</p>
${
  changes.length === 0
    ? ""
    : html`<table class="change-counts"><thead><tr><th>Proposition</th><th class="num">Regressed</th><th class="num">Improved</th><th class="num">Same</th></tr></thead>
<tbody>${changes.map(
        (g) =>
          html`<tr><td>${g.dimension} / ${
            g.changed.length > 0
              ? html`<a href="#${anchorOf(g.key)}"><code>${g.proposition}</code></a>`
              : html`<code>${g.proposition}</code>`
          }</td><td class="num">${g.regressed}</td><td class="num">${g.improved}</td><td class="num">${g.same}</td></tr>`,
      )}</tbody></table>
<p class="change-filter">Show: ${filterLink("all", `all changed (${totals.regressed + totals.improved})`)} · ${filterLink(
        "regressed",
        `regressed only (${totals.regressed})`,
      )} · ${filterLink("improved", `improved only (${totals.improved})`)}</p>`
}
${
  shown.length === 0
    ? html`<p>${refs.changed === "all" ? "No verdict changed." : `No verdict ${refs.changed}.`}</p>`
    : shown.map((g) => changedGroup(g, ea, eb))
}
</section>`;
  return layout({ title: `Compare ${shortId(a.id)} and ${shortId(b.id)}`, section: "runs", body });
}

/** A proposition's anchor on the page (its key has a slash; ids are letters, digits and hyphens). */
const anchorOf = (key: string) => `changed-${key.replace(/[^A-Za-z0-9_-]+/g, "-")}`;

/** A proposition's claim, and when B's wording differs from A's, the word diff between them. */
function claimText(ea: RunEvidence, eb: RunEvidence, key: string): Html | string {
  const x = ea.propositions.get(key)?.claim;
  const y = eb.propositions.get(key)?.claim;
  if (x === undefined && y === undefined) return "";
  if (x === undefined || y === undefined || x === y) return html` <q class="claim">${(y ?? x)!}</q>`;
  return html` <q class="claim diff" title="the claim changed from A to B">${wordDiffHtml(x, y)}</q>`;
}

/** Both runs' personas: one text when the same, else B's against A's word by word (folded when long). */
function personaComparison(pa: RunPersona, pb: RunPersona): Html {
  if (pa.text !== undefined && pb.text !== undefined && pa.text === pb.text)
    return html`<section class="persona" id="persona"><h2>Persona</h2><p class="muted">The same in both runs (hash <code>${pb.hash ?? "—"}</code>).</p>${foldedText(pb.text)}</section>`;
  if (pa.text === undefined || pb.text === undefined)
    return html`<section class="persona" id="persona"><h2>Persona</h2>${[
      ["A", pa],
      ["B", pb],
    ].map(
      ([side, p]) =>
        html`<h3>In ${side as string}</h3>${
          (p as RunPersona).text === undefined
            ? html`<p class="muted">Not kept in this store (hash <code>${(p as RunPersona).hash ?? "—"}</code>).</p>`
            : foldedText((p as RunPersona).text!)
        }`,
    )}</section>`;
  const parts = wordDiff(pa.text, pb.text);
  const { removed, added } = wordDiffCounts(parts);
  return html`<section class="persona" id="persona"><h2>Persona</h2>
<p>The persona changed from A to B: ${removed} word${removed === 1 ? "" : "s"} removed (<del>struck through</del>), ${added} added (<ins>underlined</ins>).</p>
<div class="persona-text persona-diff">${wordDiffHtml(pa.text, pb.text)}</div>
<details class="persona-more"><summary>Both personas in full</summary><h3>In A <span class="muted">hash ${pa.hash ?? "—"}</span></h3><div class="persona-text">${pa.text}</div><h3>In B <span class="muted">hash ${pb.hash ?? "—"}</span></h3><div class="persona-text">${pb.text}</div></details>
</section>`;
}

const reasoningOf = (s: ScoreRow) =>
  s.status === "errored" ? (s.error ?? "the judge failed") : (s.reasoning ?? "");

function changedGroup(group: PropositionChanges, ea: RunEvidence, eb: RunEvidence): Html {
  return html`<section class="changed-group" id="${anchorOf(group.key)}"><h3>${group.dimension} / <code>${group.proposition}</code> <span class="muted">${group.regressed} regressed, ${group.improved} improved, ${group.same} the same</span></h3>
<table class="changed-verdicts"><thead><tr><th>Target and message</th><th class="num">Trial</th><th class="num">A</th><th class="num">B</th><th class="num">Δ</th><th>Reasoning, A → B</th></tr></thead>
<tbody>${group.changed.map(({ a, b, delta }) => {
    const id = b.message_id;
    const message = id === null ? undefined : (eb.messages.get(id) ?? ea.messages.get(id));
    const target = message
      ? html`<strong>${message.speaker}</strong> <code>${message.id}</code> · #${message.channel}`
      : html`<code>${id ?? b.channel ?? b.agent_id ?? "—"}</code>`;
    return html`<tr>
<td>${target}${messageDetails(message, id)}</td>
<td class="num">${b.trial}</td>
<td class="num">${verdictCell(a)}</td><td class="num">${verdictCell(b)}</td><td class="num">${deltaText(delta)}</td>
<td class="reasoning-diff">${
      reasoningOf(a) === reasoningOf(b)
        ? html`${reasoningOf(b)} <span class="muted">(the same words in A and B)</span>`
        : wordDiffHtml(reasoningOf(a), reasoningOf(b))
    }</td>
</tr>`;
  })}</tbody></table></section>`;
}

/** How many runs the picker offers: the newest of the filter, enough to reach back a few months of daily runs. */
export const PICKER_RUNS = 100;

/** The run picker: runs filtered by agent and date, two lists to choose A and B from (a plain GET form). */
async function runPicker(
  store: Store,
  raw: Readonly<Record<string, string>>,
  a: RunRow | undefined,
  b: RunRow | undefined,
): Promise<Html> {
  const query = parsePageQuery(
    Object.fromEntries(Object.entries(raw).filter(([k]) => ["agent", "since", "until"].includes(k))),
  );
  const runs = await store.runs.list({
    agentMatch: query.agent,
    since: query.since,
    until: query.until,
    limit: PICKER_RUNS,
  });
  // A chosen run is offered even when the filter leaves it out, so that the form keeps it.
  for (const chosen of [a, b]) if (chosen && !runs.some((r) => r.id === chosen.id)) runs.push(chosen);
  const chosenB = b ?? runs[0];
  const chosenA = a ?? runs.find((r) => r.id !== chosenB?.id && r.agent_id === chosenB?.agent_id);
  const option = (r: RunRow, chosen: RunRow | undefined) =>
    html`<option value="${r.id}"${r.id === chosen?.id ? " selected" : ""}>${shortId(r.id)} · ${r.agent_id} · ${when(r.created_at)} · overall ${score9(r.overall_score)}${r.is_baseline ? " · baseline" : ""}${r.status !== "completed" ? ` · ${r.status}` : ""}</option>`;
  const body = html`<h1>Compare two runs</h1>
<p>Choose the earlier run as A and the later as B; the comparison shows B − A. Narrow the lists by agent and date. A run can also be named in the address by the first 8 characters of its id, as the pages show it (<code>/compare?a=1a2b3c4d&amp;b=5e6f7a8b</code>).</p>
${filterForm("/compare", query, ["agent", "since", "until"], { a: a?.id, b: b?.id, pick: a && b ? "1" : undefined })}
${
  runs.length === 0
    ? html`<p>No run${query.agent || query.since || query.until ? " matches these filters" : " is stored yet"}.</p>`
    : html`<form class="run-picker" method="get" action="/compare">
<label>Run A (earlier) <select name="a">${runs.map((r) => option(r, chosenA))}</select></label>
<label>Run B (later) <select name="b">${runs.map((r) => option(r, chosenB))}</select></label>
<button type="submit">Compare</button>
</form>
<p class="muted">${runs.length} run${runs.length === 1 ? "" : "s"}, newest first${runs.length >= PICKER_RUNS ? `; only the newest ${PICKER_RUNS}: narrow by agent or date to reach older ones` : ""}.</p>`
}`;
  return layout({ title: "Compare two runs", section: "runs", body });
}
