// Set and multiset similarities in [0, 1]: Jaccard of sets, of word vocabularies, and of character
// counts (textdistance's default Jaccard), used by the action gate's "too similar" check.
import { tokenize } from "./tokenize.ts";

/**
 * |A ∩ B| / |A ∪ B|. Two empty sets are identical and give 1; one empty set gives 0 — the same
 * conventions as textdistance.
 */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const item of small) if (large.has(item)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Jaccard of the two texts' sets of word tokens (lowercased, punctuation ignored; see `tokenize`). */
export function wordJaccard(a: string, b: string): number {
  return jaccard(new Set(tokenize(a)), new Set(tokenize(b)));
}

/**
 * textdistance's default `jaccard(a, b)`: over the multisets of characters (code points, case kept),
 * Σ min(countA, countB) / Σ max(countA, countB). Identical strings (even two empty ones) give 1;
 * otherwise an empty string gives 0.
 */
export function characterMultisetJaccard(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of a) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  // Walk b: each character either matches one still unmatched in a (min) or adds to the union (max).
  let intersection = 0;
  let extraInB = 0;
  for (const ch of b) {
    const left = counts.get(ch) ?? 0;
    if (left > 0) {
      counts.set(ch, left - 1);
      intersection++;
    } else {
      extraInB++;
    }
  }
  let unmatchedInA = 0;
  for (const left of counts.values()) unmatchedInA += left;
  return intersection / (intersection + unmatchedInA + extraInB);
}
