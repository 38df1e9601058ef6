// One side's answers to one question as a frequency table: its distinct values in ascending order, each
// with how many gave it. Every statistic of the comparison reads this table, never the raw answers, so
// 1,000,000 Likert votes cost five numbers, and the figures do not depend on the order answers came in.

/** Distinct values, ascending, with their counts; `n` is the sum of the counts. */
export interface Distribution {
  readonly values: Float64Array;
  readonly counts: Float64Array;
  readonly n: number;
}

/** The widest range of whole numbers counted in an array of counters rather than sorted. */
const MOST_COUNTERS = 1 << 16;

/** The frequency table of some numbers (which must be finite: the readers check that first). */
export function distributionOf(answers: ArrayLike<number>): Distribution {
  const n = answers.length;
  // Whole numbers in a narrow range (a scale, a rank, yes/no) are counted in an array; others are sorted.
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  let whole = true;
  for (let i = 0; i < n; i++) {
    const v = answers[i]!;
    if (v < low) low = v;
    if (v > high) high = v;
    if (Math.trunc(v) !== v) {
      whole = false;
      break;
    }
  }
  if (!whole || high - low >= MOST_COUNTERS) return sortedDistribution(answers);
  const counters = new Float64Array(n === 0 ? 0 : high - low + 1);
  for (let i = 0; i < n; i++) counters[answers[i]! - low]!++;
  const values: number[] = [];
  const counts: number[] = [];
  counters.forEach((c, i) => {
    if (c > 0) {
      values.push(low + i);
      counts.push(c);
    }
  });
  return { values: Float64Array.from(values), counts: Float64Array.from(counts), n };
}

function sortedDistribution(answers: ArrayLike<number>): Distribution {
  const sorted = (answers instanceof Float64Array ? answers.slice() : Float64Array.from(answers)).sort();
  const values = new Float64Array(sorted.length);
  const counts = new Float64Array(sorted.length);
  let k = -1;
  for (let i = 0; i < sorted.length; i++) {
    if (k >= 0 && sorted[i] === values[k]) counts[k]!++;
    else {
      values[++k] = sorted[i]!;
      counts[k] = 1;
    }
  }
  return { values: values.slice(0, k + 1), counts: counts.slice(0, k + 1), n: sorted.length };
}

/** The table of a value → count map (counts of 0 are kept: a scale point nobody chose is still a point). */
export function fromCounts(counts: ReadonlyMap<number, number>): Distribution {
  const values = Float64Array.from(counts.keys()).sort();
  const table = Float64Array.from(values, (v) => counts.get(v)!);
  let n = 0;
  for (const c of table) n += c;
  return { values, counts: table, n };
}

/** Mean and sample variance (ddof 1) of a table; null where undefined (no answers; fewer than 2). */
export function moments(d: Distribution): { mean: number | null; variance: number | null } {
  if (d.n === 0) return { mean: null, variance: null };
  let sum = 0;
  for (let i = 0; i < d.values.length; i++) sum += d.values[i]! * d.counts[i]!;
  const mean = sum / d.n;
  if (d.n < 2) return { mean, variance: null };
  // Two passes, as NumPy's var: the squared deviations from the mean, not E[x²] − E[x]².
  let squares = 0;
  for (let i = 0; i < d.values.length; i++) {
    const deviation = d.values[i]! - mean;
    squares += deviation * deviation * d.counts[i]!;
  }
  return { mean, variance: squares / (d.n - 1) };
}

/** Shannon entropy of the table's shares in bits (SciPy's `entropy(counts, base=2)`); null with no answers. */
export function entropyBits(counts: ArrayLike<number>): number | null {
  let n = 0;
  for (let i = 0; i < counts.length; i++) n += counts[i]!;
  if (n === 0) return null;
  let h = 0;
  for (let i = 0; i < counts.length; i++) {
    const p = counts[i]! / n;
    if (p > 0) h -= p * Math.log(p);
  }
  return h / Math.LN2;
}
