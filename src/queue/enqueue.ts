// Queuing a persona evaluation: it is prepared and stored exactly as an in-process run stores it (the
// evaluation row with its input, its runs), then its planned judge calls go to the queue in chunks. The
// evaluation stays `pending` until a worker takes its first job; workers judge it, one of them completes it.
import { setTimeout as sleep } from "node:timers/promises";
import { StoreError } from "../core/index.ts";
import { planSize, type Store } from "../engine/index.ts";
import type { JudgeDescriptor } from "../judge/index.ts";
import { type EvalResult, type PreparedPersonaEvaluation, personaEvaluation } from "../scorers/index.ts";
import { openQueue } from "./boss.ts";
import { CALLS_PER_JOB, chunksOf, PERSONA_CHUNKS } from "./jobs.ts";

export interface EnqueueOptions {
  store: Store;
  /** The store's PostgreSQL connection string (its location), where the queue is. */
  connectionString: string;
  /** The judge the workers will use (the evaluation's spec is in its configuration). */
  judge: JudgeDescriptor;
  baseline?: boolean;
  /** Planned calls per job. Default {@link CALLS_PER_JOB}. */
  callsPerJob?: number;
}

/** Stores a prepared persona evaluation and queues its judge calls; returns its id and how many jobs it made. */
export async function enqueuePersonaEvaluation(
  prepared: PreparedPersonaEvaluation,
  { store, connectionString, judge, baseline, callsPerJob = CALLS_PER_JOB }: EnqueueOptions,
): Promise<{ evaluationId: string; jobs: number }> {
  const boss = await openQueue(store, connectionString);
  try {
    const evaluation = personaEvaluation({ ...prepared, judge, baseline });
    const row = await store.evaluations.create({ kind: evaluation.kind, ...evaluation.describe() });
    await evaluation.begin(store, row.id);
    const jobs = chunksOf(row.id, planSize(evaluation.plan).calls, callsPerJob);
    await boss.insert(
      PERSONA_CHUNKS,
      jobs.map((data) => ({ data })),
    );
    return { evaluationId: row.id, jobs: jobs.length };
  } finally {
    await boss.stop({ graceful: false, close: true });
  }
}

/** Waits until the queued evaluation completes (its result) or fails (throws its error). */
export async function followEvaluation(
  store: Store,
  evaluationId: string,
  { intervalMs = 250, onProgress }: { intervalMs?: number; onProgress?: (stored: number) => void } = {},
): Promise<EvalResult> {
  for (;;) {
    const row = await store.evaluations.get(evaluationId);
    if (!row) throw new StoreError(`evaluation ${evaluationId} does not exist`);
    if (row.status === "completed") return (await store.evaluations.result(evaluationId)) as EvalResult;
    if (row.status === "failed" || row.status === "interrupted")
      throw new StoreError(`evaluation ${evaluationId} ${row.status}${row.error ? `: ${row.error}` : ""}`);
    if (onProgress) {
      const summary = await store.scores.summary(evaluationId);
      onProgress(Object.values(summary).reduce((a, b) => a + b, 0));
    }
    await sleep(intervalMs);
  }
}
