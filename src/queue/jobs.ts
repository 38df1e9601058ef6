// The jobs of a queued evaluation, whatever its kind: a chunk of its planned judge calls, named by the
// evaluation and the calls' indexes in its plan (the plan is rebuilt from the stored evaluation; no text
// travels in a job). A worker judges a chunk with the engine (executePlan, through the verdict cache), writes
// its verdicts idempotently (one row per evaluation and verdict key) and its figures to `queued_job_totals`;
// the worker that stores an evaluation's last verdict completes it, exactly once across workers: under a
// transaction-scoped advisory lock, by the engine's resume (which judges nothing then: it reads the verdicts
// back, aggregates and completes), reporting what the jobs spent rather than what that resume did.
import { z } from "zod";
import { addUsage, verdictKeyString, ZERO_USAGE } from "../core/index.ts";
import {
  DEFAULT_CONCURRENCY,
  type EngineTotals,
  type EvaluationOfKind,
  type EvaluationRow,
  executedTotals,
  executePlan,
  type JudgePlan,
  type PlannedCall,
  type PlannedTrivial,
  planSize,
  prepareJudge,
  runEvaluation,
  type Store,
} from "../engine/index.ts";
import type { JudgeDescriptor } from "../judge/index.ts";
import type { QueuedJobKind, WorkerContext } from "./job-kind.ts";
import { failQueuedEvaluation } from "./queued-evaluation.ts";
import { CHUNK_RETRY_LIMIT, PERSONA_CHUNKS, SESSION_CHUNKS } from "./queues.ts";

export { CHUNK_RETRY_LIMIT, PERSONA_CHUNKS, SESSION_CHUNKS };

/**
 * Planned judge calls a job holds: enough that the queue's own cost (a fetch, a completion, the chunk's
 * stored keys) is small beside them. A worker judges a job at its concurrency and then takes the next, so a
 * job's last round runs below it unless the concurrency divides the job: 96 is a multiple of every usual one
 * (2, 3, 4, 6, 8, 12, 16, 24, 32, 48). With 100, three workers of 8 took 1.26× the ideal wall time; see
 * bench/RESULTS.md.
 */
export const CALLS_PER_JOB = 96;

export const ChunkJobSchema = z.object({
  /** The stored evaluation. */
  evaluation_id: z.string().uuid(),
  /** The first planned call (index in the plan's calls, in plan order) and how many follow it. */
  first: z.number().int().min(0),
  count: z.number().int().min(0),
  /** This job also gives the plan's trivial verdicts (the first job of an evaluation). */
  trivial: z.boolean(),
});
export type ChunkJob = z.infer<typeof ChunkJobSchema>;

/** The chunks of a plan of `calls` planned calls: at least one, so that an evaluation without calls completes too. */
export function chunksOf(evaluationId: string, calls: number, size = CALLS_PER_JOB): ChunkJob[] {
  const jobs: ChunkJob[] = [];
  for (let first = 0; first < Math.max(calls, 1); first += size)
    jobs.push({
      evaluation_id: evaluationId,
      first,
      count: Math.min(size, calls - first),
      trivial: first === 0,
    });
  return jobs;
}

/** A job's key in `queued_job_totals`: the calls it holds. */
export function chunkKey(job: ChunkJob): string {
  return `${job.first}:${job.count}`;
}

/** A stored evaluation of a kind as a worker rebuilds it: how to make the kind's evaluation, and its judge. */
export interface QueuedEvaluation<M, R> {
  /** A new evaluation object of the kind, judged by `judge` (one serves one use: the chunks' rows, or the completion). */
  evaluation(judge: JudgeDescriptor): EvaluationOfKind<M, R>;
  /** The plan, the same as every evaluation object's. */
  plan: JudgePlan<M>;
  /** The judge it was stored with (a spec), where it is reached, and how it judges. */
  judge: string;
  judgeBaseUrl?: string;
  mode: "individual" | "batch";
}

/** A kind of evaluation whose judge calls are queued in chunks. */
export interface ChunkedEvaluationKind<M, R> {
  /** The name `dramaturg worker --kinds` takes. */
  name: string;
  /** Its pg-boss queue. */
  queue: string;
  /** Rebuilds a stored evaluation of the kind from its row and the input kept with it. */
  rebuild(store: Store, row: EvaluationRow): Promise<QueuedEvaluation<M, R>>;
}

/** The queued job kind of a chunked evaluation kind: its chunks judged, its last one completing it. */
export function chunkJobKind<M, R>(kind: ChunkedEvaluationKind<M, R>): QueuedJobKind<ChunkJob> {
  return {
    name: kind.name,
    queue: kind.queue,
    data: ChunkJobSchema,
    retryLimit: CHUNK_RETRY_LIMIT,
    run: (job, context) => runChunk(kind, job, context),
    failed: (job, error, { store }) =>
      failQueuedEvaluation(
        store,
        job.evaluation_id,
        `a queued chunk failed ${CHUNK_RETRY_LIMIT + 1} times`,
        error,
      ),
  };
}

/**
 * What a worker keeps of an evaluation between its jobs: rebuilding it from the store (reading its input,
 * hashing, planning) costs more than judging a chunk with a fast judge. The plan's calls are drawn once,
 * forward: a worker takes an evaluation's chunks in plan order, so the next chunk continues where the last
 * one stopped instead of walking the plan from its start.
 */
interface KeptEvaluation<M, R> {
  queued: QueuedEvaluation<M, R>;
  /** The evaluation object whose score rows the chunks write, its rows reopened (its runs' ids known). */
  rows?: EvaluationOfKind<M, R>;
  /** Planned verdicts, judged and trivial: stored all, the evaluation is ready to complete. */
  planned?: number;
  /** The plan's calls drawn up to `next` (an index in plan order); absent while a chunk draws from it. */
  cursor?: { next: number; calls: Iterator<PlannedCall<M>> };
}

/** Evaluations kept per worker store: a few are in progress at once; the oldest is dropped beyond that. */
const KEPT_EVALUATIONS = 8;
const kept = new WeakMap<Store, Map<string, KeptEvaluation<unknown, unknown>>>();

async function keptEvaluation<M, R>(
  kind: ChunkedEvaluationKind<M, R>,
  store: Store,
  row: EvaluationRow,
): Promise<KeptEvaluation<M, R>> {
  let byId = kept.get(store);
  if (!byId) kept.set(store, (byId = new Map()));
  const found = byId.get(row.id) as KeptEvaluation<M, R> | undefined;
  if (found) {
    // The most recently used last.
    byId.delete(row.id);
    byId.set(row.id, found as KeptEvaluation<unknown, unknown>);
    return found;
  }
  const made: KeptEvaluation<M, R> = { queued: await kind.rebuild(store, row) };
  byId.set(row.id, made as KeptEvaluation<unknown, unknown>);
  if (byId.size > KEPT_EVALUATIONS) byId.delete(byId.keys().next().value!);
  return made;
}

/** The plan's calls `first … first + count - 1`, drawn from the kept cursor when it is not past `first`. */
function chunkCalls<M>(entry: KeptEvaluation<M, unknown>, first: number, count: number): PlannedCall<M>[] {
  let cursor = entry.cursor;
  entry.cursor = undefined;
  if (!cursor || cursor.next > first)
    cursor = { next: 0, calls: entry.queued.plan.calls()[Symbol.iterator]() };
  const calls: PlannedCall<M>[] = [];
  while (cursor.next < first + count) {
    const next = cursor.calls.next();
    if (next.done) break;
    if (cursor.next++ >= first) calls.push(next.value);
  }
  entry.cursor = cursor;
  return calls;
}

/** What a job spent, as the engine counts an invocation's: `queued_job_totals.totals`. */
export type JobTotals = Omit<EngineTotals, "resumed">;

function judgeSettingsOf(queued: QueuedEvaluation<unknown, unknown>, context: WorkerContext) {
  return { ...context.judgeSettings, baseUrl: context.judgeSettings?.baseUrl ?? queued.judgeBaseUrl };
}

/** Judges one chunk: only its verdicts not stored yet (a job run again writes nothing twice). */
async function runChunk<M, R>(
  kind: ChunkedEvaluationKind<M, R>,
  job: ChunkJob,
  context: WorkerContext,
): Promise<void> {
  const { store } = context;
  const row = await store.evaluations.get(job.evaluation_id);
  if (!row || row.status === "completed" || row.status === "failed") return;
  if (row.status === "pending") await store.evaluations.start(row.id).catch(() => {});
  const entry = await keptEvaluation(kind, store, row);
  const { queued } = entry;
  const concurrency = context.concurrency ?? DEFAULT_CONCURRENCY;
  const ready = prepareJudge(queued.judge, judgeSettingsOf(queued, context), {
    store,
    isNew: false,
    cache: context.cache,
    mode: queued.mode,
    concurrency,
  });
  let totals: JobTotals;
  try {
    if (!entry.rows) {
      const rows = queued.evaluation(ready.judge.descriptor);
      // The kind's rows' ids (the runs), which the score rows name.
      await rows.reopen(store, row.id);
      entry.rows = rows;
    }
    const evaluation = entry.rows;
    const calls = chunkCalls(entry, job.first, job.count);
    const trivial: PlannedTrivial<M>[] = job.trivial ? [...queued.plan.trivial()] : [];
    // Only the chunk's keys (errored ones are judged again).
    const skip = await store.scores.existingKeys(row.id, [
      ...calls.flatMap((call) => call.items.map((item) => verdictKeyString(item.key))),
      ...trivial.map((t) => verdictKeyString(t.item.key)),
    ]);
    const writer = store.scores.writer({ flushIntervalMs: 0 });
    let executed: Awaited<ReturnType<typeof executePlan<M>>>;
    try {
      executed = await executePlan(
        { calls: () => calls, trivial: () => trivial },
        {
          judge: context.withWorkerSlots(ready.judge),
          concurrency,
          skip,
          prefetch: ready.cache?.prefetch ? (requests) => ready.cache!.prefetch(requests) : undefined,
          onVerdicts: (verdicts, { calls: made }) =>
            writer.write(
              verdicts.map((v) => evaluation.scoreRow(v, row.id)),
              { durable: made > 0 },
            ),
        },
      );
    } finally {
      await writer.close();
    }
    totals = executedTotals(executed, ready.cache?.counters);
  } finally {
    await ready.close();
  }
  await store.queuedJobTotals.record(row.id, chunkKey(job), totals);
  context.onEvent?.({ type: "chunk", evaluation_id: row.id, first: job.first, count: job.count });
  await completeWhenDone(entry, row.id, context);
}

/** The sum of two invocations' figures; a cache in either is the sum's. Integers: the order does not matter. */
export function addTotals(a: JobTotals, b: JobTotals): JobTotals {
  const cache =
    a.cache || b.cache
      ? {
          hits: (a.cache?.hits ?? 0) + (b.cache?.hits ?? 0),
          misses: (a.cache?.misses ?? 0) + (b.cache?.misses ?? 0),
          served_requests: (a.cache?.served_requests ?? 0) + (b.cache?.served_requests ?? 0),
          saved_calls: (a.cache?.saved_calls ?? 0) + (b.cache?.saved_calls ?? 0),
          saved_tokens: addUsage(a.cache?.saved_tokens ?? ZERO_USAGE, b.cache?.saved_tokens ?? ZERO_USAGE),
        }
      : undefined;
  return {
    requests: a.requests + b.requests,
    calls: a.calls + b.calls,
    token_usage: addUsage(a.token_usage, b.token_usage),
    ...(cache ? { cache } : {}),
  };
}

const NOTHING: JobTotals = { requests: 0, calls: 0, token_usage: { ...ZERO_USAGE } };

/** What an evaluation's finished jobs spent together, summed in job order, and how many they are. */
export async function jobsTotals(
  store: Store,
  evaluationId: string,
): Promise<{ jobs: number; totals: JobTotals }> {
  const rows = (await store.queuedJobTotals.list(evaluationId)) as JobTotals[];
  return { jobs: rows.length, totals: rows.reduce(addTotals, NOTHING) };
}

/**
 * The evaluation as its completion runs it: every stored verdict was judged by its jobs, in this queued
 * invocation, so it is taken in as fresh (as an in-process run takes in what it judged), and the result
 * reports what the jobs spent, plus whatever the completion judged itself (an errored verdict asked again),
 * not a resume the user did not ask for.
 */
function queuedCompletion<M, R>(
  evaluation: EvaluationOfKind<M, R>,
  jobs: JobTotals,
  reported: (totals: JobTotals) => void,
): EvaluationOfKind<M, R> {
  return {
    kind: evaluation.kind,
    plan: evaluation.plan,
    describe: () => evaluation.describe(),
    begin: (store, id) => evaluation.begin(store, id),
    reopen: (store, id) => evaluation.reopen(store, id),
    scoreRow: (verdict, id) => evaluation.scoreRow(verdict, id),
    add: (verdicts) => evaluation.add(verdicts, { fresh: true }),
    finish: ({ totals: { resumed: _, ...own }, ...context }) => {
      const totals = addTotals(jobs, own);
      reported(totals);
      return evaluation.finish({ ...context, totals });
    },
    fail: (store, message) => evaluation.fail(store, message),
    interrupt: (store) => evaluation.interrupt(store),
  };
}

/**
 * Completes the evaluation when every planned verdict is stored, exactly once: the worker that gets the
 * evaluation's advisory lock (`store.evaluations.finishOnce`: held by a transaction, so a killed worker's goes
 * with its connection) completes it unless it is completed already; the others return (the lock's holder
 * completes it). A worker killed while completing leaves its job to expire; the worker that retries it
 * completes the evaluation.
 */
async function completeWhenDone<M, R>(
  entry: KeptEvaluation<M, R>,
  evaluationId: string,
  context: WorkerContext,
): Promise<void> {
  const { store } = context;
  const { queued } = entry;
  if (entry.planned === undefined) {
    const size = planSize(queued.plan);
    entry.planned = size.items + size.trivial;
  }
  const stored = await store.scores.summary(evaluationId);
  if (stored.ok + stored.errored + stored.trivial < entry.planned) return;
  await store.evaluations.finishOnce(evaluationId, "evaluation", async () => {
    const { totals: jobs } = await jobsTotals(store, evaluationId);
    const ready = prepareJudge(queued.judge, judgeSettingsOf(queued, context), {
      store,
      isNew: false,
      cache: context.cache,
      mode: queued.mode,
      concurrency: context.concurrency,
    });
    let totals: JobTotals = jobs;
    try {
      await runEvaluation({
        evaluation: queuedCompletion(queued.evaluation(ready.judge.descriptor), jobs, (sum) => {
          totals = sum;
        }),
        store,
        judge: ready.judge,
        cache: ready.cache,
        concurrency: context.concurrency,
        resume: evaluationId,
      });
    } finally {
      await ready.close();
    }
    // The engine kept the completion's own figures on the row; the evaluation's are its jobs'.
    await store.evaluations.setUsage(evaluationId, {
      token_usage: totals.token_usage,
      cache: totals.cache
        ? { hits: totals.cache.hits, misses: totals.cache.misses, saved_usage: totals.cache.saved_tokens }
        : null,
    });
    context.onEvent?.({ type: "completed", evaluation_id: evaluationId });
  });
}
