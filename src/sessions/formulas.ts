// The seed's score formulas: the session's overall score and each agent's, as weighted averages of the
// metrics that apply. A metric that does not apply (no tools, no thoughts, no handoff) or that the judge
// could not give is left out, the remaining weights renormalised, and the result says which were left out.

/** Why a metric is missing from a weighted average. */
export type LeftOutReason = "not_applicable" | "not_judged" | "errored";

/** A metric's value, or why there is none. */
export type MetricValue = number | { missing: LeftOutReason };

export interface WeightedScore {
  /** null when no metric could be used. */
  value: number | null;
  /** The weights used, renormalised to sum to 1. */
  weights: Record<string, number>;
  left_out: { metric: string; reason: LeftOutReason }[];
}

/** The overall score's parts and weights (seed: conversation 0.30, tool use 0.25, coordination 0.20, reasoning 0.15, 1 − drift 0.10). */
export const OVERALL_WEIGHTS = {
  conversation_score: 0.3,
  tool_use_score: 0.25,
  coordination_score: 0.2,
  reasoning_score: 0.15,
  staying_on_task: 0.1,
} as const;

/** An agent's score parts and weights (seed: tool use 0.35, reasoning 0.25, handoff 0.20, response quality 0.20). */
export const AGENT_WEIGHTS = {
  tool_use: 0.35,
  reasoning: 0.25,
  handoff: 0.2,
  response_quality: 0.2,
} as const;

/** The weighted average of the metrics that have a value, weights renormalised over them. */
export function weightedScore<K extends string>(
  weights: Readonly<Record<K, number>>,
  values: Readonly<Record<K, MetricValue>>,
): WeightedScore {
  const used: [K, number, number][] = [];
  const left_out: WeightedScore["left_out"] = [];
  for (const metric of Object.keys(weights) as K[]) {
    const v = values[metric];
    if (typeof v === "number") used.push([metric, weights[metric], v]);
    else left_out.push({ metric, reason: v.missing });
  }
  const total = used.reduce((sum, [, w]) => sum + w, 0);
  if (used.length === 0 || total === 0) return { value: null, weights: {}, left_out };
  const renormalised: Record<string, number> = {};
  let value = 0;
  for (const [metric, w, v] of used) {
    renormalised[metric] = w / total;
    value += (w / total) * v;
  }
  return { value, weights: renormalised, left_out };
}

/** The mean of the numbers among `values`, or why there is none: not applicable when none applied. */
export function meanMetric(values: readonly MetricValue[]): MetricValue {
  const numbers = values.filter((v): v is number => typeof v === "number");
  if (numbers.length > 0) return numbers.reduce((a, b) => a + b, 0) / numbers.length;
  const reasons = values.map((v) => (typeof v === "number" ? undefined : v.missing));
  if (reasons.includes("errored")) return { missing: "errored" };
  if (reasons.includes("not_judged")) return { missing: "not_judged" };
  return { missing: "not_applicable" };
}

/** A metric's value for a report: the number, or null. */
export function reported(value: MetricValue): number | null {
  return typeof value === "number" ? value : null;
}

// pass^k moved to core/ (conversation trials use it too); re-exported for the sessions surface.
export { passHatK, passK } from "../core/index.ts";
