// A queue worker: takes chunks of queued persona evaluations, rebuilds each evaluation's plan from the
// store, judges the chunk's calls with the engine (executePlan, through the verdict cache), writes the
// verdicts idempotently (one row per evaluation and verdict key), and completes an evaluation once all of
// its verdicts are stored, exactly once across workers: under a transaction-scoped advisory lock, by the
// engine's resume (which judges nothing then: it reads the verdicts back, aggregates and completes).
import type { PgBoss } from "pg-boss";
import { InputError } from "../core/index.ts";
import {
  DEFAULT_CONCURRENCY,
  executePlan,
  type JudgePlan,
  type JudgeSettings,
  openStore,
  planSize,
  prepareJudge,
  type Store,
} from "../engine/index.ts";
import {
  personaEvaluation,
  runPreparedPersonaEvaluation,
  storedPersonaEvaluation,
} from "../scorers/index.ts";
import { CHUNK_RETRY_LIMIT, openQueue } from "./boss.ts";
import { type ChunkJob, ChunkJobSchema, PERSONA_CHUNKS } from "./jobs.ts";

export interface WorkerOptions {
  /**
   * A PostgreSQL store: its location (postgres://…), opened here and closed when the worker stops, or an
   * open store with its `connectionString`. The queue lives beside it.
   */
  store: Store | string;
  connectionString?: string;
  /** Judge calls in flight at once in this worker. Default 16. */
  concurrency?: number;
  /** Settings of the judges this worker builds (API key variable, timeout, retries); the base URL defaults to the evaluation's. */
  judgeSettings?: JudgeSettings;
  /** Read and write the store's verdict cache (live judges). Default true. */
  cache?: boolean;
  /** How often an idle worker looks for jobs, in seconds (≥ 0.5), besides being woken by new jobs. Default 0.5. */
  pollingIntervalSeconds?: number;
  /** Told about each job finished, and each evaluation this worker completed. */
  onEvent?: (event: WorkerEvent) => void;
}

export type WorkerEvent =
  | { type: "chunk"; evaluation_id: string; first: number; count: number }
  | { type: "completed"; evaluation_id: string };

export interface RunningWorker {
  /** Drains: takes no new jobs, lets the jobs in hand finish, then stops. */
  stop(): Promise<void>;
}

/** Starts a worker on the store's queue; it runs until stopped. */
export async function startWorker(options: Working): Promise<RunningWorker> {
  const owned = typeof options.store === "string";
  const connectionString = typeof options.store === "string" ? options.store : options.connectionString;
  if (!connectionString)
    throw new InputError("a worker given an open store needs its connectionString (postgres://…)", {
      place: "connectionString",
    });
  const store = typeof options.store === "string" ? await openStore(options.store) : options.store;
  const working: Working = { ...options, store };
  let boss: PgBoss;
  try {
    boss = await openQueue(store, connectionString, { supervise: true });
    await boss.work<ChunkJob>(
      PERSONA_CHUNKS,
      // Two jobs a fetch, fetched again at once while they come two by two: a worker goes from job to job
      // without waiting a polling interval; an idle one is woken by the queue's NOTIFY.
      {
        batchSize: 2,
        burstWhenBatchFull: true,
        pollingIntervalSeconds: options.pollingIntervalSeconds ?? 0.5,
      },
      async (jobs) => {
        for (const job of jobs) {
          const chunk = ChunkJobSchema.parse(job.data);
          try {
            await runChunk(chunk, working);
          } catch (error) {
            // The queue retries the job; after its last attempt the evaluation fails with the reason,
            // so that `eval --queue` and `show` say so instead of waiting on a job nobody will run.
            if (job.retryCount >= CHUNK_RETRY_LIMIT) await failEvaluation(chunk.evaluation_id, error, store);
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

type Working = Omit<WorkerOptions, "store"> & { store: Store };

/** The calls `first … first + count - 1` of a plan (and its trivial verdicts when `trivial`). */
function chunkOf<M>(plan: JudgePlan<M>, job: ChunkJob): JudgePlan<M> {
  return {
    *calls() {
      let index = 0;
      for (const call of plan.calls()) {
        if (index >= job.first + job.count) return;
        if (index++ >= job.first) yield call;
      }
    },
    trivial: () => (job.trivial ? plan.trivial() : []),
  };
}

/** Judges one chunk: only its verdicts not stored yet (a job run again writes nothing twice). */
async function runChunk(job: ChunkJob, options: Working): Promise<void> {
  const { store } = options;
  const row = await store.evaluations.get(job.evaluation_id);
  if (!row || row.status === "completed" || row.status === "failed") return;
  if (row.status === "pending") await store.evaluations.start(row.id).catch(() => {});
  const { prepared, config } = await storedPersonaEvaluation(store, row);
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const judgeSettings = {
    ...options.judgeSettings,
    baseUrl: options.judgeSettings?.baseUrl ?? config.judge_base_url,
  };
  const ready = prepareJudge(config.judge, judgeSettings, {
    store,
    isNew: false,
    cache: options.cache,
    mode: config.mode,
    concurrency,
  });
  try {
    const evaluation = personaEvaluation({ ...prepared, judge: ready.judge.descriptor });
    // The runs' ids, which the score rows name.
    await evaluation.reopen(store, row.id);
    const skip = await store.scores.existingKeys(row.id);
    const writer = store.scores.writer({ flushIntervalMs: 0 });
    try {
      await executePlan(chunkOf(evaluation.plan, job), {
        judge: ready.judge,
        concurrency,
        skip,
        prefetch: ready.cache?.prefetch ? (requests) => ready.cache!.prefetch(requests) : undefined,
        onVerdicts: (verdicts, { calls }) =>
          writer.write(
            verdicts.map((v) => evaluation.scoreRow(v, row.id)),
            { durable: calls > 0 },
          ),
      });
    } finally {
      await writer.close();
    }
  } finally {
    await ready.close();
  }
  options.onEvent?.({ type: "chunk", evaluation_id: row.id, first: job.first, count: job.count });
  await completeWhenDone(job.evaluation_id, options);
}

/**
 * Completes the evaluation when every planned verdict is stored, exactly once: the worker that gets the
 * evaluation's advisory lock (held by its transaction, so a killed worker's goes with its connection)
 * completes it unless it is completed already; the others return (the lock's holder completes it). A worker
 * killed while completing leaves its job to expire; the worker that retries it completes the evaluation.
 */
async function completeWhenDone(evaluationId: string, options: Working): Promise<void> {
  const { store } = options;
  const db = store.db!;
  const row = await store.evaluations.get(evaluationId);
  if (!row || row.status === "completed") return;
  const { prepared, config } = await storedPersonaEvaluation(store, row);
  const size = planSize(prepared.plan);
  const stored = await store.scores.summary(evaluationId);
  if (Object.values(stored).reduce((a, b) => a + b, 0) < size.items + size.trivial) return;
  await db.transaction(async (tx) => {
    const locked = await tx.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_xact_lock(hashtext('dramaturg:evaluation:' || $1)) AS locked",
      [evaluationId],
    );
    if (!locked.rows[0]?.locked) return;
    const now = await tx.query<{ status: string }>("SELECT status FROM evaluations WHERE id = $1", [
      evaluationId,
    ]);
    if (now.rows[0]?.status !== "running" && now.rows[0]?.status !== "pending") return;
    await runPreparedPersonaEvaluation(prepared, {
      judge: config.judge,
      judgeSettings: {
        ...options.judgeSettings,
        baseUrl: options.judgeSettings?.baseUrl ?? config.judge_base_url,
      },
      store,
      cache: options.cache,
      concurrency: options.concurrency,
      resume: evaluationId,
    });
    options.onEvent?.({ type: "completed", evaluation_id: evaluationId });
  });
}

/** Marks a queued evaluation failed with the error of its chunk's last attempt, unless it ended already. */
async function failEvaluation(evaluationId: string, error: unknown, store: Store): Promise<void> {
  const row = await store.evaluations.get(evaluationId);
  if (!row || row.status === "completed" || row.status === "failed") return;
  const message = error instanceof Error ? error.message : String(error);
  await store.evaluations.fail(
    evaluationId,
    `a queued chunk failed ${CHUNK_RETRY_LIMIT + 1} times: ${message}`,
  );
}
