// `experiment run --queue`: the experiment stored as the runner stores it and one job per environment run
// queued for `dramaturg worker`s, then followed until a worker completes it (its document, as stored), or
// with --detach its id printed.
import { InputError, parseStoreLocation } from "../core/index.ts";
import type { ExperimentPerson, ExperimentResultDocument, Scenario } from "../experiments/index.ts";

export interface QueuedExperimentOptions {
  /** The store's location: a PostgreSQL server the workers reach. */
  store: string;
  model: string;
  modelSettings: { baseUrl?: string; apiKeyEnv?: string };
  judge: string;
  judgeSettings: { baseUrl?: string; apiKeyEnv?: string };
  scale: number;
  seed?: number;
  concurrency: number;
  population?: { people: readonly ExperimentPerson[] };
  detach?: boolean;
}

/** The refusal of a store that workers cannot reach, before anything is read or written. */
export function requireQueueLocation(location: string): void {
  if (parseStoreLocation(location).kind !== "postgres")
    throw new InputError(
      "--queue needs a PostgreSQL store that workers can reach: pass --db postgres://… (this store is local to this process)",
      { place: "--queue" },
    );
}

/** Queues the experiment and follows it to its id and document (or, detached, prints its id and returns undefined). */
export async function runQueuedExperiment(
  scenario: Scenario,
  { store: location, detach, ...options }: QueuedExperimentOptions,
): Promise<{ evaluation_id: string; document: ExperimentResultDocument } | undefined> {
  requireQueueLocation(location);
  const { checkQueueSettings, followTellingOfNoWorker } = await import("./queued-wait.ts");
  await checkQueueSettings();
  const [{ enqueueExperiment, followExperiment, EXPERIMENT_ENVIRONMENTS }, { openStore }] = await Promise.all(
    [import("../queue/index.ts"), import("../store/index.ts")],
  );
  const store = await openStore(location);
  try {
    const queued = await enqueueExperiment(scenario, { ...options, store, connectionString: location });
    if (detach) {
      process.stdout.write(`${queued.experimentId}\n`);
      return undefined;
    }
    process.stderr.write(
      `experiment ${queued.experimentId.slice(0, 8)}: ${queued.total} environment runs${queued.finished ? `, ${queued.finished} finished already` : ""}; queued ${queued.jobs} jobs, waiting for workers\n`,
    );
    let shown = queued.finished;
    const id = queued.experimentId;
    const waiting = { store, db: location, queue: EXPERIMENT_ENVIRONMENTS, id, what: `experiment ${id}` };
    const document = await followTellingOfNoWorker({ ...waiting, matching: [{ experiment_id: id }] }, () =>
      followExperiment(store, queued, {
        onProgress: (finished) => {
          if (finished > shown)
            process.stderr.write(`  ${finished}/${queued.total} environment runs stored\n`);
          shown = Math.max(shown, finished);
        },
      }),
    );
    return { evaluation_id: id, document };
  } finally {
    await store.close();
  }
}
