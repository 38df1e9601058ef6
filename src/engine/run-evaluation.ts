// The lifecycle every evaluation kind shares: create (or resume) the evaluation, judge its plan
// through the verdict cache with a concurrency limit, group-commit verdicts, let the kind aggregate,
// then complete or fail — and keep the result document with the evaluation.
import { writeFileSync } from "node:fs";
import {
  DramaturgError,
  InterruptedError,
  type TokenUsage,
  type Verdict,
  verdictKeyString,
} from "../core/index.ts";
import {
  type Judge,
  type JudgeRequest,
  type VerdictCacheCounters,
  verdictsToFixtures,
} from "../judge/index.ts";
import type { EvaluationKind, NewEvaluation, ScoreInput, ScoreRow, Store } from "../store/index.ts";
import { executePlan } from "./execute-plan.ts";
import { type JudgePlan, metaByKey, type PlannedVerdict, pendingCalls } from "./plan.ts";
import type { ProgressListener } from "./progress.ts";

/** What the engine adds up for every kind; the kind puts it in its result document. */
export interface EngineTotals {
  /** Judge requests made by this invocation, and the model calls behind them (retries, double checks). */
  requests: number;
  calls: number;
  token_usage: TokenUsage;
  cache?: { hits: number; misses: number; saved_calls: number; saved_tokens: TokenUsage };
  /** Present on a resume: verdicts read back from the store instead of judged again. */
  resumed?: { reused_verdicts: number };
}

export interface FinishContext<M> {
  store: Store;
  evaluationId: string;
  /** Every verdict of the evaluation: reused from the store on a resume, then judged now. */
  verdicts: PlannedVerdict<M>[];
  /** Only those judged by this invocation (token usage is spread over them). */
  fresh: PlannedVerdict<M>[];
  totals: EngineTotals;
}

/**
 * One evaluation of a kind, as the engine drives it. The kind owns its plan, its own rows (runs per
 * agent, per session…), how a verdict becomes a score row, and its aggregation and result document.
 */
export interface EvaluationOfKind<M, R> {
  readonly kind: EvaluationKind;
  readonly plan: JudgePlan<M>;
  /** The evaluation row of a new evaluation: source, configuration, hashes and the input to keep. */
  describe(): Omit<NewEvaluation, "kind">;
  /** Creates and starts the kind's own rows for a new evaluation. */
  begin(store: Store, evaluationId: string): Promise<void>;
  /** Finds and restarts them for an evaluation being resumed. */
  reopen(store: Store, evaluationId: string): Promise<void>;
  /** The stored form of a verdict. */
  scoreRow(verdict: PlannedVerdict<M>, evaluationId: string): ScoreInput;
  /** Aggregates, completes the kind's rows and builds the result document. */
  finish(context: FinishContext<M>): Promise<{ result: R; errored: number }>;
  /** Marks the kind's rows failed. */
  fail(store: Store, message: string): Promise<void>;
  /** Marks the kind's rows interrupted (their verdicts stay; a resume continues them). */
  interrupt(store: Store): Promise<void>;
}

/** The verdict cache in front of the judge, whose counters the result reports. */
export interface CacheInUse {
  readonly counters: VerdictCacheCounters;
  /** Looks every pending request's keys up in bulk, beside the run (see CachingJudge.prefetch). */
  prefetch?(requests: readonly JudgeRequest[]): Promise<void>;
}

export interface RunEvaluationOptions<M, R> {
  evaluation: EvaluationOfKind<M, R>;
  store: Store;
  judge: Judge;
  /** Judge calls in flight at once. Default 16. */
  concurrency?: number;
  /** Continue this stored evaluation (its id) instead of starting a new one. */
  resume?: string;
  cache?: CacheInUse;
  onProgress?: ProgressListener;
  /** Write every verdict in the judge-fixtures format here (a cassette to replay in CI). */
  record?: string;
  /**
   * Interrupts the evaluation (Ctrl-C): no new judge calls; those in flight get `graceMs` to answer and
   * are then aborted; what was judged is committed, the evaluation is marked interrupted, and the run
   * throws an {@link InterruptedError} saying how to resume it.
   */
  signal?: AbortSignal;
  /** How long calls in flight may finish after an interrupt. Default 3000 ms. */
  graceMs?: number;
}

export interface EvaluationRunResult<M, R> {
  evaluationId: string;
  result: R;
  verdicts: PlannedVerdict<M>[];
}

/** Runs (or resumes) one evaluation to completion; on failure the evaluation and its rows are marked failed. */
export async function runEvaluation<M, R>({
  evaluation,
  store,
  judge,
  concurrency = 16,
  resume,
  cache,
  onProgress,
  record,
  signal,
  graceMs = 3000,
}: RunEvaluationOptions<M, R>): Promise<EvaluationRunResult<M, R>> {
  const { plan } = evaluation;
  let evaluationId: string;
  let reused: PlannedVerdict<M>[] = [];
  if (resume) {
    evaluationId = resume;
    const byKey = metaByKey(plan);
    const stored = await store.scores.forEvaluation(evaluationId);
    // Errored verdicts are judged again; only answers are kept.
    reused = stored
      .filter((row) => row.status !== "errored" && byKey.has(row.verdict_key))
      .map((row) => ({ verdict: verdictFromRow(row), meta: byKey.get(row.verdict_key)! }));
    await store.evaluations.start(evaluationId);
    await evaluation.reopen(store, evaluationId);
  } else {
    const row = await store.evaluations.create({ kind: evaluation.kind, ...evaluation.describe() });
    evaluationId = row.id;
    await store.evaluations.start(evaluationId);
    await evaluation.begin(store, evaluationId);
  }

  // Group commit: each verdict is durable within one insert, so a kill loses at most the calls in flight.
  // A new evaluation's keys are all new: its batches skip the conflict check (a resume's do not).
  const writer = store.scores.writer({ flushIntervalMs: 0, newKeys: !resume });
  const skip = new Set(reused.map((v) => verdictKeyString(v.verdict.key)));
  const pending = pendingCalls(plan, skip);
  onProgress?.({
    type: "started",
    evaluation_id: evaluationId,
    total: pending.length,
    reused_verdicts: reused.length,
    resumed: resume !== undefined,
  });
  // Started once the evaluation and its rows exist, so that their rows are not queued behind the lookups.
  const prefetched = cache?.prefetch?.(pending.map((c) => c.request));
  // Awaited after the run: until then a failed lookup only means judge() looks its requests up itself.
  prefetched?.catch(() => undefined);
  const planned = plan.trivial.length + plan.calls.reduce((n, c) => n + c.request.items.length, 0);
  let stored = reused.length;
  // An interrupt stops new calls at once; calls in flight are aborted only once the grace is over.
  const inFlight = new AbortController();
  let grace: NodeJS.Timeout | undefined;
  const onInterrupt = () => {
    onProgress?.({ type: "interrupting", in_flight_grace_ms: graceMs });
    grace = setTimeout(() => inFlight.abort(signal?.reason), graceMs);
  };
  if (signal?.aborted) onInterrupt();
  else signal?.addEventListener("abort", onInterrupt, { once: true });
  let executed: Awaited<ReturnType<typeof executePlan<M>>> | undefined;
  let failure: unknown;
  try {
    executed = await executePlan(plan, {
      judge,
      concurrency,
      skip,
      pending,
      stop: signal,
      signal: inFlight.signal,
      // Answers that cost a model call are committed before the worker moves on: a kill then loses at
      // most the calls in flight. Cached and trivial answers need no such wait.
      onVerdicts: async (vs, { calls }) => {
        await writer.write(
          vs.map((v) => evaluation.scoreRow(v, evaluationId)),
          { durable: calls > 0 },
        );
        stored += vs.length;
      },
      onProgress: (done, total) => onProgress?.({ type: "judged", done, total }),
    });
    await writer.close();
    await prefetched;
  } catch (error) {
    failure = error;
    await writer.close().catch(() => {});
  } finally {
    clearTimeout(grace);
    signal?.removeEventListener("abort", onInterrupt);
  }
  // Interrupted before everything was judged: what was judged is committed; the rest awaits a resume.
  if (signal?.aborted && stored < planned) {
    await evaluation.interrupt(store).catch(() => {});
    await store.evaluations.interrupt(evaluationId).catch(() => {});
    onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "interrupted" });
    throw new InterruptedError({ evaluationId, done: stored, total: planned });
  }
  if (failure !== undefined || !executed) {
    await failEvaluation(store, evaluation, evaluationId, failure);
    onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "failed" });
    throw failure;
  }

  const counters = cache?.counters;
  const totals: EngineTotals = {
    requests: executed.requests,
    calls: executed.calls,
    token_usage: executed.usage,
    ...(counters
      ? {
          cache: {
            hits: counters.hits,
            misses: counters.misses,
            saved_calls: counters.saved_calls,
            saved_tokens: counters.saved_tokens,
          },
        }
      : {}),
    ...(resume ? { resumed: { reused_verdicts: reused.length } } : {}),
  };
  const verdicts = [...reused, ...executed.verdicts];
  let finished: { result: R; errored: number };
  try {
    finished = await evaluation.finish({ store, evaluationId, verdicts, fresh: executed.verdicts, totals });
    await store.evaluations.complete(evaluationId, {
      errored: finished.errored,
      token_usage: totals.token_usage,
      result: finished.result,
      ...(totals.cache
        ? {
            cache: {
              hits: totals.cache.hits,
              misses: totals.cache.misses,
              saved_usage: totals.cache.saved_tokens,
            },
          }
        : {}),
    });
  } catch (error) {
    await failEvaluation(store, evaluation, evaluationId, error);
    onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "failed" });
    throw error;
  }
  onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "completed" });

  if (record) {
    const descriptor = judge.descriptor;
    const fixtures = verdictsToFixtures(
      verdicts.map((v) => v.verdict),
      {
        note: `Recorded by dramaturg from a live run of ${descriptor.provider}:${descriptor.model} on ${new Date().toISOString()}.`,
        judge: descriptor,
      },
    );
    writeFileSync(record, `${JSON.stringify(fixtures, null, 2)}\n`);
  }
  return { evaluationId, result: finished.result, verdicts };
}

async function failEvaluation(
  store: Store,
  evaluation: EvaluationOfKind<unknown, unknown>,
  evaluationId: string,
  error: unknown,
): Promise<void> {
  const message = DramaturgError.isInstance(error)
    ? error.message
    : String((error as Error)?.message ?? error);
  await evaluation.fail(store, message).catch(() => {});
  await store.evaluations.fail(evaluationId, message).catch(() => {});
}

/** A stored score row read back as the verdict it was written from. */
export function verdictFromRow(row: ScoreRow): Verdict {
  const key = {
    dimension: row.dimension,
    proposition_id: row.proposition_id,
    trial: row.trial,
    ...(row.agent_id !== null ? { agent_id: row.agent_id } : {}),
    ...(row.channel !== null ? { channel: row.channel } : {}),
    ...(row.message_id !== null ? { message_id: row.message_id } : {}),
  };
  if (row.status === "errored") {
    const [name, ...rest] = (row.error ?? "Error: unknown").split(": ");
    return { ok: false, key, error: { name: name!, message: rest.join(": ") } };
  }
  return {
    ok: true,
    key,
    reasoning: row.reasoning,
    ...(row.raw_score !== null ? { score: row.raw_score } : {}),
    ...(row.count !== null ? { count: row.count, ideas: row.ideas ?? [] } : {}),
    ...(row.status === "trivial" ? { trivial: true } : {}),
  };
}
