// Word n-grams of a token list, as space-joined strings: the simple, readable form of what
// ngram-index.ts counts with numeric keys for large inputs.

/** The n-grams of `tokens` in order, each its tokens joined by one space; [] when there are fewer than n. */
export function ngrams(tokens: readonly string[], n: number): string[] {
  assertOrder(n);
  const out: string[] = [];
  for (let i = 0; i + n <= tokens.length; i++) out.push(tokens.slice(i, i + n).join(" "));
  return out;
}

/** How often each n-gram of `tokens` occurs, in order of first occurrence. */
export function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const gram of ngrams(tokens, n)) counts.set(gram, (counts.get(gram) ?? 0) + 1);
  return counts;
}

/** Throws a RangeError unless `n` is a positive integer (a programming error, not bad input). */
export function assertOrder(n: number): void {
  if (!Number.isInteger(n) || n < 1)
    throw new RangeError(`n-gram order must be a positive integer, got ${n}`);
}
