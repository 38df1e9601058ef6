// Queuing an evaluation: it is prepared and stored exactly as an in-process run stores it (the evaluation row
// with its input, the kind's rows), then its planned judge calls go to the kind's queue in chunks. The
// evaluation stays `pending` until a worker takes its first job; workers judge it, one of them completes it.
// How far a queued evaluation has got is read from the store (`queuedProgress`), by `show`, `runs` and a follower.
import { setTimeout as sleep } from "node:timers/promises";
import { StoreError, type TokenUsage } from "../core/index.ts";
import { type EvaluationOfKind, type EvaluationRow, planSize, type Store } from "../engine/index.ts";
import type { JudgeDescriptor } from "../judge/index.ts";
import { type EvalResult, type PreparedPersonaEvaluation, personaEvaluation } from "../personas/index.ts";
import { type PreparedSessionAnalysis, type SessionsAnalysis, sessionEvaluation } from "../sessions/index.ts";
import { withQueue } from "./boss.ts";
import { CALLS_PER_JOB, chunksOf, jobsTotals, PERSONA_CHUNKS, SESSION_CHUNKS } from "./jobs.ts";

export interface EnqueueOptions {
  store: Store;
  /** The store's PostgreSQL connection string (its location), where the queue is. */
  connectionString: string;
  /** The judge the workers will use (the evaluation's spec is in its configuration). */
  judge: JudgeDescriptor;
  /** Planned calls per job. Default {@link CALLS_PER_JOB}. */
  callsPerJob?: number;
}

/** What a queued evaluation keeps in its configuration: its size, for progress before it completes. */
interface QueuedSize {
  /** Planned verdicts (judged and trivial) and the jobs they were queued as. */
  planned: number;
  jobs: number;
}

/** Stores an evaluation of any chunked kind and queues its judge calls on `queue`. */
async function enqueueEvaluation<M, R>(
  evaluation: EvaluationOfKind<M, R>,
  queue: string,
  { store, connectionString, callsPerJob = CALLS_PER_JOB }: Omit<EnqueueOptions, "judge">,
): Promise<{ evaluationId: string; jobs: number }> {
  return withQueue(store, connectionString, async (boss) => {
    const size = planSize(evaluation.plan);
    const described = evaluation.describe();
    const chunks = chunksOf("", size.calls, callsPerJob);
    const queued: QueuedSize = { planned: size.items + size.trivial, jobs: chunks.length };
    const row = await store.evaluations.create({
      kind: evaluation.kind,
      ...described,
      config: { ...described.config, queued },
    });
    await evaluation.begin(store, row.id);
    await boss.insert(
      queue,
      chunks.map((chunk) => ({ data: { ...chunk, evaluation_id: row.id } })),
    );
    return { evaluationId: row.id, jobs: chunks.length };
  });
}

/** Stores a prepared persona evaluation and queues its judge calls; returns its id and how many jobs it made. */
export function enqueuePersonaEvaluation(
  prepared: PreparedPersonaEvaluation,
  { baseline, ...options }: EnqueueOptions & { baseline?: boolean },
): Promise<{ evaluationId: string; jobs: number }> {
  return enqueueEvaluation(
    personaEvaluation({ ...prepared, judge: options.judge, baseline }),
    PERSONA_CHUNKS,
    options,
  );
}

/** Stores prepared sessions as an analysis judged by `judge` (`judgeSpec` as the user named it) and queues its judge calls. */
export function enqueueSessionAnalysis(
  prepared: PreparedSessionAnalysis,
  { judgeSpec, ccmThreshold, ...options }: EnqueueOptions & { judgeSpec: string; ccmThreshold?: number },
): Promise<{ evaluationId: string; jobs: number }> {
  return enqueueEvaluation(
    sessionEvaluation({ ...prepared, judge: options.judge, judgeSpec, ccmThreshold }),
    SESSION_CHUNKS,
    options,
  );
}

/** How far an evaluation that has not ended has got. */
export interface QueuedProgress {
  evaluation_id: string;
  kind: EvaluationRow["kind"];
  status: "pending" | "running";
  created_at: string;
  started_at: string | null;
  /** Verdicts stored (errored ones included), and planned: null when it was not queued (an in-process run). */
  stored: number;
  errored: number;
  planned: number | null;
  /** Its jobs, and those finished: null when it was not queued. */
  jobs: number | null;
  jobs_done: number | null;
  /** Spent by its finished jobs so far. */
  token_usage: TokenUsage | null;
}

/** The progress of a pending or running evaluation (undefined for one that ended, or none). */
export async function queuedProgress(store: Store, row: EvaluationRow): Promise<QueuedProgress | undefined> {
  if (row.status !== "pending" && row.status !== "running") return undefined;
  const summary = await store.scores.summary(row.id);
  const size = (row.config as { queued?: Partial<QueuedSize> }).queued;
  const queued = typeof size?.planned === "number" && typeof size.jobs === "number" ? size : undefined;
  const done = queued && store.db ? await jobsTotals(store, row.id) : undefined;
  return {
    evaluation_id: row.id,
    kind: row.kind,
    status: row.status,
    created_at: row.created_at,
    started_at: row.started_at,
    stored: summary.ok + summary.errored + summary.trivial,
    errored: summary.errored,
    planned: queued?.planned ?? null,
    jobs: queued?.jobs ?? null,
    jobs_done: done?.jobs ?? null,
    token_usage: done?.totals.token_usage ?? null,
  };
}

/** Waits until the queued evaluation completes (its result) or fails (throws its error). */
export async function followEvaluation<R = EvalResult | SessionsAnalysis>(
  store: Store,
  evaluationId: string,
  { intervalMs = 250, onProgress }: { intervalMs?: number; onProgress?: (stored: number) => void } = {},
): Promise<R> {
  for (;;) {
    const row = await store.evaluations.get(evaluationId);
    if (!row) throw new StoreError(`evaluation ${evaluationId} does not exist`);
    if (row.status === "completed") return (await store.evaluations.result(evaluationId)) as R;
    if (row.status === "failed" || row.status === "interrupted")
      throw new StoreError(`evaluation ${evaluationId} ${row.status}${row.error ? `: ${row.error}` : ""}`);
    if (onProgress) {
      const summary = await store.scores.summary(evaluationId);
      onProgress(Object.values(summary).reduce((a, b) => a + b, 0));
    }
    await sleep(intervalMs);
  }
}
