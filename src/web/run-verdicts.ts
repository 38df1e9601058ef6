// A persona run's verdicts as evidence: grouped by proposition within each dimension, the lowest-scoring
// proposition first, each table its lowest verdicts with a link to all of them page by page, each verdict with its
// target's speaker, id and channel, the judged message in full, the judge's window (loaded when opened; see
// judge-window.ts), raw and final score with what changed it, and the reasoning — a reasoning repeated word for
// word is written once and referred to after that.
import { HARD_PENALTY, MAX_SCORE } from "../core/index.ts";
import {
  dimensionVerdictsAnchor,
  propositionTableAnchor,
  propositionVerdictsPath,
} from "../regression/index.ts";
import type { ScoreRow } from "../store/index.ts";
import { hrefWith, score9 } from "./format.ts";
import { type Html, html } from "./html.ts";
import { judgeWindowView } from "./judge-window.ts";
import { type ListView, type SortColumn, type SortOrder, sortRows, viewParams } from "./list-view.ts";
import { type JudgedMessage, propositionKey, type RunEvidence, windowKey } from "./run-evidence.ts";

/**
 * A verdict fails below this final score: TinyTroupe's default threshold, which is also the default of this
 * project's action gate (`gate_*_threshold`). Counts (ideas quantity) have no pass mark.
 */
export const PASS_MARK = 7;

export const VERDICT_COLUMNS = ["target", "trial", "status", "raw", "score"] as const;
export type VerdictColumn = (typeof VERDICT_COLUMNS)[number];

/** The first characters of a message that stand for it until it is opened. */
const SUMMARY_LENGTH = 160;

/** Whether a verdict is a failure: errored (no score), or a final score below the pass mark. */
export function isFailure(row: Pick<ScoreRow, "status" | "score" | "count">): boolean {
  if (row.status === "errored") return true;
  return row.count === null && row.score !== null && row.score < PASS_MARK;
}

/** A score as arithmetic shows it: 2, 1.6, 6.4 (at most two decimals, no trailing zeros). */
const figure = (value: number) => String(Number(value.toFixed(2)));

/** How the final score came from the raw one, spelled out: "inverted: 9 − 7 = 2; hard: 2 × 0.8 = 1.6". */
function scoreExplanation(
  row: Pick<ScoreRow, "status" | "raw_score" | "count" | "inverted" | "hard">,
): string {
  if (row.status === "errored") return "errored: no score, left out of every mean";
  if (row.count !== null) return `a count (${row.count} ideas), not a 0–9 score`;
  if (row.raw_score === null) return "—";
  const steps: string[] = [];
  if (row.status === "trivial") steps.push("precondition false: trivially true, no judge call");
  let score = row.raw_score;
  if (row.inverted) {
    steps.push(`inverted: ${MAX_SCORE} − ${figure(score)} = ${figure(MAX_SCORE - score)}`);
    score = MAX_SCORE - score;
  }
  if (row.hard)
    steps.push(
      score < MAX_SCORE
        ? `hard: ${figure(score)} × ${HARD_PENALTY} = ${figure(score * HARD_PENALTY)}`
        : `hard: ${MAX_SCORE} is not penalised`,
    );
  return steps.length === 0 ? "as judged" : steps.join("; ");
}

export interface PropositionGroup {
  dimension: string;
  propositionId: string;
  /** Mean of the verdicts' final scores (errored ones left out); null when none has one. */
  score: number | null;
  weight: number | null;
  inverted: boolean | null;
  hard: boolean | null;
  verdicts: ScoreRow[];
  errored: number;
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;

/**
 * The verdicts by dimension (in the order they come) and, within one, by proposition: the lowest score
 * first, a proposition whose every verdict errored before all (it has no score at all), ties by id.
 */
export function groupByProposition(rows: readonly ScoreRow[]): Map<string, PropositionGroup[]> {
  const groups = new Map<string, PropositionGroup>();
  for (const row of rows) {
    const key = propositionKey(row.dimension, row.proposition_id);
    let group = groups.get(key);
    if (!group)
      groups.set(
        key,
        (group = {
          dimension: row.dimension,
          propositionId: row.proposition_id,
          score: null,
          weight: row.weight,
          inverted: row.inverted,
          hard: row.hard,
          verdicts: [],
          errored: 0,
        }),
      );
    group.verdicts.push(row);
    if (row.status === "errored") group.errored++;
  }
  const byDimension = new Map<string, PropositionGroup[]>();
  for (const group of groups.values()) {
    group.score = mean(group.verdicts.flatMap((v) => (v.score === null ? [] : [v.score])));
    let list = byDimension.get(group.dimension);
    if (!list) byDimension.set(group.dimension, (list = []));
    list.push(group);
  }
  for (const list of byDimension.values())
    list.sort((a, b) => compareNumbers(a.score, b.score) || compareText(a.propositionId, b.propositionId));
  return byDimension;
}

const targetText = (row: ScoreRow) => row.message_id ?? row.channel ?? row.agent_id ?? "";

/** Compares two optional numbers, a missing one lowest (an errored verdict has no score: the worst). */
function compareNumbers(a: number | null | undefined, b: number | null | undefined): number {
  const x = typeof a === "number" && Number.isFinite(a) ? a : Number.NEGATIVE_INFINITY;
  const y = typeof b === "number" && Number.isFinite(b) ? b : Number.NEGATIVE_INFINITY;
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Text order with the numbers in it compared as numbers (m9 before m10), as ids are read. */
export function compareText(a: string, b: string): number {
  return TEXT_ORDER.compare(a, b);
}
// One collator for every comparison: localeCompare with options builds one per call, which made sorting a
// 1,000-message run's 3,000 verdicts cost a quarter of a second.
const TEXT_ORDER = new Intl.Collator("en", { numeric: true });

/** The verdict tables' sortable columns (the others, text in <details>, do not sort usefully). */
const VERDICT_SORTS: readonly SortColumn<ScoreRow, VerdictColumn>[] = [
  { key: "target", label: "Target", value: targetText },
  { key: "trial", label: "Trial", numeric: true, value: (r) => r.trial },
  { key: "status", label: "Status", value: (r) => r.status },
  { key: "raw", label: "Raw", numeric: true, value: (r) => r.raw_score },
  { key: "score", label: "Score", numeric: true, value: (r) => r.score ?? r.count },
];

/** A verdict table's view: without a column asked for, by score, lowest first. */
const verdictView = (view: ListView<VerdictColumn>): ListView<VerdictColumn> =>
  view.sort === undefined ? { ...view, sort: "score", order: "asc" } : view;

/**
 * Verdicts in a table's order. By score: the lowest first (descending: the highest), an errored verdict,
 * which has none, counting as the lowest; ties by target and trial. By another column: as every list sorts
 * (no value last), ties in the same order.
 */
function sortVerdicts(rows: readonly ScoreRow[], view: ListView<VerdictColumn>): ScoreRow[] {
  const lowestFirst = [...rows].sort(
    (a, b) =>
      compareNumbers(a.score ?? a.count, b.score ?? b.count) ||
      compareText(targetText(a), targetText(b)) ||
      a.trial - b.trial,
  );
  const { sort, order } = verdictView(view);
  if (sort === "score") return order === "asc" ? lowestFirst : lowestFirst.reverse();
  return sortRows(lowestFirst, view, VERDICT_SORTS);
}

/** The judged message: the first characters as the summary, the whole text when opened. */
export function messageDetails(message: JudgedMessage | undefined, id: string | null): Html {
  if (!message)
    return id === null
      ? html`<span class="muted">the agent's messages as a whole</span>`
      : html`<span class="muted">message ${id} is not kept with this run</span>`;
  const flat = message.text.replace(/\s+/g, " ").trim();
  if (flat.length <= SUMMARY_LENGTH && flat === message.text)
    return html`<p class="message-text">${message.text}</p>`;
  return html`<details class="message"><summary>${flat.length > SUMMARY_LENGTH ? `${flat.slice(0, SUMMARY_LENGTH - 1)}…` : flat}</summary><p class="message-text">${message.text}</p></details>`;
}

/** A planned window's number in the page's "What the judge read" section (1-based). */
function windowNumber(evidence: RunEvidence, row: Pick<ScoreRow, "dimension" | "message_id">) {
  const at = [...evidence.windows.keys()].indexOf(windowKey(row));
  return at < 0 ? undefined : at + 1;
}

/** The windows planned with the page (`windows=inline`), each once, in <details> that a verdict's link leads to. */
export function windowsSection(evidence: RunEvidence): Html {
  if (evidence.windows.size === 0) return html``;
  return html`<section id="windows"><h2>What the judge read</h2>
<p>Beside the claim and the message, the judge read a window of the trajectory (the set's <code>first_n</code> and <code>last_n</code> lines), rebuilt here from the evaluation's kept input. One per dimension and target, shared by its propositions.</p>
${[...evidence.windows.keys()].map((key, i) => {
  const [dimension, messageId] = key.split("\u0000") as [string, string];
  const message = evidence.messages.get(messageId);
  return html`<details class="judge-window" id="window-${i + 1}"><summary>${dimension} · ${message ? `${message.speaker} ${message.id}` : messageId || evidence.agentName}</summary>${judgeWindowView(evidence, { dimension, message_id: messageId || null })}</details>`;
})}
</section>`;
}

/** Where the window the judge read for this verdict is served: a page, and (`fragment=1`) the part a script loads in place. */
export function windowHref(
  runPath: string,
  row: Pick<ScoreRow, "dimension" | "message_id">,
  fragment = false,
): string {
  return hrefWith(`${runPath}/window`, {
    dimension: row.dimension,
    message: row.message_id ?? undefined,
    fragment: fragment ? 1 : undefined,
  });
}

/**
 * The window the judge read, under its verdict, loaded on demand: a <details> whose content the dashboard's
 * script fetches when it is opened (a window is tens of lines, and a run has one per message: written into the
 * page, a run of 1,000 messages was 18 MB). Without the script the details hold a link to the window's page.
 */
function windowLink(evidence: RunEvidence, row: ScoreRow, runPath: string): Html {
  if (row.status === "trivial") return html``;
  // Planned with the page (`windows=inline`, the static report's: it has no server to load them from), and
  // written once each at its end: the propositions of a dimension share a target's window.
  const at = windowNumber(evidence, row);
  if (at !== undefined)
    return html`<p class="window-link"><a href="#window-${at}">What the judge read ↓</a></p>`;
  if (evidence.windowsKept)
    return html`<details class="judge-window" data-window="${windowHref(runPath, row, true)}"><summary>What the judge read</summary><div class="window-body"><p><a href="${windowHref(runPath, row)}">Open the window the judge read</a></p></div></details>`;
  return row.context_snippet && row.message_id === null
    ? html`<details class="judge-window"><summary>Excerpt judged</summary><pre class="snippet">${row.context_snippet}</pre></details>`
    : html``;
}

function targetCell(evidence: RunEvidence, row: ScoreRow): Html {
  const message = row.message_id === null ? undefined : evidence.messages.get(row.message_id);
  if (message)
    return html`<td class="v-target"><strong>${message.speaker}</strong><br><code>${message.id}</code> · #${message.channel}${message.recipient ? ` → ${message.recipient}` : ""}</td>`;
  if (row.message_id !== null)
    return html`<td class="v-target"><strong>${evidence.agentName}</strong><br><code>${row.message_id}</code></td>`;
  return html`<td class="v-target"><strong>${row.channel ? `#${row.channel}` : evidence.agentName}</strong><br><span class="muted">${row.channel ? "the channel" : "all of the agent's messages"}</span></td>`;
}

/** The reasoning cell: written in full the first time a text appears in the group, then referred to. */
function reasoningCell(row: ScoreRow, first: ReadonlyMap<string, { row: ScoreRow; count: number }>): Html {
  if (row.status === "errored") return html`<td class="v-reasoning">${row.error ?? "the judge failed"}</td>`;
  const ideas = row.ideas?.length ? html`<ul>${row.ideas.map((i) => html`<li>${i}</li>`)}</ul>` : "";
  const seen = row.reasoning ? first.get(row.reasoning) : undefined;
  if (!seen || seen.count === 1) return html`<td class="v-reasoning">${row.reasoning}${ideas}</td>`;
  if (seen.row === row)
    return html`<td class="v-reasoning">${row.reasoning}${ideas} <span class="muted">(the same words for ${seen.count - 1} other ${seen.count === 2 ? "verdict" : "verdicts"} below)</span></td>`;
  return html`<td class="v-reasoning"><span class="muted">Same reasoning as ${targetText(seen.row)}${seen.row.trial > 1 ? ` (trial ${seen.row.trial})` : ""} above.</span>${ideas}</td>`;
}

function verdictRow(
  evidence: RunEvidence,
  row: ScoreRow,
  first: ReadonlyMap<string, { row: ScoreRow; count: number }>,
  runPath: string,
): Html {
  const message = row.message_id === null ? undefined : evidence.messages.get(row.message_id);
  return html`<tr id="${verdictAnchor(row)}" class="${row.status}${isFailure(row) ? " failing" : ""}">
${targetCell(evidence, row)}
<td class="v-message">${messageDetails(message, row.message_id)}${windowLink(evidence, row, runPath)}</td>
<td class="num v-trial" data-label="trial">${row.trial}</td>
<td class="v-status"><span class="status ${row.status}">${row.status}</span></td>
<td class="num v-raw" data-label="raw">${score9(row.raw_score)}</td>
<td class="num v-score" data-label="score">${row.count !== null ? String(row.count) : score9(row.score)}</td>
<td class="v-how">${scoreExplanation(row)}</td>
${reasoningCell(row, first)}
</tr>`;
}

/** The page's words on Score and Raw, and on what "failing" means. */
export const SCORE_EXPLANATION = html`<p class="explain"><strong>Raw</strong> is the judge's 0–9 answer to the claim.
<strong>Score</strong> is what counts: an <em>inverted</em> proposition (a claim that should not hold) is flipped to
${MAX_SCORE} − raw, then a <em>hard</em> proposition's score below ${MAX_SCORE} is multiplied by ${HARD_PENALTY}. A
proposition's score is the mean of its verdicts' scores; a dimension's, the weight-normalised mean of its propositions'.
An errored verdict (the judge failed) has no score and is left out, never counted as a 9. A verdict <em>fails</em>
below ${PASS_MARK}, TinyTroupe's default pass mark (and this project's action gate's).</p>`;

/** A proposition's verdicts shown on the run page (the lowest first); the rest are a link away. */
export const VERDICTS_SHOWN = 20;
/** A proposition's verdicts per page when all of them are listed (`?p=DIMENSION/PROPOSITION`). */
export const VERDICTS_PER_PAGE = 50;

/** Where the page's links lead: its path, the parameters every link keeps, and the one proposition listed whole. */
export interface VerdictsBase {
  path: string;
  params: Record<string, string | number | undefined>;
  /** `?p=`: this proposition's verdicts, all of them, `VERDICTS_PER_PAGE` a page (1-based `page`). */
  focus?: { key: string; page: number };
}

/** A verdict's row on the run page (its stored id: what the search links to). */
export const verdictAnchor = (row: Pick<ScoreRow, "id">) => `v-${row.id}`;

/**
 * Where a verdict is shown on its run's page: among its message's verdicts (`?message=`), or, for a verdict on
 * the agent as a whole, among its proposition's (`?p=`), at its row.
 */
export function verdictHref(
  runId: string,
  row: Pick<ScoreRow, "id" | "dimension" | "proposition_id" | "message_id">,
): string {
  const params =
    row.message_id !== null ? { message: row.message_id } : { p: `${row.dimension}/${row.proposition_id}` };
  return `${hrefWith(`/runs/${runId}`, params)}#${verdictAnchor(row)}`;
}

/** Where a message of a run's transcript is shown on the run's page, with the run's verdicts of it. */
export const messageHref = (runId: string, messageId: string) =>
  `${hrefWith(`/runs/${runId}`, { message: messageId })}#message`;

/** A table's anchor: sorting and paging links come back to it, so the reader keeps the place. */
const tableAnchor = (group: Pick<PropositionGroup, "dimension" | "propositionId">) =>
  propositionTableAnchor(group.dimension, group.propositionId);

/** A run's verdicts of one proposition, all of them, at its table: where "a proposition that fell" leads. */
export const propositionVerdictsHref = propositionVerdictsPath;

/**
 * The verdict sections of a run page: one per dimension, a table per proposition with its lowest
 * `VERDICTS_SHOWN` verdicts and a link to all of them. With `view.failures`, only failing verdicts, and only
 * the propositions that have one. With `base.focus`, that proposition alone, all its verdicts page by page.
 */
export function verdictSections(
  rows: readonly ScoreRow[],
  evidence: RunEvidence,
  view: ListView<VerdictColumn>,
  base: VerdictsBase,
): Html {
  const sections: Html[] = [];
  for (const { dimension, groups, shown } of visibleTables(rows, view, base)) {
    const hidden = groups.length - shown.length;
    sections.push(html`<section class="verdicts" id="${dimensionVerdictsAnchor(dimension)}"><h3>${dimension}</h3>
${
  view.failures && hidden > 0 && !base.focus
    ? html`<p class="muted">${hidden} of ${groups.length} propositions have no failing verdict and are not shown.</p>`
    : ""
}
${shown.map(({ group, verdicts, page }) => propositionTable(group, verdicts, page, evidence, view, base))}
</section>`);
  }
  return html`${sections}`;
}

/** The verdicts the page shows (the rows of its tables), e.g. to plan their judge windows with the page. */
export function shownVerdicts(
  rows: readonly ScoreRow[],
  view: ListView<VerdictColumn>,
  base: VerdictsBase,
): ScoreRow[] {
  return visibleTables(rows, view, base).flatMap((d) => d.shown.flatMap((t) => t.page));
}

/**
 * Per dimension, its propositions and the tables shown: each with its verdicts in the view's order and the
 * page of them shown (the lowest `VERDICTS_SHOWN`, or a `VERDICTS_PER_PAGE` page of the focused one).
 */
function visibleTables(rows: readonly ScoreRow[], view: ListView<VerdictColumn>, base: VerdictsBase) {
  const from = base.focus ? (base.focus.page - 1) * VERDICTS_PER_PAGE : 0;
  const size = base.focus ? VERDICTS_PER_PAGE : VERDICTS_SHOWN;
  return [...groupByProposition(rows)].flatMap(([dimension, all]) => {
    const groups = base.focus
      ? all.filter((g) => propositionKey(g.dimension, g.propositionId) === base.focus?.key)
      : all;
    if (groups.length === 0) return [];
    const shown = groups
      .map((group) => {
        const verdicts = sortVerdicts(
          view.failures ? group.verdicts.filter(isFailure) : group.verdicts,
          view,
        );
        return { group, verdicts, page: verdicts.slice(from, from + size) };
      })
      .filter((t) => t.verdicts.length > 0);
    return [{ dimension, groups, shown }];
  });
}

/** A header cell that sorts the table by its column and comes back to the table (not the top of the page). */
function verdictHeader(
  column: VerdictColumn,
  view: ListView<VerdictColumn>,
  base: VerdictsBase,
  anchor: string,
): Html {
  const sort = VERDICT_SORTS.find((c) => c.key === column)!;
  const shown = verdictView(view);
  const current = shown.sort === column;
  const next: SortOrder = current && shown.order === "asc" ? "desc" : "asc";
  const href = `${hrefWith(base.path, { ...base.params, ...viewParams({ ...view, sort: column, order: next }) })}#${anchor}`;
  const aria = current ? (shown.order === "asc" ? "ascending" : "descending") : undefined;
  return html`<th${sort.numeric ? html` class="num"` : ""}${aria ? html` aria-sort="${aria}"` : ""}><a href="${href}">${sort.label}${current ? (shown.order === "asc" ? " ▲" : " ▼") : ""}</a></th>`;
}

/** The link from a collapsed table to all of its verdicts, or a listed proposition's page links. */
function moreLinks(
  group: PropositionGroup,
  verdicts: readonly ScoreRow[],
  shownCount: number,
  view: ListView<VerdictColumn>,
  base: VerdictsBase,
): Html {
  const anchor = tableAnchor(group);
  const key = propositionKey(group.dimension, group.propositionId);
  const at = (page: number | undefined) =>
    `${hrefWith(base.path, { ...base.params, p: key, page: page === 1 ? undefined : page, ...viewParams(view) })}#${anchor}`;
  if (!base.focus)
    return verdicts.length > shownCount
      ? html`<p class="more-verdicts"><a href="${at(1)}">All ${verdicts.length} ${view.failures ? "failing verdicts" : "verdicts"} of ${group.propositionId} →</a> <span class="muted">(${shownCount} lowest shown here)</span></p>`
      : html``;
  const pages = Math.max(1, Math.ceil(verdicts.length / VERDICTS_PER_PAGE));
  const { page } = base.focus;
  const back = hrefWith(base.path, { ...base.params, ...viewParams(view) });
  return html`<p class="more-verdicts">Page ${Math.min(page, pages)} of ${pages}${page > 1 ? html` · <a href="${at(page - 1)}" rel="prev">← previous ${VERDICTS_PER_PAGE}</a>` : ""}${page < pages ? html` · <a href="${at(page + 1)}" rel="next">next ${VERDICTS_PER_PAGE} →</a>` : ""} · <a href="${back}#${anchor}">every proposition of the run</a></p>`;
}

function propositionTable(
  group: PropositionGroup,
  verdicts: readonly ScoreRow[],
  rows: readonly ScoreRow[],
  evidence: RunEvidence,
  view: ListView<VerdictColumn>,
  base: VerdictsBase,
): Html {
  const facts = evidence.propositions.get(propositionKey(group.dimension, group.propositionId));
  const weight = group.weight ?? facts?.weight;
  const inverted = group.inverted ?? facts?.inverted;
  const hard = group.hard ?? facts?.hard;
  const yesNo = (flag: boolean | null | undefined) =>
    flag === undefined || flag === null ? "—" : flag ? "yes" : "no";
  // Each reasoning's first row in the table's order, and how many rows shown give it.
  const first = new Map<string, { row: ScoreRow; count: number }>();
  for (const v of rows) {
    if (v.status === "errored" || !v.reasoning) continue;
    const seen = first.get(v.reasoning);
    if (seen) seen.count++;
    else first.set(v.reasoning, { row: v, count: 1 });
  }
  const anchor = tableAnchor(group);
  const th = (column: VerdictColumn) => verdictHeader(column, view, base, anchor);
  return html`<section class="proposition" id="${anchor}">
<h4><code>${group.propositionId}</code> ${
    facts
      ? html`<q class="claim">${facts.claim}</q>`
      : html`<span class="muted">(its claim is not kept with this run: the evaluation stored no input or result document)</span>`
  }</h4>
<p class="proposition-facts">Score <strong>${score9(group.score)}</strong> · weight ${weight ?? "—"} · inverted: ${yesNo(inverted)} · hard: ${yesNo(hard)} · ${group.verdicts.length} ${group.verdicts.length === 1 ? "verdict" : "verdicts"}${group.errored > 0 ? `, ${group.errored} errored` : ""}${verdicts.length < group.verdicts.length ? ` (${verdicts.length} failing)` : ""}</p>
<table class="verdicts"><thead><tr>${th("target")}<th>Message and judge's window</th>${th("trial")}${th("status")}${th("raw")}${th("score")}<th>How scored</th><th>Reasoning</th></tr></thead>
<tbody>${rows.map((v) => verdictRow(evidence, v, first, base.path))}</tbody></table>
${moreLinks(group, verdicts, rows.length, view, base)}
</section>`;
}
