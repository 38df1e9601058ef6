// Seeded sampling: the same seed always picks the same messages, so a sampled run can be repeated.

/** mulberry32: a small, well-distributed 32-bit PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks `n` items uniformly without replacement and returns them in their original order. */
export function sampleInOrder<T>(items: readonly T[], n: number, seed: number): T[] {
  if (n >= items.length) return [...items];
  const random = seededRandom(seed);
  const indices = items.map((_, i) => i);
  // Partial Fisher–Yates: the first n positions become the sample.
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(random() * (indices.length - i));
    [indices[i], indices[j]] = [indices[j]!, indices[i]!];
  }
  return indices
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}
