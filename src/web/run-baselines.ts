// An agent's baseline as the runs pages use it: its scores per dimension (to tell a regression) and its run
// (to compare against) — the project's baseline file when the server was given one, else the store's baseline
// run — and the run of the agent that came before a given one (from an earlier evaluation).
import { type Baseline, regressionStatus } from "../regression/index.ts";
import type { RunRow, Store } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";

export interface AgentBaseline {
  /** The baseline's score per dimension (null when it had none). */
  scores: Record<string, number | null>;
  /** The baseline file's recommendations by `dimension/proposition` (a baseline run keeps none). */
  recommendations: ReadonlyMap<string, string>;
  /** Where it comes from, as the pages say it. */
  source: "baseline file" | "baseline run";
  /** The baseline's run, when it is in this store. */
  runId?: string;
}

/** A baseline file's scores and recommendations (its run id as the file names it). */
function fromFile(file: Baseline): AgentBaseline {
  const scores: Record<string, number | null> = {};
  const recommendations = new Map<string, string>();
  for (const [dimension, baseline] of Object.entries(file.dimensions)) {
    scores[dimension] = baseline?.score ?? null;
    for (const p of baseline?.propositions ?? [])
      if (p.recommendations) recommendations.set(`${dimension}/${p.id}`, p.recommendations);
  }
  return { scores, recommendations, source: "baseline file", runId: file.run_id };
}

/** A baseline run's scores (a run keeps no recommendations); any run's, to measure against the one before. */
export function baselineOfRun(run: RunRow): AgentBaseline {
  const scores: Record<string, number | null> = {};
  for (const [dimension, s] of Object.entries(run.dimension_scores ?? {})) scores[dimension] = s.score;
  return { scores, recommendations: new Map(), source: "baseline run", runId: run.id };
}

/** The agent's baseline: the project's baseline file, else its baseline run in the store; undefined when neither. */
export async function agentBaseline(
  { store, baselines }: DashboardContext,
  agentId: string,
): Promise<AgentBaseline | undefined> {
  const file = baselines?.agents.get(agentId)?.baseline;
  if (file) {
    // The file's run, only when this store has it (a link to it must open).
    const run = await store.runs.get(file.run_id);
    return { ...fromFile(file), runId: run?.id };
  }
  const [run] = await store.runs.list({ agent: agentId, status: "completed", isBaseline: true, limit: 1 });
  return run && baselineOfRun(run);
}

/** The dimensions of a run more than the threshold below the baseline (the drift chart's rings). */
export function regressedDimensions(
  run: RunRow,
  baseline: AgentBaseline | undefined,
  threshold: number,
): string[] {
  if (!baseline || run.status !== "completed") return [];
  return Object.entries(run.dimension_scores ?? {}).flatMap(([dimension, s]) => {
    const base = baseline.scores[dimension];
    return typeof base === "number" &&
      typeof s.score === "number" &&
      regressionStatus(base, s.score, [s.score], threshold) === "regression"
      ? [dimension]
      : [];
  });
}

/** A run's largest fall against its baseline: the dimension furthest below it and by how much (negative). */
export interface BaselineDrop {
  dimension: string;
  /** The run's score minus the baseline's, on the 0–9 scale; the most negative of the run's dimensions. */
  delta: number;
  /** Whether that fall is a regression (more than the threshold below, as the drift chart rings it). */
  regression: boolean;
}

/**
 * The dimension of a completed run that fell furthest against its baseline (or, none falling, the one that
 * rose least); undefined without a baseline or a dimension both scored. Ties go to the first in name order.
 */
export function baselineDrop(
  run: RunRow,
  baseline: AgentBaseline | undefined,
  threshold: number,
): BaselineDrop | undefined {
  if (!baseline || run.status !== "completed") return undefined;
  let worst: { dimension: string; delta: number; base: number; score: number } | undefined;
  for (const [dimension, s] of Object.entries(run.dimension_scores ?? {}).sort(([a], [b]) =>
    a < b ? -1 : 1,
  )) {
    const base = baseline.scores[dimension];
    if (typeof base !== "number" || typeof s.score !== "number") continue;
    const delta = s.score - base;
    if (!worst || delta < worst.delta) worst = { dimension, delta, base, score: s.score };
  }
  if (!worst) return undefined;
  const { dimension, delta, base, score } = worst;
  return { dimension, delta, regression: regressionStatus(base, score, [score], threshold) === "regression" };
}

/**
 * The agent's completed run before this one from an earlier evaluation that `accept` takes (an experiment's
 * run takes only its own arm's): a sibling trial of the same evaluation is the same measurement again, so
 * comparing with it shows the judge's noise, not a change. A bounded look back, 10 pages of 20, so that the
 * dashboard's pages stay fast.
 */
export async function previousRun(
  store: Store,
  run: RunRow,
  accept: (candidate: RunRow) => boolean | Promise<boolean> = () => true,
): Promise<RunRow | undefined> {
  let after = { id: run.id, created_at: run.created_at };
  for (let pages = 0; pages < 10; pages++) {
    const older = await store.runs.list({ agent: run.agent_id, status: "completed", after, limit: 20 });
    for (const candidate of older) {
      if (run.evaluation_id !== null && candidate.evaluation_id === run.evaluation_id) continue;
      if (await accept(candidate)) return candidate;
    }
    if (older.length < 20) return undefined;
    after = { id: older.at(-1)!.id, created_at: older.at(-1)!.created_at };
  }
  return undefined;
}

/** How many baseline runs the failures view reads at most: an agent's baseline and its sibling trials each. */
const BASELINE_RUNS_READ = 1_000;

/**
 * Every agent's baseline in two reads (the baseline runs, and the project's files), so that a list can tell
 * its runs' regressions without a query per agent.
 */
export async function allBaselines(context: DashboardContext): Promise<Map<string, AgentBaseline>> {
  const out = new Map<string, AgentBaseline>();
  // Newest first: an agent's first is its baseline (its sibling trials carry the same measurement).
  const runs = await context.store.runs.list({
    status: "completed",
    isBaseline: true,
    limit: BASELINE_RUNS_READ,
  });
  for (const run of runs) if (!out.has(run.agent_id)) out.set(run.agent_id, baselineOfRun(run));
  for (const [agentId, entry] of context.baselines?.agents ?? []) out.set(agentId, fromFile(entry.baseline));
  return out;
}
