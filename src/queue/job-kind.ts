// What a worker knows of a kind of queued job: its pg-boss queue, the schema of its data, and how to run one.
// Each kind lives in a file of its own (persona-chunks.ts, …) and is listed once in job-kinds.ts; the worker
// and openQueue know the list, not the kinds.
import type { z } from "zod";
import type { JudgeSettings, Store } from "../engine/index.ts";
import type { Judge } from "../judge/index.ts";

/** What a job is run with: the worker's store and judge settings. */
export interface WorkerContext {
  store: Store;
  /** The store's PostgreSQL connection string, where the queue is. */
  connectionString: string;
  /** Judge calls in flight at once in this worker. */
  concurrency: number;
  /**
   * The judge a job uses, held to the worker's `concurrency` together with every other job it runs at once
   * (a worker takes a second job while its first finishes, so its calls do not dip between jobs).
   */
  withWorkerSlots(judge: Judge): Judge;
  /**
   * Settings of the judges the worker builds (API key variable, timeout, retries, the rate limit shared by
   * every worker through the store: give them to prepareJudge as they are); the base URL defaults to the
   * evaluation's.
   */
  judgeSettings?: JudgeSettings;
  /** Read and write the store's verdict cache. */
  cache?: boolean;
  onEvent?: (event: WorkerEvent) => void;
}

export type WorkerEvent =
  | { type: "chunk"; evaluation_id: string; first: number; count: number }
  | { type: "completed"; evaluation_id: string };

export interface QueuedJobKind<D> {
  /** The name `dramaturg worker --kinds` takes. */
  readonly name: string;
  /** The pg-boss queue its jobs go to. */
  readonly queue: string;
  /** A job's data, validated when a worker takes it. */
  readonly data: z.ZodType<D>;
  /** Runs one job (`job.id`: pg-boss's, the same on each attempt); a job that throws is retried (see `retryLimit`). */
  run(data: D, context: WorkerContext, job: { id: string }): Promise<void>;
  /** After the job's last attempt threw: ends what it belongs to (an evaluation `failed`), so nothing waits for ever. */
  failed?(data: D, error: unknown, context: WorkerContext, job: { id: string }): Promise<void>;
  /** Attempts after a job's first that threw. */
  readonly retryLimit: number;
  /** Jobs of one group (pg-boss's `group.id`) run at once, across every worker; default no limit. */
  readonly groupConcurrency?: number;
  /**
   * Jobs of the kind one worker runs at once: 2 (the default) keeps its judge calls busy while one job ends
   * and the next is fetched; 1 runs them one after another, fetched two at a time.
   */
  readonly jobsAtOnce?: 1 | 2;
}
