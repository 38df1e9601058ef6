// What every evaluation kind hands the engine: judge requests to make and verdicts given without a
// judge, each item paired with the kind's own metadata (where the verdict belongs). A plan is produced
// afresh on every iteration and each call builds its context only when asked, so a run holds the calls
// in flight, not the whole plan: its memory does not grow with the number of verdicts.
import { type Verdict, verdictKeyString } from "../core/index.ts";
import type { JudgeContext, JudgeItem, JudgeRequest } from "../judge/index.ts";

/** One judge call to make: items sharing one context, and for each item where its verdict belongs. */
export interface PlannedCall<M> {
  items: JudgeItem[];
  doubleCheck: boolean;
  /** Builds what the items are judged on; calls on one target share one context, built once. */
  context(): JudgeContext;
  /** One entry per item, in item order. */
  meta: M[];
}

/** A verdict given without a judge call (e.g. a false precondition makes a proposition hold: 9). */
export interface PlannedTrivial<M> {
  item: JudgeItem;
  meta: M;
  reasoning: string;
}

/** The judge work of one evaluation; each method produces it afresh, in the same order every time. */
export interface JudgePlan<M> {
  calls(): Iterable<PlannedCall<M>>;
  trivial(): Iterable<PlannedTrivial<M>>;
}

/** A verdict together with where it belongs. */
export interface PlannedVerdict<M> {
  verdict: Verdict;
  meta: M;
}

/** The judge request of a call (its context built now): what the judge and the verdict cache are given. */
export function requestOf<M>(call: PlannedCall<M>): JudgeRequest {
  return { items: call.items, context: call.context(), doubleCheck: call.doubleCheck };
}

/** The plan's calls minus the items already judged; calls left empty are dropped. */
export function* pendingCalls<M>(plan: JudgePlan<M>, skip?: ReadonlySet<string>): Generator<PlannedCall<M>> {
  for (const call of plan.calls()) {
    if (!skip || skip.size === 0) {
      yield call;
      continue;
    }
    const keep = call.items.map((item) => !skip.has(verdictKeyString(item.key)));
    if (keep.every(Boolean)) yield call;
    else if (keep.some(Boolean))
      yield {
        ...call,
        items: call.items.filter((_, i) => keep[i]),
        meta: call.meta.filter((_, i) => keep[i]),
      };
  }
}

/** How much a plan holds: calls and their items, and trivial verdicts (one pass, no context built). */
export function planSize<M>(
  plan: JudgePlan<M>,
  skip?: ReadonlySet<string>,
): { calls: number; items: number; trivial: number } {
  const size = { calls: 0, items: 0, trivial: 0 };
  for (const call of pendingCalls(plan, skip)) {
    size.calls++;
    size.items += call.items.length;
  }
  for (const t of plan.trivial()) if (!skip?.has(verdictKeyString(t.item.key))) size.trivial++;
  return size;
}

/**
 * Every planned item's metadata by verdict key: how stored verdicts find their place again. Holds an entry
 * per planned verdict, so only a resume builds it; `only` narrows it to the keys it will be asked for.
 */
export function metaByKey<M>(plan: JudgePlan<M>, only?: ReadonlySet<string>): Map<string, M> {
  const out = new Map<string, M>();
  const add = (key: string, meta: M) => {
    if (!only || only.has(key)) out.set(key, meta);
  };
  for (const call of plan.calls())
    call.items.forEach((item, i) => {
      add(verdictKeyString(item.key), call.meta[i]!);
    });
  for (const t of plan.trivial()) add(verdictKeyString(t.item.key), t.meta);
  return out;
}
