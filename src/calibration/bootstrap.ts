// The bootstrap's two pieces of machinery: a seeded generator of uniform indices, so that a seed gives the
// same resamples (and so the same CI) bit for bit on every machine, and the percentile interval.

/**
 * xoshiro128** (Blackman & Vigna, 2018), its 128-bit state filled from the seed by splitmix32
 * (golden-ratio increment, the 0x21f0aaad / 0x735a2d97 finaliser of Wellons' hash prospector). Ours because
 * @stdlib/random-base-mt19937 is not a dependency; not core's `seededRandom` (mulberry32) because its period
 * is 2^32 and one 1,000-resample bootstrap of 100,000 items draws 10^8 numbers. Integer-only (`Math.imul`,
 * shifts), so every engine produces the same stream.
 */
export class IndexSampler {
  // In an Int32Array rather than four fields: V8 boxes a field's 32-bit value outside its 31-bit small
  // integers, which made each draw allocate and the bootstrap three times slower.
  readonly #state = new Int32Array(4);
  #n = 0;
  #mask = 0;

  /** @param seed an integer 0 ≤ seed < 2^32. */
  constructor(seed: number) {
    let x = seed | 0;
    for (let i = 0; i < 4; i++) {
      x = (x + 0x9e3779b9) | 0;
      let z = x ^ (x >>> 16);
      z = Math.imul(z, 0x21f0aaad);
      z ^= z >>> 15;
      z = Math.imul(z, 0x735a2d97);
      this.#state[i] = z ^ (z >>> 15);
    }
    // An all-zero state would emit zeros forever; splitmix32 makes it practically impossible, this makes it so.
    if (this.#state.every((word) => word === 0)) this.#state[0] = 1;
  }

  /** The next 32-bit output, as a signed integer (its bits are what matter). */
  nextInt32(): number {
    const s = this.#state;
    const s0 = s[0]!;
    const s1 = s[1]!;
    const product = Math.imul(s1, 5);
    const result = Math.imul((product << 7) | (product >>> 25), 9);
    const s2 = s[2]! ^ s0;
    const s3 = s[3]! ^ s1;
    s[1] = s1 ^ s2;
    s[0] = s0 ^ s3;
    s[2] = s2 ^ (s1 << 9);
    s[3] = (s3 << 11) | (s3 >>> 21);
    return result;
  }

  /** The next 32-bit output, as an unsigned integer. */
  nextUint32(): number {
    return this.nextInt32() >>> 0;
  }

  /**
   * A uniform integer in [0, n), 1 ≤ n ≤ 2^31, without the modulo bias: draws masked to the next power of
   * two are rejected until one falls below n (fewer than two draws on average).
   */
  below(n: number): number {
    if (n !== this.#n) {
      if (!Number.isInteger(n) || n < 1 || n > 2 ** 31)
        throw new RangeError(`expected 1 ≤ n ≤ 2^31, got ${n}`);
      this.#n = n;
      this.#mask = n === 1 ? 0 : 2 ** Math.ceil(Math.log2(n)) - 1;
    }
    for (;;) {
      const x = (this.nextInt32() & this.#mask) >>> 0;
      if (x < n) return x;
    }
  }
}

/**
 * The q-quantile of ascending `sorted` values by linear interpolation between order statistics (Hyndman &
 * Fan type 7, NumPy's default), so the interval is what `np.percentile` gives on the same resamples.
 */
export function quantileSorted(sorted: Float64Array | readonly number[], q: number): number {
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const lower = sorted[below]!;
  if (below + 1 >= sorted.length) return lower;
  return lower + (sorted[below + 1]! - lower) * (position - below);
}

/** A percentile 95 % interval of the values the resamples gave; null when none gave one. */
export function percentileInterval(values: Float64Array, defined: number): [number, number] | null {
  if (defined === 0) return null;
  const sorted = values.slice(0, defined).sort();
  return [quantileSorted(sorted, 0.025), quantileSorted(sorted, 0.975)];
}
