// A queue worker: takes jobs of the kinds it was given (job-kinds.ts: chunks of persona evaluations, …) from
// the store's PostgreSQL, each kind's from its own pg-boss queue, and runs them until stopped; stopping drains
// it (no new jobs, those in hand finish). A job that throws is retried by the queue; after its last attempt
// its kind ends what it belongs to (an evaluation `failed`, with the reason).
import type { PgBoss } from "pg-boss";
import { InputError } from "../core/index.ts";
import { DEFAULT_CONCURRENCY, type JudgeSettings, openStore, type Store } from "../engine/index.ts";
import { type RateLimit, Semaphore } from "../judge/index.ts";
import { withSharedRateLimit } from "../rate-limit/index.ts";
import { openQueue, requireQueueStore } from "./boss.ts";
import type { WorkerContext, WorkerEvent } from "./job-kind.ts";
import { jobKindsNamed } from "./job-kinds.ts";
import { ONLINE_TICKS } from "./queues.ts";

export type { WorkerEvent } from "./job-kind.ts";

export interface WorkerOptions {
  /**
   * A PostgreSQL store: its location (postgres://…), opened here and closed when the worker stops, or an
   * open store with its `connectionString`. The queue lives beside it.
   */
  store: Store | string;
  connectionString?: string;
  /** Judge calls in flight at once in this worker. Default 16. */
  concurrency?: number;
  /** The kinds of job this worker takes (`persona`, …). Default every kind. */
  kinds?: readonly string[];
  /** Settings of the judges this worker builds (API key variable, timeout, retries); the base URL defaults to the evaluation's. */
  judgeSettings?: JudgeSettings;
  /**
   * The judges' rate limit (else `judgeSettings.rateLimit`), held across every worker of the store together:
   * kept in its PostgreSQL (`judge_rate_limits`) per provider, model and API key.
   */
  rateLimit?: RateLimit;
  /** Read and write the store's verdict cache (live judges). Default true. */
  cache?: boolean;
  /** How often an idle worker looks for jobs, in seconds (≥ 0.5), besides being woken by new jobs. Default 0.5. */
  pollingIntervalSeconds?: number;
  /** Told about each job finished, and each evaluation this worker completed. */
  onEvent?: (event: WorkerEvent) => void;
}

export interface RunningWorker {
  /** Drains: takes no new jobs, lets the jobs in hand finish, then stops. */
  stop(): Promise<void>;
}

/** Starts a worker on the store's queue; it runs until stopped. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const owned = typeof options.store === "string";
  const connectionString = typeof options.store === "string" ? options.store : options.connectionString;
  if (!connectionString)
    throw new InputError("a worker given an open store needs its connectionString (postgres://…)", {
      place: "connectionString",
    });
  const kinds = jobKindsNamed(options.kinds);
  const store = typeof options.store === "string" ? await openStore(options.store) : options.store;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const slots = new Semaphore(concurrency);
  const context: WorkerContext = {
    store,
    connectionString,
    concurrency,
    withWorkerSlots: (judge) => ({
      descriptor: judge.descriptor,
      inFlightLimit: judge.inFlightLimit,
      async judge(request, callOptions) {
        const release = await slots.acquire(callOptions?.signal);
        try {
          return await judge.judge(request, callOptions);
        } finally {
          release();
        }
      },
    }),
    judgeSettings:
      store.dialect === "postgres"
        ? withSharedRateLimit(options.judgeSettings, options.rateLimit, requireQueueStore(store))
        : options.judgeSettings,
    cache: options.cache,
    onEvent: options.onEvent,
  };
  let boss: PgBoss;
  try {
    boss = await openQueue(store, connectionString, {
      supervise: true,
      // A worker of online rules also sends their runs when their schedules come due.
      schedule: kinds.some((kind) => kind.queue === ONLINE_TICKS),
    });
    for (const kind of kinds)
      await boss.work(
        kind.queue,
        // Two jobs at once, each fetched on its own: while one finishes its last calls (and the next is
        // fetched), the other keeps the worker's call slots busy. A kind that runs one at a time takes them two
        // a fetch, fetched again at once while they come two by two. An idle worker is woken by NOTIFY.
        {
          ...((kind.jobsAtOnce ?? 2) === 2
            ? { localConcurrency: 2, batchSize: 1 }
            : { batchSize: 2, burstWhenBatchFull: true }),
          ...(kind.groupConcurrency ? { groupConcurrency: kind.groupConcurrency } : {}),
          pollingIntervalSeconds: options.pollingIntervalSeconds ?? 0.5,
        },
        async (jobs) => {
          for (const job of jobs) {
            const data = kind.data.parse(job.data);
            try {
              await kind.run(data, context, { id: job.id });
            } catch (error) {
              if (job.retryCount >= kind.retryLimit)
                await kind.failed?.(data, error, context, { id: job.id });
              throw error;
            }
          }
        },
      );
  } catch (error) {
    if (owned) await store.close();
    throw error;
  }
  return {
    async stop() {
      await boss.stop({ graceful: true, close: true, timeout: 24 * 3600 * 1000 });
      if (owned) await store.close();
    },
  };
}
