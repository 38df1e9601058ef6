// Typo suggestions: the Levenshtein distance and the nearest of some known names, for "did you mean …?".

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
export function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * The known name nearest to `name` when it is a typo away (at most `within` edits, by default 2, or a
 * quarter of the name for long names), else undefined. Ties go to the first in sorted order, so the
 * suggestion does not depend on the order `known` comes in.
 */
export function nearestName(
  name: string,
  known: Iterable<string>,
  within = Math.max(2, Math.floor(name.length / 4)),
): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of [...known].sort()) {
    if (candidate === name) continue;
    const distance = editDistance(name, candidate);
    if (distance <= within && (best === undefined || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}
