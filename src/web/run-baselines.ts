// An agent's baseline as the runs pages use it: its scores per dimension (to tell a regression) and its run
// (to compare against) — the project's baseline file when the server was given one, else the store's baseline
// run — and the run of the agent that came before a given one (from an earlier evaluation).
import { regressionStatus } from "../harness/index.ts";
import type { RunRow } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";

export interface AgentBaseline {
  /** The baseline's score per dimension (null when it had none). */
  scores: Record<string, number | null>;
  /** The baseline's run, when it is in this store. */
  runId?: string;
}

/** The agent's baseline, or undefined when it has none. */
export async function agentBaseline(
  { store, baselines }: DashboardContext,
  agentId: string,
): Promise<AgentBaseline | undefined> {
  const file = baselines?.agents.get(agentId)?.baseline;
  if (file) {
    const scores: Record<string, number | null> = {};
    for (const [dimension, baseline] of Object.entries(file.dimensions))
      scores[dimension] = baseline?.score ?? null;
    const run = await store.runs.get(file.run_id);
    return { scores, runId: run?.id };
  }
  const [run] = await store.runs.list({ agent: agentId, status: "completed", isBaseline: true, limit: 1 });
  if (!run) return undefined;
  const scores: Record<string, number | null> = {};
  for (const [dimension, s] of Object.entries(run.dimension_scores ?? {})) scores[dimension] = s.score;
  return { scores, runId: run.id };
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

/**
 * The agent's completed run before this one from an earlier evaluation: a sibling trial of the same evaluation
 * is the same measurement again, so comparing with it shows the judge's noise, not a change.
 */
export async function previousRun({ store }: DashboardContext, run: RunRow): Promise<RunRow | undefined> {
  let after = { id: run.id, created_at: run.created_at };
  for (let pages = 0; pages < 5; pages++) {
    const older = await store.runs.list({ agent: run.agent_id, status: "completed", after, limit: 20 });
    const found = older.find((r) => run.evaluation_id === null || r.evaluation_id !== run.evaluation_id);
    if (found) return found;
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
  for (const run of runs) {
    if (out.has(run.agent_id)) continue;
    const scores: Record<string, number | null> = {};
    for (const [dimension, s] of Object.entries(run.dimension_scores ?? {})) scores[dimension] = s.score;
    out.set(run.agent_id, { scores, runId: run.id });
  }
  for (const [agentId, entry] of context.baselines?.agents ?? []) {
    const scores: Record<string, number | null> = {};
    for (const [dimension, baseline] of Object.entries(entry.baseline.dimensions))
      scores[dimension] = baseline?.score ?? null;
    out.set(agentId, { scores, runId: entry.baseline.run_id });
  }
  return out;
}
