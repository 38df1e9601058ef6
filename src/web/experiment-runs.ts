// Where a persona run stands in an experiment, read back along the rows the runner stores: a run's persona
// evaluation (source `experiment-environment:<row>`) → one arm of one environment (kind
// `experiment_environment`, its arm and index in its configuration, source `experiment:<id>`) → the experiment.
import { finishedEnvironmentRows } from "../experiments/index.ts";
import type { EvaluationRow, RunRow, Store } from "../store/index.ts";
import { previousRun } from "./run-baselines.ts";

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

/** One arm of one environment as stored: its row, its persona evaluation, and its agents' runs (every trial). */
export interface EnvironmentArmRuns {
  row: EvaluationRow;
  /** The persona evaluation that judged it (its stored input holds the environment's transcript). */
  evaluationId?: string;
  runs: RunRow[];
}

/** An experiment's stored environment runs (one arm of one environment each) that its document was made of. */
async function environmentRows(store: Store, experiment: EvaluationRow): Promise<EvaluationRow[]> {
  const key = experiment.config.experiment_key;
  if (typeof key !== "string") return [];
  // The newest finished row of each environment run of the experiment's key, whichever experiment row ran
  // it (a rerun of a finished experiment reuses the earlier rows).
  const ids = [...(await finishedEnvironmentRows(store, key)).values()];
  const rows = await Promise.all(ids.map((id) => store.evaluations.get(id)));
  return rows.filter((row) => row !== undefined);
}

/** The arm and 0-based environment index an environment row's configuration names. */
function placeOf(row: EvaluationRow): { arm: string; index: number } | undefined {
  const { arm, index } = row.config as { arm?: unknown; index?: unknown };
  return typeof arm === "string" && typeof index === "number" ? { arm, index } : undefined;
}

/** The persona evaluation of one environment row, and its runs (every agent, every trial). */
async function environmentPersonaRuns(
  store: Store,
  row: EvaluationRow,
): Promise<{ evaluationId?: string; runs: RunRow[] }> {
  // The persona evaluation is made while its environment row runs, between its creation and completion
  // (it lists no agents to find it by: its runs name them).
  const evaluations = await store.evaluations.list({
    kind: "persona",
    since: row.created_at,
    until: row.completed_at ?? undefined,
    limit: 500,
  });
  const evaluation = evaluations.find((e) => e.source === `${ENVIRONMENT_SOURCE}${row.id}`);
  if (evaluation === undefined) return { runs: [] };
  return {
    evaluationId: evaluation.id,
    runs: await store.runs.list({ evaluation: evaluation.id, limit: 200 }),
  };
}

/** The persona runs of an experiment's environments, by `<index>:<arm>`. */
export async function experimentEnvironmentRuns(
  store: Store,
  experiment: EvaluationRow,
): Promise<Map<string, EnvironmentArmRuns>> {
  const out = new Map<string, EnvironmentArmRuns>();
  const rows = await environmentRows(store, experiment);
  await Promise.all(
    rows.map(async (row) => {
      const place = placeOf(row);
      if (place !== undefined)
        out.set(`${place.index}:${place.arm}`, { row, ...(await environmentPersonaRuns(store, row)) });
    }),
  );
  return out;
}

/**
 * The agent's run in the same environment of the experiment, under another arm (the control's for a
 * treatment run): the one run of it that differs only by the treatment.
 */
export async function pairedRun(
  store: Store,
  run: RunRow,
  place: ExperimentArmOfRun,
): Promise<{ run: RunRow; arm: string } | undefined> {
  const experiment = await store.evaluations.get(place.experimentId);
  if (experiment === undefined) return undefined;
  for (const row of await environmentRows(store, experiment)) {
    const other = placeOf(row);
    if (other === undefined || other.index !== place.environment || other.arm === place.arm) continue;
    const { runs } = await environmentPersonaRuns(store, row);
    const found = runs.find((r) => r.agent_id === run.agent_id && r.trial === run.trial);
    if (found) return { run: found, arm: other.arm };
  }
  return undefined;
}

/**
 * The agent's completed run before this one in the same arm of the same experiment — or, for a run in no
 * experiment, before it in no experiment: an arm's runs are never "previous" to another arm's, whose
 * treatment differs. Another trial of the same evaluation is not a previous run either.
 */
export async function previousRunInArm(
  store: Store,
  run: RunRow,
  place: ExperimentArmOfRun | undefined,
  armOf: (run: RunRow) => Promise<ExperimentArmOfRun | undefined>,
): Promise<RunRow | undefined> {
  return previousRun(store, run, async (candidate) => sameArm(place, await armOf(candidate)));
}
