// One experiment's page (`/experiments/{id}`): Table 1 as `experiment report ID` prints it (each metric's
// control and treatment mean with its 95 % CI, Δ, p, n), each metric's two distributions as a dot strip, and
// the pairs — each environment's control and treatment side by side: its agents' runs (their verdicts) and
// metrics, and both transcripts.
import { InputError, type Transcript } from "../core/index.ts";
import {
  type EnvironmentRecord,
  type ExperimentReport,
  type ExperimentResultDocument,
  experimentReport,
  formatP,
  formatSigned,
  listExperiments,
  loadExperimentResult,
  meanCi95,
  reportTitle,
  unmeasuredLines,
} from "../experiments/index.ts";
import { parseStoredPersonaInput } from "../personas/index.ts";
import { type EvaluationRow, fetchPage, type Store } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { evaluationPage } from "./evaluation-page.ts";
import { type EnvironmentArmRuns, experimentEnvironmentRuns } from "./experiment-runs.ts";
import { hrefWith, shortId, when } from "./format.ts";
import { type Html, html } from "./html.ts";
import { firstRun, layout, nextPageLink } from "./layout.ts";
import { decodeCursor, type PageQuery } from "./page-query.ts";
import { experimentValidations } from "./validation-page.ts";

const DASH = "–";
const fixed = (x: number | null | undefined) => (x === null || x === undefined ? DASH : x.toFixed(2));
const interval = (ci: readonly [number, number] | null) =>
  ci === null ? "" : `[${fixed(ci[0])}, ${fixed(ci[1])}]`;

/** A metric's name that may break after its underscores (`task_completion` on a phone), not inside a word. */
const breakable = (metric: string): Html =>
  html`${metric.split("_").map((part, i) => (i === 0 ? part : html`_<wbr>${part}`))}`;

/** One metric's figures as the page shows them: the report's comparison, and each arm's values and CI. */
interface MetricRow {
  metric: string;
  comparison: ExperimentReport["comparisons"][number];
  values: { control: readonly number[]; treatment: readonly number[] };
  ci: { control: [number, number] | null; treatment: [number, number] | null };
}

function metricRows(document: ExperimentResultDocument): { report: ExperimentReport; rows: MetricRow[] } {
  const { report, chart } = experimentReport(document);
  const rows = report.comparisons.map((comparison, i) => {
    const values = { control: chart.metrics[i]!.control, treatment: chart.metrics[i]!.treatment };
    return {
      metric: comparison.metric,
      comparison,
      values,
      ci: { control: meanCi95(values.control), treatment: meanCi95(values.treatment) },
    };
  });
  return { report, rows };
}

/** Table 1: per metric, each arm's mean (n) and the 95 % CI of that mean, Δ = treatment − control, Welch's p. */
function table1(report: ExperimentReport, rows: readonly MetricRow[]): Html {
  const { control, treatment, alpha } = report.experiment;
  // As the report prints an arm, `mean (n)`, with the mean's 95 % CI under it: five columns fit a phone.
  const armCell = ({ mean, n }: { mean: number | null; n: number }, ci: [number, number] | null) =>
    html`<td class="num">${fixed(mean)} <span class="n">(${n})</span>${ci === null ? "" : html` <span class="ci">${interval(ci)}</span>`}</td>`;
  const notes = rows.filter((r) => r.comparison.note);
  return html`<table class="table1">
<caption>treatment “${treatment.name}” vs control “${control.name}”: each arm's mean (n) [95% CI]</caption>
<thead><tr><th>Metric</th><th class="num">${control.name}</th><th class="num">${treatment.name}</th><th class="num">Δ</th><th class="num">p</th></tr></thead>
<tbody>${rows.map(
    ({ metric, comparison: c, ci }) => html`<tr${c.significant ? html` class="significant"` : ""}>
<td>${breakable(metric)}</td>${armCell(c.control, ci.control)}${armCell(c.treatment, ci.treatment)}
<td class="num">${formatSigned(c.delta)}</td><td class="num">${formatP(c.p)}${c.significant ? " *" : ""}</td>
</tr>`,
  )}</tbody></table>
<p class="muted">Δ = treatment − control · Welch's t-test, two-sided · * p &lt; ${alpha} · (n): the arm's values · the whole report: <code>dramaturg experiment report ID</code></p>
${notes.length === 0 ? "" : html`<ul class="notes">${notes.map((r) => html`<li>${r.metric}: ${r.comparison.note}</li>`)}</ul>`}`;
}

const STRIP = { width: 320, left: 12, right: 308, row: 26, top: 8 };
/** The golden ratio's fraction: index × φ mod 1 spreads the dots of a strip evenly, the same way every time. */
const PHI = 0.6180339887498949;

/** The x range of a metric's strips: 0–9 (the judge's scale) when everything fits in it, else 0 to its largest. */
function stripRange(numbers: readonly number[]): [number, number] {
  const low = Math.min(0, ...numbers);
  const high = Math.max(9, ...numbers);
  return [low, high === low ? low + 1 : high];
}

/**
 * A metric's two distributions as an SVG dot strip: one row per arm, every value a dot, the mean a bar and
 * its 95 % CI a whisker, on one axis. Colours come from the stylesheet's classes (no inline style).
 */
function distribution(row: MetricRow, arms: readonly [string, string]): Html {
  const sides = [
    { name: arms[0], values: row.values.control, ci: row.ci.control, mean: row.comparison.control.mean },
    {
      name: arms[1],
      values: row.values.treatment,
      ci: row.ci.treatment,
      mean: row.comparison.treatment.mean,
    },
  ];
  const [low, high] = stripRange(sides.flatMap((s) => [...s.values, ...(s.ci ?? [])]));
  const x = (v: number) => (STRIP.left + ((v - low) / (high - low)) * (STRIP.right - STRIP.left)).toFixed(1);
  const height = STRIP.top * 2 + STRIP.row * 2 + 14;
  const axis = STRIP.top + STRIP.row * 2 + 2;
  return html`<figure class="distribution">
<figcaption>${row.metric}</figcaption>
<svg class="strip" viewBox="0 0 ${STRIP.width} ${height}" role="img" aria-label="${row.metric}: ${sides
    .map(
      (s) => `${s.name} mean ${fixed(s.mean)}${s.ci ? ` ${interval(s.ci)}` : ""}, ${s.values.length} values`,
    )
    .join("; ")}">
${sides.map((s, a) => {
  const y = STRIP.top + STRIP.row * a + STRIP.row / 2;
  return html`<g class="arm-${a}">
${s.values.map((v, i) => html`<circle class="dot" cx="${x(v)}" cy="${(y + ((i * PHI) % 1) * 10 - 5).toFixed(1)}" r="2.5"/>`)}
${s.ci === null ? "" : html`<line class="ci" x1="${x(s.ci[0])}" y1="${y}" x2="${x(s.ci[1])}" y2="${y}"/><line class="ci" x1="${x(s.ci[0])}" y1="${y - 5}" x2="${x(s.ci[0])}" y2="${y + 5}"/><line class="ci" x1="${x(s.ci[1])}" y1="${y - 5}" x2="${x(s.ci[1])}" y2="${y + 5}"/>`}
${s.mean === null ? "" : html`<line class="mean" x1="${x(s.mean)}" y1="${y - 8}" x2="${x(s.mean)}" y2="${y + 8}"/>`}
</g>`;
})}
<line class="axis" x1="${STRIP.left}" y1="${axis}" x2="${STRIP.right}" y2="${axis}"/>
<text class="tick" x="${STRIP.left}" y="${height - 1}">${String(low)}</text>
<text class="tick end" x="${STRIP.right}" y="${height - 1}">${String(Number(high.toPrecision(6)))}</text>
</svg>
<p class="strip-legend"><span class="arm-swatch arm-0"></span>${arms[0]} <span class="arm-swatch arm-1"></span>${arms[1]} · Δ ${formatSigned(row.comparison.delta)} · p ${formatP(row.comparison.p)}${row.comparison.significant ? " *" : ""}</p>
</figure>`;
}

const metricValue = (value: number | null | undefined) =>
  value === null || value === undefined ? DASH : String(Number(value.toFixed(2)));

/** One arm of one environment: its agents' runs (transcript and verdicts) with their metrics, then the environment's. */
function armCell(record: EnvironmentRecord, runs: EnvironmentArmRuns | undefined, member: string): Html {
  const run =
    runs?.runs.find((r) => r.agent_id === member && r.trial === 1) ??
    runs?.runs.find((r) => r.agent_id === member);
  const metrics = Object.entries(record.agents).map(
    ([metric, byAgent]) => `${metric} ${metricValue(byAgent[member])}`,
  );
  return html`<td>${run ? html`<a href="/runs/${run.id}">run ${shortId(run.id)}</a>` : html`<span class="muted">no stored run</span>`}
<span class="metrics">${metrics.join(" · ")}</span></td>`;
}

/** One arm's transcript of an environment: who said what, where, in order. */
function transcriptList(transcript: Transcript | undefined, names: ReadonlyMap<string, string>): Html {
  if (transcript === undefined) return html`<p class="muted">No transcript kept.</p>`;
  return html`<ol class="transcript">${transcript.messages.map(
    (m) =>
      html`<li><strong>${names.get(m.sender) ?? m.sender}</strong> <span class="muted">${m.recipient ? `→ ${names.get(m.recipient) ?? m.recipient}` : `#${m.channel}`}</span> ${m.text}</li>`,
  )}</ol>`;
}

/** An environment's two transcripts side by side, folded (a <details> opens without script). */
function transcripts(
  index: number,
  arms: readonly [string, string],
  kept: ReadonlyMap<string, Transcript>,
  names: ReadonlyMap<string, string>,
): Html {
  return html`<details class="transcripts"><summary>Environment ${index + 1}'s transcripts, ${arms[0]} beside ${arms[1]}</summary>
<div class="transcript-pair">${arms.map(
    (arm) => html`<section><h3>${arm}</h3>${transcriptList(kept.get(`${index}:${arm}`), names)}</section>`,
  )}</div>
</details>`;
}

function pairs(
  document: ExperimentResultDocument,
  arms: readonly [string, string],
  runs: ReadonlyMap<string, EnvironmentArmRuns>,
  kept: ReadonlyMap<string, Transcript>,
  names: ReadonlyMap<string, string>,
): Html {
  return html`<section id="pairs"><h2>The pairs</h2>
<p class="muted">Each environment ran twice with the same agents, seed and prompts: once per arm, only the arm's corrections differing. A run's page has the agent's transcript windows and the judge's verdicts.</p>
${document.environments.map((e) => {
  const records = arms.map((arm) => (e.arms as Record<string, EnvironmentRecord>)[arm]!);
  const found = arms.map((arm) => runs.get(`${e.index}:${arm}`));
  return html`<table class="pair" id="environment-${e.index + 1}">
<caption>Environment ${e.index + 1} · group ${e.group + 1} · seed ${e.seed}</caption>
<thead><tr><th>Agent</th>${arms.map((arm) => html`<th>${arm}</th>`)}</tr></thead>
<tbody>${e.members.map(
    (member) =>
      html`<tr><td>${names.get(member) ?? member}${member === e.rapporteur ? html` <span class="tag">rapporteur</span>` : ""}</td>${records.map((r, a) => armCell(r, found[a], member))}</tr>`,
  )}
<tr class="environment"><td>Environment</td>${records.map(
    (r) =>
      html`<td><span class="metrics">${Object.entries(r.environment)
        .map(([metric, value]) => `${metric} ${metricValue(value)}`)
        .join(" · ")}</span>
<span class="metrics">${r.messages} messages · ${r.dropped} dropped · gate ${r.gate.corrected} corrected of ${r.gate.checks}</span></td>`,
  )}</tr>
</tbody></table>
${transcripts(e.index, arms, kept, names)}`;
})}
</section>`;
}

/** The transcripts the environments' persona evaluations kept, by `<index>:<arm>`. */
async function keptTranscripts(
  store: Store,
  runs: ReadonlyMap<string, EnvironmentArmRuns>,
): Promise<Map<string, Transcript>> {
  const out = new Map<string, Transcript>();
  await Promise.all(
    [...runs].map(async ([key, { evaluationId }]) => {
      if (evaluationId === undefined) return;
      try {
        const kept = parseStoredPersonaInput(await store.evaluations.input(evaluationId));
        if (kept) out.set(key, kept.transcript);
      } catch (error) {
        // Stored by another version: the page says no transcript was kept rather than failing whole.
        if (!InputError.isInstance(error)) throw error;
      }
    }),
  );
  return out;
}

function body(
  row: EvaluationRow,
  document: ExperimentResultDocument,
  runs: ReadonlyMap<string, EnvironmentArmRuns>,
  kept: ReadonlyMap<string, Transcript>,
  names: ReadonlyMap<string, string>,
): Html {
  const { report, rows } = metricRows(document);
  const arms: [string, string] = [report.experiment.control.name, report.experiment.treatment.name];
  const labels = [report.experiment.control, report.experiment.treatment].filter(
    (a) => a.label !== null && a.label !== a.name,
  );
  const unmeasured = unmeasuredLines(report);
  return html`<h1>Experiment ${shortId(row.id)}</h1>
<p class="report-title">${reportTitle(report)}</p>
<dl class="facts">
<dt>Scenario</dt><dd>${document.scenario.id}: ${document.scenario.title}</dd>
<dt>Environments</dt><dd>${document.scenario.environments} per arm, ${document.scenario.group_size} agents each, ${document.scenario.steps} steps</dd>
<dt>Agents' model</dt><dd>${document.models.agents}</dd>
<dt>Judge</dt><dd>${document.judge.provider}:${document.judge.model} (${document.judge.mode})</dd>
${labels.map((a) => html`<dt>${a.name}</dt><dd>${a.label}</dd>`)}
</dl>
${unmeasured.length === 0 ? "" : html`<ul class="warnings">${unmeasured.map((l) => html`<li>${l}</li>`)}</ul>`}
<section id="table1"><h2>Table 1</h2>
${table1(report, rows)}
</section>
<section id="distributions"><h2>Distributions</h2>
<p class="muted">Each dot a value (per agent and environment, or per environment); the bar is the arm's mean, the whiskers its 95% CI.</p>
<div class="distributions">${rows.map((r) => distribution(r, arms))}</div>
</section>
${pairs(document, arms, runs, kept, names)}`;
}

/**
 * The experiments, newest first: each with what ran (scenario, scale, seed, model) and, once it completed, its
 * environments per arm, how many metrics differ significantly, and its first metric's Δ and p.
 */
export async function experimentsPage({ store }: DashboardContext, query: PageQuery): Promise<Html> {
  const { agent, since, until, limit, cursor } = query;
  const page = await fetchPage(limit, (n) =>
    listExperiments({ store, agent, since, until, after: decodeCursor(cursor), limit: n }),
  );
  const next =
    page.next === undefined
      ? undefined
      : hrefWith("/experiments", { agent, since, until, cursor: page.next });
  const filtered = agent !== undefined || since !== undefined || until !== undefined;
  return layout({
    title: "Experiments",
    section: "experiments",
    body: html`<h1>Experiments</h1>
<p class="muted">Treatment versus control: each environment run once per arm with the same agents and seed; a metric is significant when Welch's p &lt; 0.05.</p>
${
  page.rows.length === 0
    ? filtered
      ? html`<p>No experiment matches these filters.</p>`
      : firstRun("experiments")
    : html`<table class="experiments"><thead><tr><th>Experiment</th><th>Created</th><th>Status</th><th>Scenario</th><th class="num">Scale</th><th class="num">Environments per arm</th><th class="num">Significant</th><th>First metric</th><th>Agents' model</th></tr></thead>
<tbody>${page.rows.map((r) => {
        const h = r.headline;
        return html`<tr>
<td><a href="/experiments/${r.id}"><code>${shortId(r.id)}</code></a></td><td>${when(r.created_at)}</td><td><span class="status ${r.status}">${r.status}</span></td>
<td>${r.scenario}${r.title === null ? "" : html` <span class="muted">${r.title}</span>`}</td>
<td class="num">${r.scale ?? DASH}</td><td class="num">${r.environments ?? DASH}</td>
<td class="num">${r.metrics === null ? DASH : `${r.significant} of ${r.metrics}`}</td>
<td>${h === null ? DASH : `${h.metric} Δ ${formatSigned(h.delta)} · p ${formatP(h.p)}${h.significant === true ? " *" : ""}`}</td>
<td>${r.model ?? DASH}</td>
</tr>`;
      })}</tbody></table>`
}
${nextPageLink(next)}`,
  });
}

/** The page of an experiment; undefined (a 404) when the id is not an experiment's. */
export function experimentPage(context: DashboardContext, id: string): Promise<Html | undefined> {
  const heading = `Experiment ${shortId(id)}`;
  return evaluationPage(context, id, {
    kind: "experiment",
    title: heading,
    section: "experiments",
    document: (row) =>
      loadExperimentResult({ store: context.store, id: row.id }).then(
        (stored) => stored.document,
        (error) => {
          if (InputError.isInstance(error)) return undefined;
          throw error;
        },
      ),
    none: (row) => html`<h1>${heading}</h1>
<p>This experiment is ${row.status}; it has no result${row.status === "completed" ? " stored" : " yet"}.</p>`,
    body: async (row, document) => {
      const [runs, agents, validations] = await Promise.all([
        experimentEnvironmentRuns(context.store, row),
        context.store.agents.list(),
        experimentValidations(context, row.id),
      ]);
      const kept = await keptTranscripts(context.store, runs);
      return html`${body(row, document, runs, kept, new Map(agents.map((a) => [a.id, a.name])))}${validations}`;
    },
  });
}
