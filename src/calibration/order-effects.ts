// Batch-mode bias (issue 39, point 4): the labelled items judged individually, in batches, and in batches with
// each call's claims shuffled, to show how far sharing a call with other claims (batching) and a claim's place
// in the call (position) move the judge's scores, beside each condition's agreement with the people.
import {
  compareCodeUnits,
  InputError,
  seededRandom,
  type TokenUsage,
  type Verdict,
  verdictKeyString,
} from "../core/index.ts";
import { executePlan, type JudgePlan, type PlannedCall } from "../engine/index.ts";
import { CachingJudge, type Judge } from "../judge/index.ts";
import type { StoredPersonaInput } from "../personas/index.ts";
import { agreement, type Interval } from "./agreement.ts";
import { type LabelItem, labelItemKey, labelTarget } from "./label-items.ts";
import { labelledPlan } from "./labelled-plan.ts";

/** The three ways the labelled items are judged, in the order they are judged and reported. */
export const ORDER_EFFECT_CONDITIONS = ["individual", "batch", "batch_shuffled"] as const;
export type OrderEffectCondition = (typeof ORDER_EFFECT_CONDITIONS)[number];

/** The largest moves listed per effect. */
export const MAX_ORDER_MOVES = 5;

export interface OrderEffectsOptions {
  /** The persona input the labels are of: transcript and propositions (a stored evaluation's, or prepared). */
  kept: StoredPersonaInput;
  /** The labelled items (`labelItems`). */
  items: readonly LabelItem[];
  /**
   * The judge, as is: NOT behind the verdict cache. A cached verdict would be the same whatever the batch or
   * the order, and so hide exactly what is measured; a `CachingJudge` is refused.
   */
  judge: Judge;
  /** Judge each item N times per condition; its score is the mean of its trials rounded half up. Default 1. */
  trials?: number;
  /** Seed of the claim shuffle and of the bootstrap. Default 1. */
  seed?: number;
  /** Bootstrap resamples for the agreement CIs; 0 (the default) computes none. */
  resamples?: number;
  /** Judge calls in flight. Default: the engine's. */
  concurrency?: number;
  signal?: AbortSignal;
}

/** One condition: its scores' agreement with the people, and what judging it cost. */
export interface OrderEffectsCondition {
  condition: OrderEffectCondition;
  /** Labelled items. */
  n: number;
  /** Items with a score (the rest errored in every trial, or were not planned). */
  n_judged: number;
  kappa_quadratic: number | null;
  mae: number | null;
  bias: number | null;
  exact: number | null;
  /** Only when resamples were asked for. */
  ci?: { kappa_quadratic: Interval; mae: Interval; bias: Interval };
  /** Judge requests sent to a provider (the verdict cache's answers and a fixture judge's are none). */
  requests: number;
  /** Model calls the judge made (retries and double checks included; 0 for judges without a model). */
  calls: number;
  token_usage: TokenUsage;
  /** Verdicts the judge failed to give: counted here, never scored. */
  errored: number;
}

/** How far scores moved from one condition to another, over the items scored in both. */
export interface ScoreShift {
  /** Items compared. */
  n: number;
  /** Mean (to − from); null when no item was compared. */
  mean_delta: number | null;
  /** Mean |to − from|. */
  mean_abs_delta: number | null;
  /** Share of the items whose score changed. */
  changed: number | null;
}

/** One item whose score moved, with both scores. */
export interface ScoreMove {
  dimension: string;
  proposition_id: string;
  agent_id?: string;
  message_id?: string;
  channel?: string;
  /** The score in the `from` condition. */
  from: number;
  /** The score in the `to` condition. */
  to: number;
}

export interface OrderEffect extends ScoreShift {
  from: OrderEffectCondition;
  to: OrderEffectCondition;
  /** The largest |to − from| first (ties in item order), at most {@link MAX_ORDER_MOVES}; unmoved items left out. */
  largest_moves: ScoreMove[];
  propositions: (ScoreShift & { dimension: string; proposition_id: string })[];
}

/** The claims judged at one place of their batch call, against the same claims judged alone. */
export interface PositionShift {
  /** 1 for the first claim of a call. */
  position: number;
  /** Verdicts at this place, over both batch conditions. */
  n: number;
  /** Mean (score here − the item's mean score judged alone). */
  mean_delta: number | null;
}

export interface OrderEffects {
  /** Always bypassed: a cached verdict would not move with the batch or the order, hiding the effect measured. */
  verdict_cache: "bypassed";
  judge: { provider: string; model: string };
  trials: number;
  seed: number;
  resamples: number;
  /** Labelled items. */
  items: number;
  /** Items that shared a batch call with another claim: the only ones batching or position can move. */
  batched_items: number;
  /**
   * Items alone in their batch call: asked exactly as individually, so neither batching nor position can
   * move them; left out of both effects (they are in each condition's agreement).
   */
  alone_items: number;
  /** Items the judge was not asked about (a verdict given without it, or none planned): in no effect. */
  unasked_items: number;
  /** Verdicts of batched items that the shuffle left at their place (the middle of three, say). */
  unmoved_by_shuffle: number;
  conditions: OrderEffectsCondition[];
  /** Batch against individual: the batching effect. */
  batching: OrderEffect;
  /** Shuffled batches against batches: the position effect. */
  position: OrderEffect & {
    /**
     * By place in the call, over both batch conditions, against the same items judged alone: a level the
     * same at every place is the batching effect, a slope is the position effect.
     */
    by_position: PositionShift[];
  };
}

/** Where a planned claim sits: its place in its call and how many claims the call holds. */
interface Placement {
  position: number;
  size: number;
}

/** A condition's verdicts by verdict key, each with its placement, and what they cost. */
interface Judged {
  verdicts: Map<string, { verdict: Verdict; placement: Placement }>;
  requests: number;
  calls: number;
  usage: TokenUsage;
}

/**
 * Judges the labelled items individually, in batches, and in batches whose claims are shuffled in each call
 * (seeded), straight through the judge (never the verdict cache), and reports how far batching and position
 * move the raw scores, beside each condition's agreement with the people. The same verdicts give the same
 * document whatever order they arrive in.
 *
 * ```ts
 * const effects = await measureOrderEffects({ kept, items: labelItems(set, kept), judge: createJudge(spec) });
 * console.log(effects.batching.mean_delta, effects.position.by_position);
 * ```
 */
export async function measureOrderEffects({
  kept,
  items,
  judge,
  trials = 1,
  seed = 1,
  resamples = 0,
  concurrency,
  signal,
}: OrderEffectsOptions): Promise<OrderEffects> {
  if (!Number.isInteger(trials) || trials < 1)
    throw new InputError("expected an integer of 1 or more", { place: "trials" });
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32)
    throw new InputError(`expected an integer 0 ≤ seed < 2^32, got ${String(seed)}`, { place: "seed" });
  if (judge instanceof CachingJudge)
    throw new TypeError(
      "order effects are measured on the judge itself: give it without the verdict cache (prepareJudge with cache: false)",
    );
  const sorted = [...items]
    .map((item) => ({ item, key: itemKeyOf(item) }))
    .sort((a, b) => compareCodeUnits(a.key, b.key));

  const plans: Record<OrderEffectCondition, JudgePlan<Placement>> = {
    individual: placed(labelledPlan(kept, items, { mode: "individual", trials })),
    batch: placed(labelledPlan(kept, items, { mode: "batch", trials })),
    // Placed after the shuffle: a claim's place is where it is asked.
    batch_shuffled: placed(shuffled(labelledPlan(kept, items, { mode: "batch", trials }), seed)),
  };
  // One after the other, so that each condition's calls and tokens are its own.
  const judged = {} as Record<OrderEffectCondition, Judged>;
  for (const condition of ORDER_EFFECT_CONDITIONS)
    judged[condition] = await judgeAll(plans[condition], judge, concurrency, signal);

  // An item's batch calls, from the plan (not the verdicts, so that an errored verdict changes nothing here).
  const batchSize = new Map<string, number>();
  for (const call of plans.batch.calls())
    for (const item of call.items) {
      const key = targetKeyOf(item.key);
      batchSize.set(key, Math.max(batchSize.get(key) ?? 0, call.items.length));
    }
  const batched = sorted.filter(({ key }) => (batchSize.get(key) ?? 0) >= 2);
  const alone = sorted.filter(({ key }) => batchSize.get(key) === 1).length;

  const scores = {} as Record<OrderEffectCondition, (number | null)[]>;
  const conditions = ORDER_EFFECT_CONDITIONS.map((condition): OrderEffectsCondition => {
    const { verdicts, requests, calls, usage } = judged[condition];
    scores[condition] = sorted.map(({ item }) => scoreOf(item, trials, verdicts));
    const stats = agreement(
      sorted.map(({ item }, i) => ({
        judge: scores[condition][i] ?? null,
        raters: item.raters.map((r) => r.score),
      })),
      { resamples, seed },
    );
    let errored = 0;
    for (const { verdict } of verdicts.values()) if (!verdict.ok) errored++;
    return {
      condition,
      n: stats.n,
      n_judged: stats.n_judged,
      kappa_quadratic: stats.kappa_quadratic,
      mae: stats.mae,
      bias: stats.bias,
      exact: stats.exact,
      ...(resamples > 0
        ? { ci: { kappa_quadratic: stats.ci.kappa_quadratic, mae: stats.ci.mae, bias: stats.ci.bias } }
        : {}),
      requests,
      calls,
      token_usage: usage,
      errored,
    };
  });

  const index = new Map(sorted.map(({ key }, i) => [key, i]));
  const compare = (from: OrderEffectCondition, to: OrderEffectCondition): OrderEffect => {
    const pairs = batched.flatMap(({ item, key }) => {
      const a = scores[from][index.get(key)!];
      const b = scores[to][index.get(key)!];
      return a === null || a === undefined || b === null || b === undefined ? [] : [{ item, from: a, to: b }];
    });
    return {
      from,
      to,
      ...shiftOf(pairs),
      largest_moves: pairs
        .map((p, order) => ({ p, order, gap: Math.abs(p.to - p.from) }))
        .filter(({ gap }) => gap > 0)
        .sort((a, b) => b.gap - a.gap || a.order - b.order)
        .slice(0, MAX_ORDER_MOVES)
        .map(({ p }) => ({ ...labelTarget(p.item), from: p.from, to: p.to })),
      propositions: groupBy(pairs, (p) => `${p.item.dimension}\u0000${p.item.proposition_id}`).map(
        (group) => ({
          dimension: group[0]!.item.dimension,
          proposition_id: group[0]!.item.proposition_id,
          ...shiftOf(group),
        }),
      ),
    };
  };

  return {
    verdict_cache: "bypassed",
    judge: { provider: judge.descriptor.provider, model: judge.descriptor.model },
    trials,
    seed,
    resamples,
    items: sorted.length,
    batched_items: batched.length,
    alone_items: alone,
    unasked_items: sorted.length - batched.length - alone,
    unmoved_by_shuffle: unmovedByShuffle(judged.batch, judged.batch_shuffled),
    conditions,
    batching: compare("individual", "batch"),
    position: {
      ...compare("batch", "batch_shuffled"),
      by_position: byPosition(batched, trials, judged),
    },
  };
}

/** The key of an item and of its verdicts, trial aside: what items are sorted and matched by. */
function itemKeyOf(item: LabelItem): string {
  return verdictKeyString(labelItemKey(item, 1));
}

function targetKeyOf(key: Verdict["key"]): string {
  return verdictKeyString({ ...key, trial: 1 });
}

/** The plan with each claim's place in its call as its metadata (the engine hands it back with the verdict). */
function placed<M>(plan: JudgePlan<M>): JudgePlan<Placement> {
  return {
    *calls() {
      for (const call of plan.calls())
        yield {
          ...call,
          meta: call.items.map((_, position) => ({ position, size: call.items.length })),
        } satisfies PlannedCall<Placement>;
    },
    *trivial() {
      for (const t of plan.trivial()) yield { ...t, meta: { position: 0, size: 0 } };
    },
  };
}

/**
 * The plan with every call of two or more claims in a seeded order other than the plan's own (a shuffle that
 * leaves a call as it was is drawn again, or the call would measure nothing). Items and their metadata move
 * together; the generator restarts with each pass over the plan, so every pass gives the same order.
 */
function shuffled<M>(plan: JudgePlan<M>, seed: number): JudgePlan<M> {
  return {
    *calls() {
      const random = seededRandom(seed);
      for (const call of plan.calls()) {
        const n = call.items.length;
        if (n < 2) {
          yield call;
          continue;
        }
        let order: number[];
        do {
          order = call.items.map((_, i) => i);
          for (let i = n - 1; i > 0; i--) {
            const j = Math.floor(random() * (i + 1));
            [order[i], order[j]] = [order[j]!, order[i]!];
          }
        } while (order.every((from, to) => from === to));
        yield { ...call, items: order.map((i) => call.items[i]!), meta: order.map((i) => call.meta[i]!) };
      }
    },
    trivial: () => plan.trivial(),
  };
}

/** Runs a plan straight through the judge (no cache, no store), keeping every verdict by key. */
async function judgeAll(
  plan: JudgePlan<Placement>,
  judge: Judge,
  concurrency: number | undefined,
  signal: AbortSignal | undefined,
): Promise<Judged> {
  const verdicts: Judged["verdicts"] = new Map();
  const result = await executePlan(plan, {
    judge,
    concurrency,
    signal,
    onVerdicts: (scored) => {
      for (const { verdict, meta } of scored)
        verdicts.set(verdictKeyString(verdict.key), { verdict, placement: meta });
    },
  });
  return { verdicts, requests: result.sent, calls: result.calls, usage: { ...result.usage } };
}

/** An item's score in a condition: the mean of its scored trials, rounded half up; null when none scored. */
function scoreOf(item: LabelItem, trials: number, verdicts: Judged["verdicts"]): number | null {
  let sum = 0;
  let scored = 0;
  for (let trial = 1; trial <= trials; trial++) {
    const found = verdicts.get(verdictKeyString(labelItemKey(item, trial)))?.verdict;
    if (found?.ok && found.score !== undefined) {
      sum += found.score;
      scored++;
    }
  }
  // Half up, as calibrate rounds the trials' mean: κ and exact agreement compare 0–9 integers.
  return scored === 0 ? null : Math.floor(sum / scored + 0.5);
}

/** Verdicts of batched claims the shuffle left where they were. */
function unmovedByShuffle(batch: Judged, shuffledBatch: Judged): number {
  let unmoved = 0;
  for (const [key, { placement }] of batch.verdicts) {
    if (placement.size < 2) continue;
    if (shuffledBatch.verdicts.get(key)?.placement.position === placement.position) unmoved++;
  }
  return unmoved;
}

/**
 * Mean Δ by place in the call, over every scored verdict of a batched item in both batch conditions, against
 * the item's mean score judged alone (its individual trials, unrounded). Summed in item, trial, condition
 * order, so the figures do not depend on arrival.
 */
function byPosition(
  batched: readonly { item: LabelItem }[],
  trials: number,
  judged: Record<OrderEffectCondition, Judged>,
): PositionShift[] {
  const sums: { n: number; sum: number }[] = [];
  for (const { item } of batched) {
    const alone: number[] = [];
    for (let trial = 1; trial <= trials; trial++) {
      const v = judged.individual.verdicts.get(verdictKeyString(labelItemKey(item, trial)))?.verdict;
      if (v?.ok && v.score !== undefined) alone.push(v.score);
    }
    if (alone.length === 0) continue;
    const reference = alone.reduce((s, x) => s + x, 0) / alone.length;
    for (let trial = 1; trial <= trials; trial++)
      for (const condition of ["batch", "batch_shuffled"] as const) {
        const found = judged[condition].verdicts.get(verdictKeyString(labelItemKey(item, trial)));
        if (!found?.verdict.ok || found.verdict.score === undefined) continue;
        const at = (sums[found.placement.position] ??= { n: 0, sum: 0 });
        at.n++;
        at.sum += found.verdict.score - reference;
      }
  }
  return Array.from(sums, (at, position) => ({
    position: position + 1,
    n: at?.n ?? 0,
    mean_delta: at && at.n > 0 ? at.sum / at.n : null,
  }));
}

function shiftOf(pairs: readonly { from: number; to: number }[]): ScoreShift {
  const n = pairs.length;
  if (n === 0) return { n, mean_delta: null, mean_abs_delta: null, changed: null };
  // Scores are integers: the sums are exact whatever their order.
  let signed = 0;
  let absolute = 0;
  let changed = 0;
  for (const { from, to } of pairs) {
    signed += to - from;
    absolute += Math.abs(to - from);
    if (to !== from) changed++;
  }
  return { n, mean_delta: signed / n, mean_abs_delta: absolute / n, changed: changed / n };
}

/** Groups in code-unit order of the key, each in the order given. */
function groupBy<T>(values: readonly T[], keyOf: (value: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const key = keyOf(value);
    const group = groups.get(key);
    if (group) group.push(value);
    else groups.set(key, [value]);
  }
  return [...groups].sort(([a], [b]) => compareCodeUnits(a, b)).map(([, group]) => group);
}
