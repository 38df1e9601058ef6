// What every evaluation kind hands the engine: judge requests to make and verdicts given without a
// judge, each item paired with the kind's own metadata (where the verdict belongs).
import { type Verdict, verdictKeyString } from "../core/index.ts";
import type { JudgeItem, JudgeRequest } from "../judge/index.ts";

/** One judge call to make: items sharing one context, and for each item where its verdict belongs. */
export interface PlannedCall<M> {
  request: JudgeRequest;
  /** One entry per request item, in item order. */
  meta: M[];
}

/** A verdict given without a judge call (e.g. a false precondition makes a proposition hold: 9). */
export interface PlannedTrivial<M> {
  item: JudgeItem;
  meta: M;
  reasoning: string;
}

/** The judge work of one evaluation. */
export interface JudgePlan<M> {
  calls: PlannedCall<M>[];
  trivial: PlannedTrivial<M>[];
}

/** A verdict together with where it belongs. */
export interface PlannedVerdict<M> {
  verdict: Verdict;
  meta: M;
}

/** The plan's calls minus the items already judged; calls left empty are dropped. */
export function pendingCalls<M>(plan: JudgePlan<M>, skip?: ReadonlySet<string>): PlannedCall<M>[] {
  if (!skip || skip.size === 0) return plan.calls;
  const out: PlannedCall<M>[] = [];
  for (const call of plan.calls) {
    const keep = call.request.items.map((item) => !skip.has(verdictKeyString(item.key)));
    if (keep.every(Boolean)) out.push(call);
    else if (keep.some(Boolean))
      out.push({
        request: { ...call.request, items: call.request.items.filter((_, i) => keep[i]) },
        meta: call.meta.filter((_, i) => keep[i]),
      });
  }
  return out;
}

/** Every planned item's metadata by verdict key: how stored verdicts find their place again. */
export function metaByKey<M>(plan: JudgePlan<M>): Map<string, M> {
  const out = new Map<string, M>();
  for (const call of plan.calls)
    call.request.items.forEach((item, i) => {
      out.set(verdictKeyString(item.key), call.meta[i]!);
    });
  for (const t of plan.trivial) out.set(verdictKeyString(t.item.key), t.meta);
  return out;
}
