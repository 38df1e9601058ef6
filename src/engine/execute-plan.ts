// Runs a plan's judge calls with bounded concurrency, streaming each verdict to the caller as it
// arrives (so the store holds what was scored even if the process dies half way). Calls are drawn from
// the plan as workers free up, their requests built (and looked up in the verdict cache) a window ahead:
// what is held at any time is that window and the calls in flight, whatever the plan's size.
import { setImmediate as nextTurn } from "node:timers/promises";
import {
  addUsage,
  DEFAULT_CONCURRENCY,
  type TokenUsage,
  type Verdict,
  verdictKeyString,
  ZERO_USAGE,
} from "../core/index.ts";
import type { Judge, JudgeRequest } from "../judge/index.ts";
import {
  type JudgePlan,
  type PlannedCall,
  type PlannedVerdict,
  pendingCalls,
  planSize,
  requestOf,
} from "./plan.ts";

/** The run's judge calls in flight when the caller sets none; a judge built for it keeps the same (prepareJudge). */
export { DEFAULT_CONCURRENCY };

export interface ExecuteOptions<M> {
  judge: Judge;
  /**
   * Calls in flight at once (the judge may limit further). A judge that keeps its own calls in flight to
   * no more than this ({@link Judge.inFlightLimit}) is given twice its limit under way (see workersFor).
   * Default {@link DEFAULT_CONCURRENCY}.
   */
  concurrency?: number;
  /** Verdict keys (verdictKeyString) already judged, e.g. stored by an interrupted run: not asked again. */
  skip?: ReadonlySet<string>;
  /**
   * Pending calls (after `skip`), or how to count them, when the caller has them; counted here otherwise.
   * Counted when the first call finishes (for progress), not before the first calls go out.
   */
  total?: number | (() => number);
  /**
   * Looks a window of requests up ahead of the workers (the verdict cache's prefetch); a request given
   * here is the object later judged. A failed lookup fails the run at its end (judge() looks up itself).
   */
  prefetch?: (requests: readonly JudgeRequest[]) => Promise<void>;
  /** Calls whose requests are built and prefetched ahead of the workers. Default 1,000 with `prefetch`. */
  window?: number;
  /** Called for every verdict, judged or errored or trivial, in arrival order, with the model calls behind them. */
  onVerdicts?: (verdicts: PlannedVerdict<M>[], source: { calls: number }) => void | Promise<void>;
  /** Called after each finished call with done/total call counts. */
  onProgress?: (done: number, total: number) => void;
  /** Aborts the calls in flight (and, like `stop`, stops taking new ones): the run throws the abort reason. */
  signal?: AbortSignal;
  /** Stops taking new calls; the calls in flight finish and the run returns what was judged. */
  stop?: AbortSignal;
  /** Keep every verdict in the result. Default: only when there is no `onVerdicts` to stream them to. */
  keep?: boolean;
}

export interface ExecuteResult<M> {
  /** Every verdict, when kept (see `keep`); empty otherwise. */
  verdicts: PlannedVerdict<M>[];
  usage: TokenUsage;
  /** Model calls the judge made (retries and double checks included). */
  calls: number;
  /** Judge requests made (after skipping stored verdicts), those the verdict cache or a fixture judge answered included. */
  requests: number;
  /** Of those, the requests sent to a provider: a model call behind them. What a run reports as its requests. */
  sent: number;
}

/** Trivial verdicts handed on at once, at most. */
const TRIVIAL_CHUNK = 1_000;

export async function executePlan<M>(
  plan: JudgePlan<M>,
  options: ExecuteOptions<M>,
): Promise<ExecuteResult<M>> {
  const { judge, skip, onProgress, signal, stop, prefetch } = options;
  const keep = options.keep ?? options.onVerdicts === undefined;
  const verdicts: PlannedVerdict<M>[] = [];
  const handle = async (scored: PlannedVerdict<M>[], source: { calls: number }) => {
    if (keep) verdicts.push(...scored);
    await options.onVerdicts?.(scored, source);
  };
  let trivial: PlannedVerdict<M>[] = [];
  for (const t of plan.trivial()) {
    if (skip?.has(verdictKeyString(t.item.key))) continue;
    trivial.push({
      verdict: {
        ok: true,
        key: t.item.key,
        score: 9,
        reasoning: t.reasoning,
        trivial: true,
      } satisfies Verdict,
      meta: t.meta,
    });
    if (trivial.length >= TRIVIAL_CHUNK) {
      await handle(trivial, { calls: 0 });
      trivial = [];
    }
  }
  if (trivial.length) await handle(trivial, { calls: 0 });

  let counted: number | undefined;
  const total = () => {
    const given = options.total;
    counted ??= typeof given === "number" ? given : given ? given() : planSize(plan, skip).calls;
    return counted;
  };
  const source = pendingCalls(plan, skip);
  const window = Math.max(1, prefetch ? (options.window ?? 1_000) : 1);
  // The calls drawn from the plan, their requests built, not yet taken by a worker.
  let ready: { call: PlannedCall<M>; request: JudgeRequest }[] = [];
  let taken = 0;
  let exhausted = false;
  const lookups = new Set<Promise<void>>();
  let lookupFailure: unknown;
  const draw = () => {
    const drawn: typeof ready = [];
    while (drawn.length < window) {
      const next = source.next();
      if (next.done) {
        exhausted = true;
        break;
      }
      drawn.push({ call: next.value, request: requestOf(next.value) });
    }
    if (drawn.length && prefetch) {
      const looked = prefetch(drawn.map((d) => d.request)).catch((error) => {
        lookupFailure ??= error;
      });
      lookups.add(looked);
      void looked.then(() => lookups.delete(looked));
    }
    ready = [...ready.slice(taken), ...drawn];
    taken = 0;
  };
  const take = () => {
    // The next window is drawn (and its lookup started) while half of this one is still ahead.
    if (!exhausted && ready.length - taken <= window / 2) draw();
    return taken < ready.length ? ready[taken++] : undefined;
  };

  let usage: TokenUsage = { ...ZERO_USAGE };
  let modelCalls = 0;
  let requests = 0;
  let sent = 0;
  let done = 0;
  let failure: unknown;
  const worker = async () => {
    // The commit of this worker's last answers: under way while its next call is, awaited before the
    // answers after it are handed on. So the store's write never holds up a call, and answered calls not
    // yet stored never outnumber twice the workers (one under way and one being stored per worker).
    let storing: Promise<void> | undefined;
    const stored = async () => {
      const last = storing;
      storing = undefined;
      await last;
    };
    try {
      while (failure === undefined && !stop?.aborted) {
        signal?.throwIfAborted();
        let next: ReturnType<typeof take>;
        try {
          next = take();
        } catch (error) {
          // The plan could not produce its next call (a precondition threw, a context failed to build).
          failure ??= error;
          return;
        }
        if (!next) return;
        const { call, request } = next;
        requests++;
        // Whether the answer comes in a later turn of the event loop than the call (over the network):
        // a check phase passes in between. An answer from this process (fixtures, a cache) comes at once.
        let crossed = false;
        const turn = setImmediate(() => {
          crossed = true;
        });
        const response = await judge.judge(request, { signal }).finally(() => clearImmediate(turn));
        usage = addUsage(usage, response.usage);
        modelCalls += response.calls;
        if (response.calls > 0) sent++;
        const scored = response.verdicts.map((verdict, i) => ({ verdict, meta: call.meta[i]! }));
        // Handed on in arrival order per worker: the previous answers are stored first. Answers that came
        // over the network are handed on once this worker's next call has gone out, so that answers that
        // arrive together do not queue each other's next requests behind their aggregation and writes.
        await stored();
        storing = crossed
          ? afterNextCall(() => handle(scored, { calls: response.calls }))
          : handle(scored, { calls: response.calls });
        // A failed commit fails the run when it is awaited (above, or when the worker stops).
        storing.catch(() => {});
        if (onProgress) onProgress(++done, total());
      }
    } catch (error) {
      // The judge returns per-item failures as errored verdicts; a throw means it cannot work at all.
      failure ??= error;
    } finally {
      try {
        await stored();
      } catch (error) {
        failure ??= error;
      }
    }
  };
  // Not core's pool: workers draw a lazy plan a prefetched window ahead and carry a commit across calls.
  // Workers stop when the plan runs out; a plan of fewer calls leaves the rest idle at once.
  const width = workersFor(Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY), judge.inFlightLimit);
  await Promise.all(Array.from({ length: width }, worker));
  await Promise.all(lookups);
  if (failure !== undefined) throw failure;
  if (lookupFailure !== undefined) throw lookupFailure;
  return { verdicts, usage, calls: modelCalls, requests, sent };
}

/**
 * How many calls to keep under way. A judge that holds its own calls in flight to a limit no higher than the
 * concurrency (an LLM judge frees a call's slot when its answer arrives, before parsing it) is given twice
 * its limit, so that every slot freed has a request ready to go out at once: answers that arrive together
 * then send their workers' next requests before any of them is parsed. Otherwise the concurrency itself.
 */
export function workersFor(concurrency: number, inFlightLimit: number | undefined): number {
  return inFlightLimit !== undefined && inFlightLimit >= 1 && inFlightLimit <= concurrency
    ? Math.max(concurrency, 2 * inFlightLimit)
    : concurrency;
}

/**
 * Runs `fn` once the event loop has turned: after the worker's next call has gone out (its request is built
 * and written in the microtasks that follow the previous answer).
 */
function afterNextCall<T>(fn: () => Promise<T>): Promise<T> {
  return nextTurn().then(fn);
}
