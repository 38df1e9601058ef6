// Where a persona run stands in an experiment, read back along the rows the runner stores: a run's persona
// evaluation (source `experiment-environment:<row>`) → one arm of one environment (kind
// `experiment_environment`, its arm and index in its configuration, source `experiment:<id>`) → the experiment.
import { finishedEnvironmentRows } from "../experiments/index.ts";
import type { EvaluationRow, RunRow, Store } from "../store/index.ts";

/** A run's place in an experiment: which experiment, which arm, which environment. */
export interface ExperimentArmOfRun {
  experimentId: string;
  /** The experiment's scenario id (its row's source). */
  scenario: string;
  arm: string;
  /** 0-based, as the result document numbers environments. */
  environment: number;
}

const ENVIRONMENT_SOURCE = "experiment-environment:";
const EXPERIMENT_SOURCE = "experiment:";

/** "experiment brainstorming 1a2b3c4d, treatment": how pages name an arm of an experiment. */
export function armLabel({ experimentId, scenario, arm }: ExperimentArmOfRun): string {
  return `experiment ${scenario} ${experimentId.slice(0, 8)}, ${arm}`;
}

/**
 * A reader of runs' places in experiments for one request: each evaluation row is read once, however many
 * runs share it (an environment's agents share its persona evaluation, an experiment its environments).
 */
export function experimentArmReader(store: Store): (run: RunRow) => Promise<ExperimentArmOfRun | undefined> {
  const rows = new Map<string, Promise<EvaluationRow | undefined>>();
  const row = (id: string) => {
    let found = rows.get(id);
    if (!found) rows.set(id, (found = store.evaluations.get(id)));
    return found;
  };
  return async (run) => {
    if (run.evaluation_id === null) return undefined;
    const evaluation = await row(run.evaluation_id);
    if (!evaluation?.source.startsWith(ENVIRONMENT_SOURCE)) return undefined;
    const environment = await row(evaluation.source.slice(ENVIRONMENT_SOURCE.length));
    if (environment?.kind !== "experiment_environment") return undefined;
    const { arm, index } = environment.config as { arm?: unknown; index?: unknown };
    if (typeof arm !== "string" || typeof index !== "number") return undefined;
    const experimentId = environment.source.slice(EXPERIMENT_SOURCE.length);
    const experiment = await row(experimentId);
    if (experiment?.kind !== "experiment") return undefined;
    return { experimentId, scenario: experiment.source, arm, environment: index };
  };
}

/** Whether two runs are in the same arm of the same experiment, or both in none. */
export function sameArm(a: ExperimentArmOfRun | undefined, b: ExperimentArmOfRun | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.experimentId === b.experimentId && a.arm === b.arm;
}

/** One arm of one environment as stored: its row, and its agents' persona runs (every trial). */
export interface EnvironmentArmRuns {
  row: EvaluationRow;
  runs: RunRow[];
}

/**
 * The persona runs of an experiment's environments, by `<index>:<arm>`: the newest finished row of each
 * environment run of the experiment's key — the rows its document was assembled from, whichever experiment
 * row ran them (a rerun of a finished experiment reuses the earlier rows).
 */
export async function experimentEnvironmentRuns(
  store: Store,
  experiment: EvaluationRow,
): Promise<Map<string, EnvironmentArmRuns>> {
  const key = experiment.config.experiment_key;
  const out = new Map<string, EnvironmentArmRuns>();
  if (typeof key !== "string") return out;
  const ids = [...(await finishedEnvironmentRows(store, key)).values()];
  const found = await Promise.all(
    ids.map(async (id) => {
      const row = await store.evaluations.get(id);
      if (row === undefined) return undefined;
      // The persona evaluation is made while its environment row runs, between its creation and completion
      // (it lists no agents to find it by: its runs name them).
      const evaluations = await store.evaluations.list({
        kind: "persona",
        since: row.created_at,
        until: row.completed_at ?? undefined,
        limit: 500,
      });
      const evaluation = evaluations.find((e) => e.source === `${ENVIRONMENT_SOURCE}${row.id}`);
      const runs =
        evaluation === undefined ? [] : await store.runs.list({ evaluation: evaluation.id, limit: 200 });
      return { row, runs };
    }),
  );
  for (const entry of found) {
    if (entry === undefined) continue;
    const { arm, index } = entry.row.config as { arm?: unknown; index?: unknown };
    if (typeof arm === "string" && typeof index === "number") out.set(`${index}:${arm}`, entry);
  }
  return out;
}
