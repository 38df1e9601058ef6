// The Agents pages: every agent with its latest dimension scores, and one agent's drift over its runs
// (the SVG chart with baselines and regressions) and the propositions that fell between its last two runs.
import { AGENT_DIMENSIONS, isPersonaDimension, renderTemplate } from "../core/index.ts";
import { builtinPropositionSet } from "../propositions/index.ts";
import { regressionStatus } from "../regression/index.ts";
import {
  type AgentRow,
  agentMatches,
  type OnlineAlertSummary,
  type RunRow,
  type ScoreRow,
} from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { type DriftPoint, driftChart } from "./drift-chart.ts";
import { armLabel, type ExperimentArmOfRun, experimentArmReader } from "./experiment-runs.ts";
import { filterForm } from "./filter-form.ts";
import { dropCell, hrefWith, score9, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { firstRun, layout } from "./layout.ts";
import { parseListView, sortHeader, sortRows, viewParams } from "./list-view.ts";
import type { PageQuery } from "./page-query.ts";
import { agentPersonaSection } from "./persona-section.ts";
import {
  type AgentBaseline,
  agentBaseline,
  allBaselines,
  type BaselineDrop,
  baselineDrop,
  baselineOfRun,
  previousRun,
} from "./run-baselines.ts";
import { propositionVerdictsHref } from "./run-verdicts.ts";

/**
 * The 0–9 dimensions that some run scored, the agent dimensions first (a count such as ideas_quantity has
 * no score, so it never shares the 0–9 axis).
 */
function scoredDimensions(runs: readonly (RunRow | undefined)[]): string[] {
  const seen = new Set<string>();
  for (const run of runs)
    for (const [d, s] of Object.entries(run?.dimension_scores ?? {}))
      if (typeof s.score === "number") seen.add(d);
  const known: readonly string[] = AGENT_DIMENSIONS;
  return [...known.filter((d) => seen.has(d)), ...[...seen].filter((d) => !known.includes(d)).sort()];
}

/** The newest this many runs make an agent's chart. */
const CHART_RUNS = 200;

const dimensionScore = (run: RunRow, dimension: string) => run.dimension_scores?.[dimension]?.score ?? null;

const AGENT_COLUMNS = ["agent", "drop"] as const;
type AgentColumn = (typeof AGENT_COLUMNS)[number];

/** A row's largest fall: against the agent's baseline, or else its run before. */
type AgentDrop = (BaselineDrop & { against: "baseline" | "previous run" }) | undefined;

/** How many experiments the agents list reads to know which agents took part in one. */
const EXPERIMENTS_READ = 500;

/** An agents-list row: an agent, or one arm of an experiment it took part in, with the row's latest run. */
interface AgentListRow {
  agent: AgentRow;
  latest: RunRow | undefined;
  /** The experiment and arm this row is of; none for the agent's own runs. */
  arm?: ExperimentArmOfRun;
  /** Its latest run's largest fall; none for an experiment's arm (its baseline is the other arm, not a run before). */
  drop?: AgentDrop;
}

/**
 * The list's rows of the agents: an agent whose latest run is one of an experiment's (or that took part in an
 * experiment and has no run) is an experiment's agent — generated people, many, with the same ids in both
 * arms — left out unless `withExperiments`, and then one row per arm of its latest runs, named after them.
 */
async function agentListRows(
  { store }: DashboardContext,
  agents: readonly AgentRow[],
  withExperiments: boolean,
): Promise<{ rows: AgentListRow[]; hidden: number }> {
  const experiments = await store.evaluations.list({ kind: "experiment", limit: EXPERIMENTS_READ });
  const inExperiments = new Set(experiments.flatMap((e) => e.agents));
  const armOf = experimentArmReader(store);
  const listed = await Promise.all(
    agents.map(async (agent): Promise<AgentListRow[] | "experiment"> => {
      const [latest] = await store.runs.list({ agent: agent.id, status: "completed", limit: 1 });
      if (!inExperiments.has(agent.id)) return [{ agent, latest }];
      const place = latest === undefined ? undefined : await armOf(latest);
      if (latest !== undefined && place === undefined) return [{ agent, latest }];
      if (!withExperiments) return "experiment";
      // The latest run of each arm among the agent's recent runs, newest arm first.
      const recent = await store.runs.list({ agent: agent.id, status: "completed", limit: 50 });
      const byArm = new Map<string, AgentListRow>();
      for (const run of recent) {
        const arm = await armOf(run);
        if (arm === undefined) continue;
        const key = armLabel(arm);
        if (!byArm.has(key)) byArm.set(key, { agent, latest: run, arm });
      }
      return byArm.size === 0 ? [{ agent, latest: undefined }] : [...byArm.values()];
    }),
  );
  return {
    rows: listed.flatMap((r) => (r === "experiment" ? [] : r)),
    hidden: listed.filter((r) => r === "experiment").length,
  };
}

export async function agentsPage(
  context: DashboardContext,
  query: PageQuery,
  raw: Readonly<Record<string, string>> = {},
): Promise<Html> {
  const { store } = context;
  const view = parseListView(raw, AGENT_COLUMNS);
  const withExperiments = raw.experiments === "1";
  // Agents are few (one per character or team member): one page, filtered here as the API's list is.
  const from = query.since === undefined ? -Infinity : Date.parse(query.since);
  const to = query.until === undefined ? Infinity : Date.parse(query.until);
  const agents = (await store.agents.list()).filter((a) => {
    const at = Date.parse(a.created_at);
    return at >= from && at <= to && (query.agent === undefined || agentMatches(a, query.agent));
  });
  const listed = await agentListRows(context, agents, withExperiments);
  const baselines = await allBaselines(context);
  const withDrops = await Promise.all(
    listed.rows.map(async (row) =>
      row.arm || !row.latest
        ? row
        : { ...row, drop: await agentDrop(context, row.latest, baselines.get(row.agent.id)) },
    ),
  );
  const hidden = listed.hidden;
  const rows = sortRows(withDrops, view, [
    { key: "agent", label: "Agent", value: (r) => r.agent.id },
    { key: "drop", label: "Δ", numeric: true, value: (r) => r.drop?.delta ?? null },
  ]);
  const base = {
    path: "/agents",
    params: { agent: query.agent, since: query.since, until: query.until, experiments: raw.experiments },
  };
  const th = (key: AgentColumn, label: string, numeric = false) =>
    sortHeader({ key, label, numeric, value: () => null }, view, base);
  const dimensions = scoredDimensions(rows.map((r) => r.latest));
  const filters = { agent: query.agent, since: query.since, until: query.until };
  const toggle = withExperiments
    ? html`<p class="experiment-toggle">Showing experiments' agents, one row per arm · <a href="${hrefWith("/agents", filters)}">Hide them</a></p>`
    : hidden > 0
      ? html`<p class="experiment-toggle muted">${hidden} agent${hidden === 1 ? "" : "s"} of experiments left out · <a href="${hrefWith("/agents", { ...filters, experiments: "1" })}">Show experiments' agents</a></p>`
      : "";
  const body =
    rows.length === 0
      ? query.agent || query.since || query.until || hidden > 0
        ? html`<p>No agent matches these filters.</p>`
        : firstRun("agents")
      : html`<table class="agents">
<thead><tr>${th("agent", "Agent")}<th>Latest run</th><th class="num">Overall</th>${th("drop", "Δ", true)}${dimensions.map((d) => html`<th class="num">${d}</th>`)}</tr></thead>
<tbody>${rows.map(
          ({ agent, latest, arm, drop }) => html`<tr>
<td><a href="/agents/${encodeURIComponent(agent.id)}">${agent.name}</a>${arm ? html` (<a href="/experiments/${arm.experimentId}">${armLabel(arm)}</a>)` : ""} <span class="muted">${agent.id}</span></td>
<td>${latest ? html`<a href="/runs/${latest.id}">${when(latest.created_at)}</a>` : "no completed run"}</td>
<td class="num">${score9(latest?.overall_score)}</td>
${agentDropCell(drop, arm !== undefined)}
${dimensions.map((d) => html`<td class="num">${latest ? score9(dimensionScore(latest, d)) : "—"}</td>`)}
</tr>`,
        )}</tbody>
</table>
<p class="muted">Δ: the latest run's largest fall on a dimension against the agent's baseline, or against its run before where it has no baseline. Sort by it to see who dropped first.</p>`;
  return layout({
    title: "Agents",
    section: "agents",
    body: html`<h1>Agents</h1>
${filterForm("/agents", query, ["agent", "since", "until"], { ...viewParams(view), experiments: raw.experiments })}
${toggle}
${body}`,
  });
}

/** The latest run's largest fall: against the baseline, else against the agent's run before it. */
async function agentDrop(
  context: DashboardContext,
  latest: RunRow,
  baseline: AgentBaseline | undefined,
): Promise<AgentDrop> {
  const threshold = context.regressionThreshold;
  if (baseline) {
    const drop = baselineDrop(latest, baseline, threshold);
    return drop && { ...drop, against: "baseline" };
  }
  const previous = await previousRun(context.store, latest);
  const drop = previous && baselineDrop(latest, baselineOfRun(previous), threshold);
  return drop && { ...drop, against: "previous run" };
}

function agentDropCell(drop: AgentDrop, arm: boolean): Html {
  if (arm)
    return html`<td class="num muted" title="an experiment's arm: its experiment page compares the arms">—</td>`;
  return dropCell(drop, "no baseline and no earlier run", drop?.against);
}

/** Mean score of each (dimension, proposition) of a run's judged verdicts, with their reasoning. */
function byProposition(rows: readonly ScoreRow[]) {
  const out = new Map<
    string,
    { dimension: string; proposition: string; scores: number[]; reasoning: string[] }
  >();
  for (const row of rows) {
    if (row.status !== "ok" || row.score === null) continue;
    const key = `${row.dimension}/${row.proposition_id}`;
    let entry = out.get(key);
    if (!entry)
      out.set(
        key,
        (entry = { dimension: row.dimension, proposition: row.proposition_id, scores: [], reasoning: [] }),
      );
    entry.scores.push(row.score);
    if (row.reasoning && !entry.reasoning.includes(row.reasoning)) entry.reasoning.push(row.reasoning);
  }
  return out;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The built-in sets, read once: they ship with the package and do not change while it runs. */
const builtinSets = new Map<string, ReturnType<typeof builtinPropositionSet>>();

/**
 * What to do about a fallen proposition: the baseline file's advice (the project's own propositions), else
 * the built-in set's for a built-in proposition; the store keeps verdicts, not the propositions' text.
 */
async function recommendationFor(
  fromBaseline: ReadonlyMap<string, string>,
  dimension: string,
  proposition: string,
  agentName: string,
): Promise<string | undefined> {
  const known = fromBaseline.get(`${dimension}/${proposition}`);
  if (known !== undefined || !isPersonaDimension(dimension)) return known;
  let set = builtinSets.get(dimension);
  if (!set) builtinSets.set(dimension, (set = builtinPropositionSet(dimension)));
  const builtin = (await set).propositions.find((p) => p.id === proposition);
  const text = builtin?.recommendations_for_improvement;
  return text === undefined ? undefined : renderTemplate(text, { agent_name: agentName });
}

async function fallenPropositions(context: DashboardContext, latest: RunRow, previous: RunRow) {
  const scoresOf = (run: RunRow) =>
    run.evaluation_id
      ? context.store.scores.forEvaluation(run.evaluation_id, { run: run.id })
      : Promise.resolve([]);
  const [now, before] = await Promise.all([scoresOf(latest), scoresOf(previous)]);
  const was = byProposition(before);
  const fallen = [];
  for (const [key, entry] of byProposition(now)) {
    const earlier = was.get(key);
    if (!earlier) continue;
    const [a, b] = [mean(earlier.scores), mean(entry.scores)];
    if (b < a) fallen.push({ key, ...entry, before: a, now: b });
  }
  return fallen.sort((x, y) => y.before - y.now - (x.before - x.now));
}

export async function agentPage(
  context: DashboardContext,
  id: string,
  query: PageQuery,
): Promise<Html | undefined> {
  const { store } = context;
  const agent = await store.agents.get(id);
  if (!agent) return undefined;
  const from = query.since === undefined ? -Infinity : Date.parse(query.since);
  const to = query.until === undefined ? Infinity : Date.parse(query.until);
  // Newest first: each run's previous one is the next in the list (also for the first run in the range).
  const all = await store.runs.list({ agent: id, status: "completed", limit: CHART_RUNS });
  const previousOf = new Map(all.map((r, i) => [r.id, all[i + 1]?.id]));
  const runs = all
    .filter((r) => {
      const at = Date.parse(r.created_at);
      return at >= from && at <= to;
    })
    .reverse();
  const baseline = await agentBaseline(context, id);
  // Without a baseline, no dimension has a score to fall below: the page says so.
  const baselines = {
    scores: baseline?.scores ?? ({} as Record<string, number | null>),
    recommendations: baseline?.recommendations ?? new Map<string, string>(),
    source: baseline?.source,
  };
  const points: DriftPoint[] = runs.map((r) => ({
    run_id: r.id,
    created_at: r.created_at,
    scores: Object.fromEntries(Object.keys(r.dimension_scores ?? {}).map((d) => [d, dimensionScore(r, d)])),
    previous_run_id: previousOf.get(r.id),
  }));
  const dimensions = scoredDimensions(runs).filter(
    (d) => query.dimension === undefined || d === query.dimension,
  );
  const isRegression = (point: DriftPoint, dimension: string) => {
    const baseline = baselines.scores[dimension];
    const score = point.scores[dimension];
    return (
      typeof baseline === "number" &&
      typeof score === "number" &&
      regressionStatus(baseline, score, [score], context.regressionThreshold) === "regression"
    );
  };
  const regressions = points.flatMap((p) =>
    dimensions.filter((d) => isRegression(p, d)).map((d) => ({ p, d })),
  );
  const [latest, previous] = [runs.at(-1), runs.at(-2)];
  const fallen = await Promise.all(
    (latest && previous ? await fallenPropositions(context, latest, previous) : []).map(async (f) => ({
      ...f,
      recommendation: await recommendationFor(
        baselines.recommendations,
        f.dimension,
        f.proposition,
        agent.name,
      ),
    })),
  );
  const alerts = await agentAlerts(context, id);
  const filters = { dimension: query.dimension, since: query.since, until: query.until };
  const body = html`<h1>${agent.name} <span class="muted">${agent.id}</span></h1>
${filterForm(`/agents/${encodeURIComponent(id)}`, query, ["dimension", "since", "until"])}
<p><a href="${hrefWith("/runs", { agent: id, ...filters })}">All runs of ${agent.name}</a> · <a href="${hrefWith("/compare", { agent: id })}">Compare two runs of ${agent.name}</a> · <a href="${hrefWith("/corrections", { agent: id })}">Gate checks</a></p>
${agentPersonaSection(agent, all[0])}
${
  points.length === 0
    ? html`<p>${agent.name} has no completed run${query.since || query.until ? " in this time range" : ""} yet.</p>`
    : html`<section>
<h2>Drift over ${points.length} run${points.length === 1 ? "" : "s"}</h2>
${driftChart({ points, dimensions, baselines: baselines.scores, isRegression })}
<p class="muted">${
        baselines.source
          ? `Dashed lines: the ${baselines.source}'s scores. A ring marks a score more than ${context.regressionThreshold} below its baseline.`
          : "No baseline yet, so no reference lines and no regression marks (see Regressions below)."
      }</p>
</section>
<section>
<h2>Latest scores</h2>
<table class="scores"><thead><tr><th>Dimension</th><th class="num">Latest</th><th class="num">Previous</th><th class="num">Baseline</th></tr></thead>
<tbody>${dimensions.map(
        (d) =>
          html`<tr><td>${d}</td><td class="num">${score9(latest ? dimensionScore(latest, d) : null)}</td><td class="num">${score9(previous ? dimensionScore(previous, d) : null)}</td><td class="num">${score9(baselines.scores[d])}</td></tr>`,
      )}</tbody></table>
</section>
<section>
<h2>Regressions</h2>
${
  regressions.length > 0
    ? html`<ul class="regressions">${regressions.map(
        ({ p, d }) =>
          html`<li><a href="/runs/${p.run_id}">${when(p.created_at)}</a>: ${d} ${score9(p.scores[d])}, baseline ${score9(baselines.scores[d])}${
            p.previous_run_id
              ? html` — <a href="${hrefWith("/compare", { a: p.previous_run_id, b: p.run_id })}">compare with previous run</a>`
              : ""
          }</li>`,
      )}</ul>`
    : dimensions.some((d) => typeof baselines.scores[d] === "number")
      ? html`<p>None: no dimension is more than ${context.regressionThreshold} below its baseline${
          dimensions.every((d) => typeof baselines.scores[d] === "number")
            ? ""
            : html` (${dimensions.filter((d) => typeof baselines.scores[d] !== "number").join(", ")} ha${
                dimensions.filter((d) => typeof baselines.scores[d] !== "number").length === 1 ? "s" : "ve"
              } no baseline to compare with)`
        }.</p>`
      : noBaseline(agent.id)
}
</section>
${alertsSection(alerts)}
<section>
<h2>Propositions that fell</h2>
${
  !previous
    ? html`<p>One run so far: nothing to compare with.</p>`
    : fallen.length === 0
      ? html`<p>No proposition scored lower in the latest run (<a href="/runs/${latest!.id}">${shortId(latest!.id)}</a>) than in the one before.</p>`
      : html`<table class="fallen"><thead><tr><th>Proposition</th><th class="num">Before</th><th class="num">Now</th><th>Reasoning</th><th>Recommendations</th></tr></thead>
<tbody>${fallen.map(
          (
            f,
          ) => html`<tr><td><a href="${propositionVerdictsHref(latest!.id, f.dimension, f.proposition)}">${f.dimension} / ${f.proposition}</a></td><td class="num">${score9(f.before)}</td><td class="num">${score9(f.now)}</td>
<td>${f.reasoning.map((r) => html`<p>${r}</p>`)}</td><td class="recommendation">${f.recommendation ?? "—"}</td></tr>`,
        )}</tbody></table>`
}
</section>`
}`;
  return layout({ title: agent.name, section: "agents", body });
}

/**
 * What an agent without a baseline shows instead of an all-clear: nothing can be a regression yet, and how
 * to set one — `dramaturg baseline` evaluates, marks the runs as the agent's baseline in the store and
 * writes the golden file that `serve --baselines` and `ci` read.
 */
/** An agent id as one shell word, quoted unless it is plain, so the command can be pasted as shown. */
const shellWord = (word: string) => (/^[\w.@-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

function noBaseline(agentId: string): Html {
  return html`<p>No baseline yet, so nothing can be called a regression. Set one by evaluating a transcript of a good version of the agent against this store (the server's <code>--db</code>); its runs become the baseline:</p>
<pre>dramaturg baseline transcript.json --agent ${shellWord(agentId)} --judge openai:gpt-4o-mini --out baselines</pre>
<p>Or serve with <code>--baselines DIR</code>, a folder of baselines written that way.</p>`;
}

/** The agent's alerts from online rules (`dramaturg online`), newest first; none on memory://, which has no queue. */
function agentAlerts(context: DashboardContext, agentId: string): Promise<OnlineAlertSummary[]> {
  return context.store.online.alerts({ agent: agentId, limit: 20 });
}

function alertsSection(alerts: readonly OnlineAlertSummary[]): Html {
  if (alerts.length === 0) return html``;
  const open = alerts.filter((a) => a.resolved_at === null).length;
  return html`<section>
<h2>Online alerts</h2>
<p>${open === 0 ? "None open." : `${open} open: a dimension below its baseline in production traffic (dramaturg online).`}</p>
<table class="alerts"><thead><tr><th>Opened</th><th>Rule</th><th>Dimension</th><th class="num">Score</th><th class="num">Baseline</th><th>State</th></tr></thead>
<tbody>${alerts.map(
    (
      a,
    ) => html`<tr><td>${a.run_id ? html`<a href="/runs/${a.run_id}">${when(a.opened_at)}</a>` : when(a.opened_at)}</td><td>${a.rule}</td><td>${a.dimension}</td>
<td class="num">${score9(a.score)}</td><td class="num">${score9(a.baseline)}</td><td>${a.resolved_at ? `resolved ${when(a.resolved_at)}` : "open"}${a.delivery ? ` · webhook ${a.delivery.status}` : ""}</td></tr>`,
  )}</tbody></table>
</section>`;
}
