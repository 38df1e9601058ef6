// Queuing an experiment: stored as the runner stores it, one job per environment run not finished yet
// (experiment-jobs.ts), and following it until a worker completes it.
import { setTimeout as sleep } from "node:timers/promises";
import type { LanguageModel } from "ai";
import { StoreError } from "../core/index.ts";
import { prepareJudge, type Store } from "../engine/index.ts";
import {
  type ExperimentPerson,
  type ExperimentResultDocument,
  finishedEnvironmentRows,
  type Scenario,
  storeExperiment,
} from "../experiments/index.ts";
import type { Cassette } from "../judge/index.ts";
import { withQueue } from "./boss.ts";
import { completeWhenDone, type EnvironmentJob, EXPERIMENT_ENVIRONMENTS } from "./experiment-jobs.ts";
import { modelSpec } from "./model-spec.ts";

export interface EnqueueExperimentOptions {
  store: Store;
  /** The store's PostgreSQL connection string (its location), where the queue is. */
  connectionString: string;
  /** The agents' model: a spec, with its base URL and key variable (the worker's environment holds the key). */
  model: string;
  modelSettings?: { baseUrl?: string; apiKeyEnv?: string };
  /** The judge: a spec (`fixtures:FILE` is read by the worker, from its own folder). */
  judge: string;
  judgeSettings?: { baseUrl?: string; apiKeyEnv?: string };
  /** As runExperiment's. */
  scale?: number;
  seed?: number;
  population?: string | { people: readonly ExperimentPerson[] };
  /** Answers the population factory (here, before anything is queued) when the scenario names a profile. */
  populationModel?: LanguageModel;
  populationCassette?: Cassette;
  concurrency?: number;
  gateTimeoutMs?: number;
  temperature?: number;
}

export interface QueuedExperiment {
  experimentId: string;
  /** The experiment's key: what its environment runs carry (see followExperiment). */
  key: string;
  /** Environment runs in all, those finished already (a rerun's), and the jobs queued for the rest. */
  total: number;
  finished: number;
  jobs: number;
}

/**
 * Stores the experiment as runExperiment does (a stored unfinished one of the same key is continued: its
 * finished environment runs are kept) and queues a job per environment run not finished; with none left,
 * completes it here. Bad input throws an InputError before anything is written.
 */
export async function enqueueExperiment(
  scenario: Scenario,
  {
    store,
    connectionString,
    model,
    modelSettings,
    judge,
    judgeSettings,
    ...options
  }: EnqueueExperimentOptions,
): Promise<QueuedExperiment> {
  // The judge only names itself here (the document and the experiment's key carry its descriptor).
  const named = prepareJudge(judge, judgeSettings, { concurrency: options.concurrency });
  const descriptor = named.judge.descriptor;
  await named.close();
  const { plan, finished } = await storeExperiment(scenario, {
    ...options,
    model,
    modelSettings,
    store,
    judge: descriptor,
  });
  const jobs: EnvironmentJob[] = plan.tasks
    .filter((t) => !finished.has(t.environmentKey))
    .map((t) => ({
      experiment_id: plan.experimentId,
      arm: t.arm,
      index: t.environment.index,
      population_source: plan.populationSource,
      model: modelSpec(model, modelSettings),
      judge: modelSpec(judge, judgeSettings),
      ...(options.gateTimeoutMs !== undefined ? { gate_timeout_ms: options.gateTimeoutMs } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    }));
  if (jobs.length === 0) await completeWhenDone(store, plan);
  else {
    await withQueue(store, connectionString, (boss) =>
      boss.insert(
        EXPERIMENT_ENVIRONMENTS,
        jobs.map((data) => ({ data })),
      ),
    );
  }
  return {
    experimentId: plan.experimentId,
    key: plan.key,
    total: plan.tasks.length,
    finished: plan.tasks.length - jobs.length,
    jobs: jobs.length,
  };
}

/**
 * Waits until the queued experiment completes (its document, as stored) or fails (throws its reason);
 * `onProgress` is told how many of its environment runs are stored.
 */
export async function followExperiment(
  store: Store,
  queued: Pick<QueuedExperiment, "experimentId" | "key">,
  { intervalMs = 250, onProgress }: { intervalMs?: number; onProgress?: (finished: number) => void } = {},
): Promise<ExperimentResultDocument> {
  const { experimentId } = queued;
  for (;;) {
    const row = await store.evaluations.get(experimentId);
    if (!row) throw new StoreError(`experiment ${experimentId} does not exist`);
    if (row.status === "completed")
      return (await store.evaluations.result(experimentId)) as ExperimentResultDocument;
    if (row.status === "failed" || row.status === "interrupted")
      throw new StoreError(`experiment ${experimentId} ${row.status}${row.error ? `: ${row.error}` : ""}`);
    if (onProgress) onProgress((await finishedEnvironmentRows(store, queued.key)).size);
    await sleep(intervalMs);
  }
}
