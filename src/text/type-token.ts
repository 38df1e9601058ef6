// Lexical diversity: the raw type-token ratio, and MATTR (Covington & McFall 2010), its moving-average
// form, which does not fall as texts get longer.

/** Default MATTR window, in tokens. */
export const MATTR_WINDOW = 50;

/** Distinct tokens / tokens; 0 for no tokens. */
export function typeTokenRatio(tokens: readonly string[]): number {
  return tokens.length === 0 ? 0 : new Set(tokens).size / tokens.length;
}

/**
 * Mean type-token ratio over every window of `window` consecutive tokens. With fewer tokens than a
 * window it is the raw type-token ratio; 0 for no tokens.
 */
export function movingAverageTypeTokenRatio(tokens: readonly string[], window = MATTR_WINDOW): number {
  const ids = new Map<string, number>();
  const stream = tokens.map((t) => {
    let id = ids.get(t);
    if (id === undefined) ids.set(t, (id = ids.size));
    return id;
  });
  return mattrOfIds(stream, ids.size, window);
}

/** MATTR of a stream of token ids below `idLimit`, sliding one window of counts along it. */
export function mattrOfIds(ids: ArrayLike<number>, idLimit: number, window: number): number {
  if (!Number.isInteger(window) || window < 1)
    throw new RangeError(`MATTR window must be a positive integer, got ${window}`);
  const length = ids.length;
  if (length === 0) return 0;
  const counts = new Int32Array(idLimit);
  let distinct = 0;
  if (length <= window) {
    for (let i = 0; i < length; i++) if (counts[ids[i]!]!++ === 0) distinct++;
    return distinct / length;
  }
  for (let i = 0; i < window; i++) if (counts[ids[i]!]!++ === 0) distinct++;
  let sum = distinct;
  for (let i = window; i < length; i++) {
    if (--counts[ids[i - window]!]! === 0) distinct--;
    if (counts[ids[i]!]!++ === 0) distinct++;
    sum += distinct;
  }
  return sum / (length - window + 1) / window;
}
