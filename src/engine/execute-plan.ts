// Runs a plan's judge calls with bounded concurrency, streaming each verdict to the caller as it
// arrives (so the store holds what was scored even if the process dies half way).
import { addUsage, type TokenUsage, type Verdict, verdictKeyString, ZERO_USAGE } from "../core/index.ts";
import type { Judge } from "../judge/index.ts";
import { type JudgePlan, type PlannedCall, type PlannedVerdict, pendingCalls } from "./plan.ts";

export interface ExecuteOptions<M> {
  judge: Judge;
  /** Calls in flight at once (the judge may limit further). */
  concurrency?: number;
  /** Verdict keys (verdictKeyString) already judged, e.g. stored by an interrupted run: not asked again. */
  skip?: ReadonlySet<string>;
  /** The pending calls when the caller computed them already (`pendingCalls(plan, skip)`), so they are the same objects. */
  pending?: PlannedCall<M>[];
  /** Called for every verdict, judged or errored or trivial, in arrival order, with the model calls behind them. */
  onVerdicts?: (verdicts: PlannedVerdict<M>[], source: { calls: number }) => void | Promise<void>;
  /** Called after each finished call with done/total call counts. */
  onProgress?: (done: number, total: number) => void;
  /** Aborts the calls in flight (and, like `stop`, stops taking new ones): the run throws the abort reason. */
  signal?: AbortSignal;
  /** Stops taking new calls; the calls in flight finish and the run returns what was judged. */
  stop?: AbortSignal;
}

export interface ExecuteResult<M> {
  verdicts: PlannedVerdict<M>[];
  usage: TokenUsage;
  /** Model calls the judge made (retries and double checks included). */
  calls: number;
  /** Judge requests sent (after skipping stored verdicts). */
  requests: number;
}

export async function executePlan<M>(
  plan: JudgePlan<M>,
  options: ExecuteOptions<M>,
): Promise<ExecuteResult<M>> {
  const { judge, skip, onVerdicts, onProgress, signal, stop } = options;
  const verdicts: PlannedVerdict<M>[] = [];
  const trivial: PlannedVerdict<M>[] = plan.trivial
    .filter((t) => !skip?.has(verdictKeyString(t.item.key)))
    .map((t) => ({
      verdict: {
        ok: true,
        key: t.item.key,
        score: 9,
        reasoning: t.reasoning,
        trivial: true,
      } satisfies Verdict,
      meta: t.meta,
    }));
  if (trivial.length) {
    verdicts.push(...trivial);
    await onVerdicts?.(trivial, { calls: 0 });
  }
  const calls = options.pending ?? pendingCalls(plan, skip);
  let usage: TokenUsage = { ...ZERO_USAGE };
  let modelCalls = 0;
  let next = 0;
  let done = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < calls.length && !stop?.aborted) {
      signal?.throwIfAborted();
      const call = calls[next++]!;
      try {
        const response = await judge.judge(call.request, { signal });
        usage = addUsage(usage, response.usage);
        modelCalls += response.calls;
        const scored = response.verdicts.map((verdict, i) => ({ verdict, meta: call.meta[i]! }));
        verdicts.push(...scored);
        // A worker takes its next call only after this one's verdicts are handled (stored), so calls
        // answered but not yet stored never outnumber the concurrency.
        await onVerdicts?.(scored, { calls: response.calls });
      } catch (error) {
        // The judge returns per-item failures as errored verdicts; a throw means it cannot work at all.
        failure ??= error;
        return;
      }
      onProgress?.(++done, calls.length);
    }
  };
  const width = Math.max(1, Math.min(options.concurrency ?? 16, calls.length));
  await Promise.all(Array.from({ length: width }, worker));
  if (failure !== undefined) throw failure;
  return { verdicts, usage, calls: modelCalls, requests: calls.length };
}
