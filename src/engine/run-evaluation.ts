// The lifecycle every evaluation kind shares: create (or resume) the evaluation, judge its plan
// through the verdict cache with a concurrency limit, group-commit verdicts, let the kind aggregate,
// then complete or fail — and keep the result document with the evaluation.
import { setMaxListeners } from "node:events";
import { closeSync, openSync, writeSync } from "node:fs";
import { DramaturgError, InterruptedError, type TokenUsage, type Verdict } from "../core/index.ts";
import {
  type Judge,
  type JudgeDescriptor,
  type JudgeRequest,
  type VerdictCacheCounters,
  verdictsToFixtures,
} from "../judge/index.ts";
import type {
  EvaluationKind,
  NewEvaluation,
  RerunCacheStats,
  ScoreInput,
  ScoreRow,
  Store,
} from "../store/index.ts";
import { DEFAULT_CONCURRENCY, type ExecuteResult, executePlan } from "./execute-plan.ts";
import { type JudgePlan, metaByKey, type PlannedVerdict, planSize } from "./plan.ts";
import type { ProgressListener } from "./progress.ts";

/** What the engine adds up for every kind; the kind puts it in its result document. */
export interface EngineTotals {
  /**
   * Judge requests this invocation sent to a provider, and the model calls behind them (retries, double
   * checks): what the provider received. The verdict cache's answers are counted apart (`cache`), and a
   * fixture judge's lookups are no requests, as in a dry run.
   */
  requests: number;
  calls: number;
  token_usage: TokenUsage;
  cache?: {
    hits: number;
    misses: number;
    /** Judge requests the cache answered whole, not sent (absent from results stored before it was kept). */
    served_requests?: number;
    saved_calls: number;
    saved_tokens: TokenUsage;
    /** The stored evaluation reused whole (see EvaluationOfKind.reuse): its verdicts were copied, not looked up. */
    reused_from?: string;
  };
  /** Present on a resume: verdicts read back from the store instead of judged again. */
  resumed?: { reused_verdicts: number };
}

/** What a kind's `finish` is given: its verdicts it has taken in already, one by one, through `add`. */
export interface FinishContext {
  store: Store;
  evaluationId: string;
  totals: EngineTotals;
}

/**
 * One evaluation of a kind, as the engine drives it. The kind owns its plan, its own rows (runs per
 * agent, per session…), how a verdict becomes a score row, and its aggregation and result document.
 * The engine hands every verdict to `add` once and then lets it go: a kind keeps running aggregates,
 * not verdicts, so that a run's memory does not grow with its size. One object serves one run.
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
  /**
   * Takes verdicts into the running aggregates: on a resume first those read back from the store
   * (`fresh: false`), then those judged or given trivially now (`fresh: true`), in the order they arrive.
   * That order changes with concurrency, resumes and reuse; what the aggregates give must not (sort by key,
   * sum exactly): the same verdicts always make the same result document, to the bit.
   */
  add(verdicts: readonly PlannedVerdict<M>[], source: { fresh: boolean }): void;
  /** Completes the kind's rows and builds the result document from the aggregates. */
  finish(context: FinishContext): Promise<{ result: R; errored: number }>;
  /** Marks the kind's rows failed. */
  fail(store: Store, message: string): Promise<void>;
  /** Marks the kind's rows interrupted (their verdicts stay; a resume continues them). */
  interrupt(store: Store): Promise<void>;
  /**
   * A digest of everything that determines the evaluation's verdicts: its input, propositions, selection,
   * mode, trials, judge and the verdict cache's key version. Stored with it; what a reuse matches.
   */
  fingerprint?(): string;
  /** How a stored evaluation with the same fingerprint is reused whole, when the kind can. */
  readonly reuse?: ReuseOfKind<R>;
}

/**
 * Reusing a stored evaluation whole: a rerun whose every verdict the cache would serve copies the stored
 * evaluation's verdicts in one statement and takes its figures from its result, instead of looking each
 * verdict up. Only a result that is itself a warm rerun's (every verdict served by the cache, nothing
 * judged, nothing resumed, nothing errored) is reused as it is: its totals are then exactly what a rerun
 * reports. One that judged is reused with the figures its rerun would report, kept when the cache will
 * serve that rerun whole (see CacheInUse.rerun).
 */
export interface ReuseOfKind<R> {
  /**
   * The totals of a stored result, or undefined when it is not one a rerun can reuse (see above); with
   * `rerun`, the cache figures a rerun of a result that judged would report (see CacheInUse.rerun).
   */
  totals(stored: unknown, rerun?: RerunCacheStats): EngineTotals | undefined;
  /** Completes the kind's rows (begun with `begin`; their verdicts copied) and builds the result from the stored one. */
  finish(context: FinishContext & { stored: unknown }): Promise<{ result: R; errored: number }>;
}

/** The verdict cache in front of the judge, whose counters the result reports. */
export interface CacheInUse {
  readonly counters: VerdictCacheCounters;
  /** Looks requests' keys up in bulk, a window ahead of the workers (see CachingJudge.prefetch). */
  prefetch?(requests: readonly JudgeRequest[]): Promise<void>;
  /**
   * The cache answers without the store: it is a new store's, and so empty (see `openingCache`). A new
   * evaluation then judges while the store opens, as it does without a cache.
   */
  readonly storeFree?: boolean;
  /**
   * The cache is the store's own (not one given by a caller, nor a new store's): an unchanged evaluation
   * stored there may be reused whole (see EvaluationOfKind.reuse).
   */
  readonly inStore?: boolean;
  /** Counts verdicts served by a reuse, as if the cache had served them one by one. */
  countServed?(counters: VerdictCacheCounters): void;
  /**
   * What a rerun of the requests judged so far would be served, when the cache (the store's own) will
   * serve it whole; see CachingJudge.rerun. Kept with the evaluation, so that its first rerun reuses it.
   */
  readonly rerun?: VerdictCacheCounters;
}

export interface RunEvaluationOptions<M, R> {
  evaluation: EvaluationOfKind<M, R>;
  /**
   * The store, or the promise of one still opening: a new evaluation without a verdict cache (or with a new
   * store's, which is empty) then starts judging at once, its first verdicts held (in order) until the
   * store is open and its rows exist. A resume, or a run whose cache lookups need the store, waits for it.
   */
  store: Store | Promise<Store>;
  judge: Judge;
  /** Judge calls in flight at once (a judge may hold them lower: see prepareJudge). Default 16. */
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

/** The evaluation and its result document; the verdicts are in the store (`store.scores.forEvaluation`). */
export interface EvaluationRunResult<R> {
  evaluationId: string;
  result: R;
}

/** At the latest, how long into a run its `started` event goes out (see `sizesOf` in runEvaluation). */
const STARTED_LATEST_MS = 100;

/** What a plan's execution spent, with the cache's figures when a cache was in front of the judge. */
export function executedTotals(
  executed: Pick<ExecuteResult<unknown>, "sent" | "calls" | "usage">,
  counters?: VerdictCacheCounters,
): EngineTotals {
  return {
    requests: executed.sent,
    calls: executed.calls,
    token_usage: executed.usage,
    ...(counters
      ? {
          cache: {
            hits: counters.hits,
            misses: counters.misses,
            served_requests: counters.served_requests,
            saved_calls: counters.saved_calls,
            saved_tokens: counters.saved_tokens,
          },
        }
      : {}),
  };
}

/** Runs (or resumes) one evaluation to completion; on failure the evaluation and its rows are marked failed. */
export async function runEvaluation<M, R>({
  evaluation,
  store: storeOption,
  judge,
  concurrency = DEFAULT_CONCURRENCY,
  resume,
  cache,
  onProgress,
  record,
  signal,
  graceMs = 3000,
}: RunEvaluationOptions<M, R>): Promise<EvaluationRunResult<R>> {
  const { plan } = evaluation;
  // An unchanged evaluation stored before, whose every verdict the cache served, is reused whole. Never for
  // a resume, a recording (which writes what was judged now), a judge without the store's cache, or once
  // interrupted.
  let fingerprinted: { fingerprint: string; cache_generation?: number } | undefined;
  if (
    !resume &&
    !record &&
    cache?.inStore &&
    !signal?.aborted &&
    evaluation.fingerprint &&
    evaluation.reuse
  ) {
    const store = await storeOption;
    const reused = await reuseEvaluation(store, evaluation, judge, cache, onProgress);
    if ("result" in reused) return reused;
    fingerprinted = reused;
  } else if (evaluation.fingerprint && !resume) fingerprinted = { fingerprint: evaluation.fingerprint() };
  // The store, its evaluation rows and the writer: ready before judging starts, except for a new
  // evaluation whose cache (if any) needs no store: its first judge requests go out while the store opens.
  const setUp = (async () => {
    const store = await storeOption;
    let evaluationId: string;
    // Verdict keys already answered in the store (a resume's), which are not judged again.
    let skip: ReadonlySet<string> = new Set();
    let dimensions: string[] = [];
    if (resume) {
      evaluationId = resume;
      ({ skip, dimensions } = await readBack(store, evaluation, evaluationId));
      await store.evaluations.start(evaluationId);
      await evaluation.reopen(store, evaluationId);
    } else {
      // The cache of a store that is new holds only what this run puts there: its generation (read once
      // the store is open) lets the next run reuse this one, as with any store's own cache.
      if (fingerprinted && fingerprinted.cache_generation === undefined && cache?.rerun)
        fingerprinted.cache_generation = await store.verdictCache.generation();
      const row = await store.evaluations.create({
        kind: evaluation.kind,
        ...evaluation.describe(),
        ...fingerprinted,
      });
      evaluationId = row.id;
      await store.evaluations.start(evaluationId);
      await evaluation.begin(store, evaluationId);
    }
    // Group commit: each verdict is durable within one insert, so a kill loses at most the calls in
    // flight. A new evaluation's keys are all new: its batches skip the conflict check (a resume's do not).
    const writer = store.scores.writer({ flushIntervalMs: 0, newKeys: !resume });
    return { store, evaluationId, skip, dimensions, writer };
  })();
  let ready: Awaited<typeof setUp> | undefined;
  const early = !resume && (!cache || cache.storeFree === true) && isPromise(storeOption);
  if (!early) ready = await setUp;
  const skip = ready?.skip ?? new Set<string>();
  // The plan's size is counted in a pass of its own (≈ 15 ms for 1,000 messages on Node 20), for the `started`
  // event. So that the pass does not delay the first requests, `started` goes out with the first answers (before
  // they are stored: from then on the evaluation can be resumed), at the latest STARTED_LATEST_MS into the run
  // (a slow judge's first answers may take seconds; by then the first requests are out), or at the end.
  let sizes: { pending: number; planned: number } | undefined;
  const sizesOf = () => {
    if (!sizes) {
      const whole = planSize(plan);
      const pending = skip.size ? planSize(plan, skip) : whole;
      sizes = { pending: pending.calls, planned: whole.items + whole.trivial };
    }
    return sizes;
  };
  const reused = skip.size;
  let started = false;
  const start = (r: Awaited<typeof setUp>) => {
    if (started) return;
    started = true;
    onProgress?.({
      type: "started",
      evaluation_id: r.evaluationId,
      total: sizesOf().pending,
      reused_verdicts: reused,
      resumed: resume !== undefined,
    });
  };
  // Answers that came while the store still opened, in arrival order: written first once it is open.
  let waiting: PlannedVerdict<M>[][] = [];
  // Their commit, which their workers wait for.
  let waitingWritten: Promise<void> = Promise.resolve();
  // Answers from the judge that waited for the store without their worker waiting with them (see below).
  let heldAlone = 0;
  let late = false;
  const announced = setUp.then((r) => {
    ready = r;
    if (late || waiting.length > 0) start(r);
    if (waiting.length > 0) {
      // Handed to the writer before any later answer (write() buffers at once), so the order holds.
      const rows = waiting.flatMap((vs) => vs.map((v) => evaluation.scoreRow(v, r.evaluationId)));
      waiting = [];
      waitingWritten = r.writer.write(rows, { durable: true });
      waitingWritten.catch(() => {});
    }
    return r;
  });
  // Until the caller awaits it below, a failed open is not an unhandled rejection.
  announced.catch(() => {});
  if (!early) await announced;
  let stored = reused;
  // An interrupt stops new calls at once; calls in flight are aborted only once the grace is over.
  const inFlight = new AbortController();
  // Every worker's call follows this one signal: `concurrency` listeners is its normal load, not a leak.
  setMaxListeners(0, inFlight.signal);
  // A store that fails to open ends the calls in flight at once: the run fails with its error.
  if (early) announced.catch((error) => inFlight.abort(error));
  let grace: NodeJS.Timeout | undefined;
  const onInterrupt = () => {
    onProgress?.({ type: "interrupting", in_flight_grace_ms: graceMs });
    grace = setTimeout(() => inFlight.abort(signal?.reason), graceMs);
  };
  if (signal?.aborted) onInterrupt();
  else signal?.addEventListener("abort", onInterrupt, { once: true });
  const startLate = setTimeout(() => {
    late = true;
    if (ready) start(ready);
  }, STARTED_LATEST_MS);
  startLate.unref();
  let executed: Awaited<ReturnType<typeof executePlan<M>>> | undefined;
  let failure: unknown;
  try {
    executed = await executePlan(plan, {
      judge,
      concurrency,
      skip,
      total: () => sizesOf().pending,
      // Started once the evaluation and its rows exist, so that their rows are not queued behind lookups.
      prefetch: cache?.prefetch ? (requests) => cache.prefetch!(requests) : undefined,
      stop: signal,
      signal: inFlight.signal,
      // Answers that cost a model call are committed before the worker hands on its next answers (it makes
      // its next call meanwhile): a kill then loses at most the calls in flight and the answers being
      // committed, one of each per worker. Cached and trivial answers need no such wait.
      onVerdicts: async (vs, { calls }) => {
        // Taken in as they arrive (the kind's aggregates do not depend on the order), before the write.
        evaluation.add(vs, { fresh: true });
        stored += vs.length;
        // While the store opens, answers wait, in order, and are written first once it is open. A round
        // of them (one per worker) waits alone, so that a new folder's open (≈ 0.5 s) does not hold up the
        // second round of calls; the workers of any later ones wait with them, as they would for any
        // commit. A kill before the store is open then loses at most three rounds of calls (that round,
        // the answers whose workers wait, the calls in flight), with nothing to resume.
        if (!ready) {
          waiting.push(vs);
          if (calls > 0 && ++heldAlone > concurrency) {
            await announced;
            await waitingWritten;
          }
          return;
        }
        start(ready);
        const { writer, evaluationId } = ready;
        await writer.write(
          vs.map((v) => evaluation.scoreRow(v, evaluationId)),
          { durable: calls > 0 },
        );
      },
      // Progress follows the `started` event, which needs the evaluation (and so the store).
      onProgress: (done, total) => {
        if (ready) start(ready);
        if (started) onProgress?.({ type: "judged", done, total });
      },
    });
    ready ??= await announced;
    await ready.writer.close();
  } catch (error) {
    failure = error;
    await ready?.writer.close().catch(() => {});
  } finally {
    clearTimeout(grace);
    clearTimeout(startLate);
    signal?.removeEventListener("abort", onInterrupt);
  }
  // The store never opened (or its rows could not be made): nothing to mark; the run fails with why.
  if (!ready) {
    ready = await announced;
  }
  start(ready);
  const { store, evaluationId, dimensions } = ready;
  // Interrupted before everything was judged: what was judged is committed; the rest awaits a resume.
  if (signal?.aborted && stored < sizesOf().planned) {
    await evaluation.interrupt(store).catch(() => {});
    await store.evaluations.interrupt(evaluationId).catch(() => {});
    onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "interrupted" });
    throw new InterruptedError({
      evaluationId,
      done: stored,
      total: sizesOf().planned,
      kind: evaluation.kind,
    });
  }
  if (failure !== undefined || !executed) {
    await failEvaluation(store, evaluation, evaluationId, failure);
    onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "failed" });
    throw failure;
  }

  const totals: EngineTotals = {
    ...executedTotals(executed, cache?.counters),
    ...(resume ? { resumed: { reused_verdicts: reused } } : {}),
  };
  let finished: { result: R; errored: number };
  try {
    finished = await evaluation.finish({ store, evaluationId, totals });
    const rerun_cache =
      finished.errored === 0 ? await rerunCache(store, cache, fingerprinted, executed.requests) : undefined;
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
      ...(rerun_cache ? { rerun_cache } : {}),
    });
  } catch (error) {
    await failEvaluation(store, evaluation, evaluationId, error);
    onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "failed" });
    throw error;
  }
  onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "completed" });

  if (record)
    await recordFixtures(store, evaluationId, dimensions.length ? dimensions : planDimensions(plan), {
      path: record,
      judge: judge.descriptor,
    });
  return { evaluationId, result: finished.result };
}

/**
 * Reuses the newest stored evaluation with the same fingerprint, made at the cache's present generation
 * (no entry deleted or replaced since), whose result the kind can reuse: a new evaluation and its rows
 * are made as usual, the stored verdicts copied to them in one statement, the hits counted in bulk. A
 * failure leaves the new evaluation failed. Without such an evaluation, returns what the new one keeps.
 */
async function reuseEvaluation<M, R>(
  store: Store,
  evaluation: EvaluationOfKind<M, R>,
  judge: Judge,
  cache: CacheInUse,
  onProgress: ProgressListener | undefined,
): Promise<EvaluationRunResult<R> | { fingerprint: string; cache_generation: number }> {
  const reuse = evaluation.reuse!;
  const fingerprint = evaluation.fingerprint!();
  const cache_generation = await store.verdictCache.generation();
  const from = await store.evaluations.reusable({
    kind: evaluation.kind,
    fingerprint,
    generation: cache_generation,
  });
  const stored = from && (await store.evaluations.result(from.id));
  const storedTotals = from && reuse.totals(stored, from.rerun_cache ?? undefined);
  if (!from || !storedTotals?.cache) return { fingerprint, cache_generation };
  const totals: EngineTotals = { ...storedTotals, cache: { ...storedTotals.cache, reused_from: from.id } };
  const row = await store.evaluations.create({
    kind: evaluation.kind,
    ...evaluation.describe(),
    fingerprint,
    cache_generation,
  });
  const evaluationId = row.id;
  let finished: { result: R; errored: number };
  try {
    await store.evaluations.start(evaluationId);
    await evaluation.begin(store, evaluationId);
    onProgress?.({
      type: "started",
      evaluation_id: evaluationId,
      total: 0,
      reused_verdicts: 0,
      resumed: false,
    });
    // One statement: the new evaluation has all of the stored verdicts or none.
    await store.scores.copy(from.id, evaluationId);
    const { hits, saved_calls, saved_tokens, served_requests = 0 } = totals.cache!;
    // The hits the served verdicts would have been, in the store's tally and the cache's counters.
    await store.verdictCache.tally([
      {
        provider: judge.descriptor.provider,
        model: judge.descriptor.model,
        hits,
        input: saved_tokens.input_tokens,
        output: saved_tokens.output_tokens,
      },
    ]);
    cache.countServed?.({ hits, misses: 0, saved_calls, saved_tokens, served_requests });
    finished = await reuse.finish({ store, evaluationId, totals, stored });
    await store.evaluations.complete(evaluationId, {
      errored: finished.errored,
      token_usage: totals.token_usage,
      result: finished.result,
      cache: { hits, misses: 0, saved_usage: saved_tokens },
    });
  } catch (error) {
    await failEvaluation(store, evaluation, evaluationId, error);
    onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "failed" });
    throw error;
  }
  onProgress?.({ type: "finished", evaluation_id: evaluationId, status: "completed" });
  return { evaluationId, result: finished.result };
}

/**
 * What a rerun of a finished evaluation would be served by the store's cache, when it would serve it whole:
 * the judge's rerun tally (see CacheInUse.rerun), if no entry was replaced or deleted since the evaluation
 * was created (the generation it was made at is the cache's still). A resume (no fingerprint) keeps none.
 */
async function rerunCache(
  store: Store,
  cache: CacheInUse | undefined,
  fingerprinted: { cache_generation?: number } | undefined,
  requests: number,
): Promise<RerunCacheStats | undefined> {
  const rerun = cache?.rerun;
  const generation = fingerprinted?.cache_generation;
  // A run that judged nothing is a warm rerun already: its own figures are what a reuse takes.
  if (!rerun || generation === undefined || rerun.hits === 0 || rerun.served_requests !== requests)
    return undefined;
  if (cache!.counters.misses === 0) return undefined;
  if ((await store.verdictCache.generation()) !== generation) return undefined;
  return {
    requests,
    hits: rerun.hits,
    saved_calls: rerun.saved_calls,
    saved_usage: rerun.saved_tokens,
  };
}

/** The dimensions a plan judges, in the store's order (that of `forEvaluation`). */
function planDimensions<M>(plan: JudgePlan<M>): string[] {
  const out = new Set<string>();
  for (const call of plan.calls()) for (const item of call.items) out.add(item.key.dimension);
  for (const t of plan.trivial()) out.add(t.item.key.dimension);
  return [...out].sort();
}

/**
 * A resume's start: the stored answers (errored verdicts are judged again) of the plan's keys, read back a
 * dimension at a time into the kind's aggregates. Returns their keys, which the run skips.
 */
async function readBack<M, R>(
  store: Store,
  evaluation: EvaluationOfKind<M, R>,
  evaluationId: string,
): Promise<{ skip: Set<string>; dimensions: string[] }> {
  const existing = await store.scores.existingKeys(evaluationId);
  const byKey = metaByKey(evaluation.plan, existing);
  const dimensions = planDimensions(evaluation.plan);
  for (const dimension of dimensions) {
    const rows = await store.scores.forEvaluation(evaluationId, { dimension });
    const reused: PlannedVerdict<M>[] = [];
    for (const row of rows) {
      const meta = row.status !== "errored" ? byKey.get(row.verdict_key) : undefined;
      if (meta !== undefined) reused.push({ verdict: verdictFromRow(row), meta });
    }
    evaluation.add(reused, { fresh: false });
  }
  return { skip: new Set(byKey.keys()), dimensions };
}

/**
 * Writes every verdict of the evaluation, read back from the store a dimension at a time, as judge
 * fixtures: the document `verdictsToFixtures` makes, written entry by entry rather than built whole.
 */
async function recordFixtures(
  store: Store,
  evaluationId: string,
  dimensions: readonly string[],
  { path, judge }: { path: string; judge: JudgeDescriptor },
): Promise<void> {
  const meta = {
    note: `Recorded by dramaturg from a live run of ${judge.provider}:${judge.model} on ${new Date().toISOString()}.`,
    judge,
  };
  // The document with a placeholder for its entries, split around it: what goes before and after them.
  const marker = "\u0000entries\u0000";
  const shell = JSON.stringify({ ...verdictsToFixtures([], meta), verdicts: [marker] }, null, 2);
  const at = shell.indexOf(JSON.stringify(marker));
  const lineStart = shell.lastIndexOf("\n", at) + 1;
  const head = shell.slice(0, lineStart);
  const tail = shell.slice(at + JSON.stringify(marker).length);
  const indent = " ".repeat(at - lineStart);
  const fd = openSync(path, "w");
  try {
    let first = true;
    const out: string[] = [];
    for (const dimension of dimensions) {
      const rows = await store.scores.forEvaluation(evaluationId, { dimension });
      const { verdicts } = verdictsToFixtures(
        rows.map((row) => verdictFromRow(row)),
        meta,
      );
      for (const entry of verdicts) {
        out.push(JSON.stringify(entry, null, 2).replaceAll("\n", `\n${indent}`));
      }
      if (out.length === 0) continue;
      writeSync(fd, `${first ? head : ",\n"}${indent}${out.join(`,\n${indent}`)}`);
      first = false;
      out.length = 0;
    }
    // No entry at all: the document as JSON.stringify writes an empty list.
    if (first) writeSync(fd, `${JSON.stringify(verdictsToFixtures([], meta), null, 2)}\n`);
    else writeSync(fd, `${tail}\n`);
  } finally {
    closeSync(fd);
  }
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown })?.then === "function";
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
