// Queued experiments, the kind of job: `experiment run --queue` stores the experiment as the runner stores it
// and queues one job per environment run, an arm of an environment (enqueue-experiment.ts). A worker runs that
// one environment run and stores it (the runner's own runExperimentEnvironment); when the last one is stored,
// exactly one worker (the one holding the experiment's advisory lock, in a transaction) assembles the document
// and completes the experiment: the same bytes as an in-process run, whichever worker ran what. A job run again
// after its environment was stored runs nothing. Models travel as specs, never keys: a worker reads its own.
import { z } from "zod";
import { InputError } from "../core/index.ts";
import { prepareJudge, type Store } from "../engine/index.ts";
import {
  completeExperiment,
  experimentModel,
  finishedEnvironmentRows,
  finishedEnvironments,
  runExperimentEnvironment,
  type StoredExperimentPlan,
  storedExperimentPlan,
} from "../experiments/index.ts";
import type { QueuedJobKind, WorkerContext } from "./job-kind.ts";
import { ModelSpecSchema } from "./model-spec.ts";
import { failQueuedEvaluation } from "./queued-evaluation.ts";
import { ENVIRONMENT_RETRY_LIMIT, EXPERIMENT_ENVIRONMENTS } from "./queues.ts";

export { ENVIRONMENT_RETRY_LIMIT, EXPERIMENT_ENVIRONMENTS };

export const EnvironmentJobSchema = z.object({
  /** The stored experiment. */
  experiment_id: z.string().uuid(),
  arm: z.enum(["control", "treatment"]),
  /** The environment's 0-based index in the experiment's plan. */
  index: z.number().int().min(0),
  /** How the document names where the people came from (`folder:…`, `given`, `profile:…`). */
  population_source: z.string().min(1),
  model: ModelSpecSchema,
  judge: ModelSpecSchema,
  gate_timeout_ms: z.number().int().positive().optional(),
  temperature: z.number().min(0).optional(),
});
export type EnvironmentJob = z.infer<typeof EnvironmentJobSchema>;

export const experimentEnvironments: QueuedJobKind<EnvironmentJob> = {
  name: "experiment",
  queue: EXPERIMENT_ENVIRONMENTS,
  data: EnvironmentJobSchema,
  retryLimit: ENVIRONMENT_RETRY_LIMIT,
  // An environment run keeps the worker's concurrency busy by itself (its agents and judge at once).
  jobsAtOnce: 1,
  run: runEnvironmentJob,
  failed: (job, error, { store }) =>
    failQueuedEvaluation(
      store,
      job.experiment_id,
      `the ${job.arm} run of environment ${job.index + 1} failed ${ENVIRONMENT_RETRY_LIMIT + 1} times`,
      error,
    ),
};

/** Runs one environment run of a stored experiment, unless it is stored already; completes the experiment when it is the last. */
async function runEnvironmentJob(job: EnvironmentJob, context: WorkerContext): Promise<void> {
  const { store } = context;
  const row = await store.evaluations.get(job.experiment_id);
  if (!row || row.status === "completed" || row.status === "failed") return;
  const plan = await storedExperimentPlan(store, row.id, job.population_source);
  const task = plan.tasks.find((t) => t.arm === job.arm && t.environment.index === job.index);
  if (!task)
    throw new InputError(`experiment ${row.id} has no ${job.arm} run of environment ${job.index + 1}`, {
      place: "index",
    });
  const done = await finishedEnvironmentRows(store, plan.key);
  if (!done.has(task.environmentKey)) {
    const { apiKeyEnv, timeoutMs, retries } = context.judgeSettings ?? {};
    const ready = prepareJudge(
      job.judge.spec,
      {
        baseUrl: job.judge.base_url,
        // The worker's own key variable first: its environment is the one the key is in.
        apiKeyEnv: apiKeyEnv ?? job.judge.api_key_env,
        timeoutMs,
        retries,
      },
      { concurrency: context.concurrency },
    );
    try {
      const model = experimentModel(job.model.spec, {
        baseUrl: job.model.base_url,
        apiKeyEnv: job.model.api_key_env,
      });
      await runExperimentEnvironment(plan, task, {
        store,
        model: () => model,
        judge: ready.judge,
        concurrency: context.concurrency,
        gateTimeoutMs: job.gate_timeout_ms,
        temperature: job.temperature,
      });
    } finally {
      await ready.close();
    }
  }
  await completeWhenDone(store, plan, context);
}

/**
 * Completes the experiment when every environment run is stored, exactly once: the worker that gets the
 * experiment's advisory lock (`store.evaluations.finishOnce`: held by a transaction, so a killed worker's goes
 * with its connection) assembles and stores the document unless the experiment has ended already; the others
 * return.
 */
export async function completeWhenDone(
  store: Store,
  plan: StoredExperimentPlan,
  context?: Pick<WorkerContext, "onEvent">,
): Promise<void> {
  const done = await finishedEnvironmentRows(store, plan.key);
  if (plan.tasks.some((t) => !done.has(t.environmentKey))) return;
  await store.evaluations.finishOnce(plan.experimentId, "experiment", async () => {
    await completeExperiment(store, plan, await finishedEnvironments(store, plan.key));
    context?.onEvent?.({ type: "completed", evaluation_id: plan.experimentId });
  });
}
