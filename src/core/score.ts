// Score math: inverted and hard propositions, proposition means, weight-normalised dimension scores.

export const MIN_SCORE = 0;
export const MAX_SCORE = 9;
/** `hard: true` multiplies any score below 9 by this factor. */
export const HARD_PENALTY = 0.8;

/** One verdict's score after `inverted` (9 - raw) and then `hard` (x0.8 when below 9). */
export function verdictScore(
  raw: number,
  { inverted = false, hard = false }: { inverted?: boolean; hard?: boolean },
): number {
  const s = inverted ? MAX_SCORE - raw : raw;
  return hard && s < MAX_SCORE ? s * HARD_PENALTY : s;
}

/** Arithmetic mean, or null for no values. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Weight-normalised mean of proposition scores. Propositions without a score (all verdicts errored,
 * or nothing to judge) are left out; null when none has a score or their weights sum to zero.
 */
export function weightedScore(items: readonly { weight: number; score: number | null }[]): number | null {
  let total = 0;
  let weights = 0;
  for (const { weight, score } of items) {
    if (score === null) continue;
    total += weight * score;
    weights += weight;
  }
  return weights > 0 ? total / weights : null;
}

/** Rounds for display and stable files (fixed precision). */
export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
