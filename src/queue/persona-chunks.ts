// Chunks of a queued persona evaluation: a worker rebuilds the evaluation's plan from the store, judges the
// chunk's calls with the engine (executePlan, through the verdict cache), writes the verdicts idempotently
// (one row per evaluation and verdict key), and completes the evaluation once all of its verdicts are stored,
// exactly once across workers: under a transaction-scoped advisory lock, by the engine's resume (which judges
// nothing then: it reads the verdicts back, aggregates and completes).
import { DEFAULT_CONCURRENCY, executePlan, type JudgePlan, planSize, prepareJudge } from "../engine/index.ts";
import {
  personaEvaluation,
  runPreparedPersonaEvaluation,
  storedPersonaEvaluation,
} from "../scorers/index.ts";
import type { QueuedJobKind, WorkerContext } from "./job-kind.ts";
import { type ChunkJob, ChunkJobSchema, PERSONA_CHUNKS } from "./jobs.ts";
import { failQueuedEvaluation } from "./queued-evaluation.ts";

/**
 * Attempts after a chunk's first that threw (a store or a bug, not a judge: a judge's failures are errored
 * verdicts, written like the others). The last one fails the evaluation, so that nothing waits for ever.
 */
export const CHUNK_RETRY_LIMIT = 3;

export const personaChunks: QueuedJobKind<ChunkJob> = {
  name: "persona",
  queue: PERSONA_CHUNKS,
  data: ChunkJobSchema,
  retryLimit: CHUNK_RETRY_LIMIT,
  run: runChunk,
  failed: (job, error, { store }) =>
    failQueuedEvaluation(
      store,
      job.evaluation_id,
      `a queued chunk failed ${CHUNK_RETRY_LIMIT + 1} times`,
      error,
    ),
};

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
async function runChunk(job: ChunkJob, context: WorkerContext): Promise<void> {
  const { store } = context;
  const row = await store.evaluations.get(job.evaluation_id);
  if (!row || row.status === "completed" || row.status === "failed") return;
  if (row.status === "pending") await store.evaluations.start(row.id).catch(() => {});
  const { prepared, config } = await storedPersonaEvaluation(store, row);
  const concurrency = context.concurrency ?? DEFAULT_CONCURRENCY;
  const judgeSettings = {
    ...context.judgeSettings,
    baseUrl: context.judgeSettings?.baseUrl ?? config.judge_base_url,
  };
  const ready = prepareJudge(config.judge, judgeSettings, {
    store,
    isNew: false,
    cache: context.cache,
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
  context.onEvent?.({ type: "chunk", evaluation_id: row.id, first: job.first, count: job.count });
  await completeWhenDone(job.evaluation_id, context);
}

/**
 * Completes the evaluation when every planned verdict is stored, exactly once: the worker that gets the
 * evaluation's advisory lock (held by its transaction, so a killed worker's goes with its connection)
 * completes it unless it is completed already; the others return (the lock's holder completes it). A worker
 * killed while completing leaves its job to expire; the worker that retries it completes the evaluation.
 */
async function completeWhenDone(evaluationId: string, context: WorkerContext): Promise<void> {
  const { store } = context;
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
        ...context.judgeSettings,
        baseUrl: context.judgeSettings?.baseUrl ?? config.judge_base_url,
      },
      store,
      cache: context.cache,
      concurrency: context.concurrency,
      resume: evaluationId,
    });
    context.onEvent?.({ type: "completed", evaluation_id: evaluationId });
  });
}
