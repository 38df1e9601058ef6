// Score math: inverted and hard propositions, proposition means, weight-normalised dimension scores.
// Means over verdicts never depend on the order the verdicts came in (see ScoreCounts).

export const MIN_SCORE = 0;
export const MAX_SCORE = 9;
/** `hard: true` multiplies any score below 9 by this factor. */
export const HARD_PENALTY = 0.8;
/** {@link HARD_PENALTY} in tenths, for exact sums. */
const HARD_PENALTY_TENTHS = Math.round(HARD_PENALTY * 10);

/** One verdict's score after `inverted` (9 - raw) and then `hard` (x0.8 when below 9). */
export function verdictScore(
  raw: number,
  { inverted = false, hard = false }: { inverted?: boolean; hard?: boolean },
): number {
  const s = inverted ? MAX_SCORE - raw : raw;
  return hard && s < MAX_SCORE ? s * HARD_PENALTY : s;
}

/**
 * The scores of a proposition's verdicts (after inversion, before the hard penalty), counted by value, and
 * their mean. Floating-point sums depend on the order of their terms, and verdicts arrive in any order
 * (concurrency, a resume, a reuse): the counts do not, and the mean is summed over them in ascending value.
 * For whole scores (the judge's 0–9) it is exact: the sum is an integer number of tenths (a hard penalty is
 * ×8/10), and the mean is one division, so any arrival order gives the same bits.
 */
export class ScoreCounts {
  private readonly byValue = new Map<number, number>();
  private total = 0;

  /** How many scores were added. */
  get size(): number {
    return this.total;
  }

  add(score: number): void {
    this.byValue.set(score, (this.byValue.get(score) ?? 0) + 1);
    this.total++;
  }

  /** The mean score, with `hard`'s penalty applied to each score below 9; null when none was added. */
  mean({ hard = false }: { hard?: boolean } = {}): number | null {
    if (this.total === 0) return null;
    let tenths = 0;
    for (const value of [...this.byValue.keys()].sort((a, b) => a - b))
      tenths += value * this.byValue.get(value)! * (hard && value < MAX_SCORE ? HARD_PENALTY_TENTHS : 10);
    return tenths / (10 * this.total);
  }
}

/** Arithmetic mean in the order given (callers give a fixed one), or null for no values. */
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
