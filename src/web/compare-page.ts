// The comparison of two persona runs, `/compare?a=RUN&b=RUN` (a the earlier, b the later, as the drift chart
// links a regression): what differs between them that makes scores not comparable (agent, judge, propositions,
// persona), each dimension's and proposition's two scores and Δ = b − a, the worst first, and the verdicts that
// changed — the same dimension, proposition, target and trial with another score or status — each with both
// reasonings and the judged message.
import { z } from "zod";
import { plainIssueMessage } from "../core/index.ts";
import type { RunRow, ScoreRow } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { score9, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { layout } from "./layout.ts";
import { PageInputError } from "./page-query.ts";
import { propositionKey, type RunEvidence, runEvidence } from "./run-evidence.ts";
import { compareText, groupByProposition, messageDetails } from "./run-verdicts.ts";
import { judgeText } from "./runs-page.ts";

const RunId = z
  .string({ error: "expected a run id (a uuid, as the run pages link it)" })
  .pipe(z.uuid({ error: "expected a run id (a uuid, as the run pages link it)" }));
const CompareQuerySchema = z.object({ a: RunId, b: RunId });

/** The two run ids of a comparison; a missing or malformed one is a PageInputError naming it (a 400 page). */
export function parseCompareQuery(query: Readonly<Record<string, string>>): { a: string; b: string } {
  const parsed = CompareQuerySchema.safeParse(query, { error: plainIssueMessage });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new PageInputError(issue.message, issue.path.join(".") || "query");
}

/** Δ with its sign (a true minus), one decimal; an em dash when either side has no score. */
export function deltaText(delta: number | null): string {
  if (delta === null) return "—";
  const rounded = Number(delta.toFixed(1));
  return `${rounded > 0 ? "+" : rounded < 0 ? "−" : "±"}${Math.abs(rounded).toFixed(1)}`;
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

function verdictCell(s: ScoreRow): Html {
  return html`${s.count !== null ? String(s.count) : score9(s.score)} <span class="status ${s.status}">${s.status}</span>`;
}

const runLabel = (r: RunRow) =>
  html`<a href="/runs/${r.id}">${shortId(r.id)}</a> of ${r.agent_id}, ${when(r.created_at)}`;

export async function comparePage(
  { store }: DashboardContext,
  query: Readonly<Record<string, string>>,
): Promise<Html | undefined> {
  const ids = parseCompareQuery(query);
  const [a, b] = await Promise.all([store.runs.get(ids.a), store.runs.get(ids.b)]);
  if (!a || !b) return undefined;
  const scoresOf = (r: RunRow) =>
    r.evaluation_id ? store.scores.forEvaluation(r.evaluation_id, { run: r.id }) : Promise.resolve([]);
  const [sa, sb] = await Promise.all([scoresOf(a), scoresOf(b)]);
  const [ea, eb] = await Promise.all([
    runEvidence(store, a, sa, { windows: false }),
    runEvidence(store, b, sb, { windows: false }),
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
  const claim = (key: string) => eb.propositions.get(key)?.claim ?? ea.propositions.get(key)?.claim;

  const changed = changedVerdicts(sa, sb);
  const matched = new Set(sa.map(verdictKey));
  const unmatched = sb.filter((s) => !matched.has(verdictKey(s))).length;
  const body = html`<h1>Comparing two runs</h1>
<dl class="facts">
<dt>A</dt><dd>${runLabel(a)} · overall ${score9(a.overall_score)}</dd>
<dt>B</dt><dd>${runLabel(b)} · overall ${score9(b.overall_score)}</dd>
</dl>
<p>Δ is B − A: a negative Δ is a fall from A to B. The largest fall comes first.</p>
${
  warnings.length > 0
    ? html`<section class="warning" role="note"><h2>Not comparable as they stand</h2><p>Scores of these runs may differ for reasons other than the agent:</p><ul>${warnings.map((w) => html`<li>${w}</li>`)}</ul></section>`
    : html`<p class="muted">Same agent, judge, propositions and persona: the scores are comparable.</p>`
}
<section><h2>Dimensions</h2>
<table class="scores"><thead><tr><th>Dimension</th><th class="num">A</th><th class="num">B</th><th class="num">Δ</th></tr></thead>
<tbody>${dimensions.map(
    (d) =>
      html`<tr><td>${d.dimension}</td><td class="num">${score9(d.a)}</td><td class="num">${score9(d.b)}</td><td class="num">${deltaText(d.delta)}</td></tr>`,
  )}</tbody></table></section>
<section><h2>Propositions</h2>
<table class="propositions"><thead><tr><th>Dimension</th><th>Proposition</th><th class="num">A</th><th class="num">B</th><th class="num">Δ</th></tr></thead>
<tbody>${propositions.map((p) => {
    const text = claim(p.key);
    return html`<tr><td>${p.dimension}</td><td><code>${p.id}</code>${text ? html` <q class="claim">${text}</q>` : ""}</td><td class="num">${score9(p.a)}</td><td class="num">${score9(p.b)}</td><td class="num">${deltaText(p.delta)}</td></tr>`;
  })}</tbody></table></section>
<section id="changed"><h2>Verdicts that changed</h2>
<p>The same dimension, proposition, target and trial in both runs, with another score or status: ${changed.length} of ${sb.length - unmatched} matched${
    unmatched > 0 ? `; ${unmatched} of B's verdicts have no counterpart in A` : ""
  }.</p>
${changed.length === 0 ? html`<p>No verdict changed.</p>` : changedTable(changed, ea, eb)}
</section>`;
  return layout({ title: `Compare ${shortId(a.id)} and ${shortId(b.id)}`, section: "runs", body });
}

function changedTable(changed: readonly ChangedVerdict[], ea: RunEvidence, eb: RunEvidence): Html {
  return html`<table class="changed-verdicts"><thead><tr><th>Proposition</th><th>Target and message</th><th class="num">Trial</th><th class="num">A</th><th class="num">B</th><th class="num">Δ</th><th>Reasoning in A</th><th>Reasoning in B</th></tr></thead>
<tbody>${changed.map(({ a, b, delta }) => {
    const id = b.message_id;
    const message = id === null ? undefined : (eb.messages.get(id) ?? ea.messages.get(id));
    const target = message
      ? html`<strong>${message.speaker}</strong> <code>${message.id}</code> · #${message.channel}`
      : html`<code>${id ?? b.channel ?? b.agent_id ?? "—"}</code>`;
    return html`<tr>
<td>${b.dimension} / <code>${b.proposition_id}</code></td>
<td>${target}${messageDetails(message, id)}</td>
<td class="num">${b.trial}</td>
<td class="num">${verdictCell(a)}</td><td class="num">${verdictCell(b)}</td><td class="num">${deltaText(delta)}</td>
<td>${a.status === "errored" ? (a.error ?? "the judge failed") : a.reasoning}</td>
<td>${b.status === "errored" ? (b.error ?? "the judge failed") : b.reasoning}</td>
</tr>`;
  })}</tbody></table>`;
}
