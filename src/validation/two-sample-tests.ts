// The tests that compare one question's real answers with its simulated ones, each from the two frequency
// tables: Welch's t, Pearson's χ² on category × source (with a seeded Monte-Carlo p when expected counts are
// small), the two-sample Kolmogorov–Smirnov test, and the Wasserstein-1 distance. The distributions are
// @stdlib's (Student's t CDF, the regularised upper incomplete gamma for χ²); each figure is the one SciPy 1.17 gives for the same data (test/validation/scipy-reference.test.ts).
import { createRequire } from "node:module";
import type gammainc from "@stdlib/math-base-special-gammainc";
import type tCdf from "@stdlib/stats-base-dists-t-cdf";
import { seededRandom } from "../core/index.ts";
import { type Distribution, moments } from "./distribution.ts";
import { exactKsP, gcd } from "./ks-exact.ts";

interface Stdlib {
  gammainc: typeof gammainc;
  tCdf: typeof tCdf;
}
let stdlib: Stdlib | undefined;
/** @stdlib's modules are required at the first comparison, not when dramaturg loads. */
function library(): Stdlib {
  if (!stdlib) {
    const requireHere = createRequire(import.meta.url);
    stdlib = {
      gammainc: requireHere("@stdlib/math-base-special-gammainc"),
      tCdf: requireHere("@stdlib/stats-base-dists-t-cdf"),
    };
  }
  return stdlib;
}

/** Welch's unequal-variance t-test of simulated − real: SciPy's `ttest_ind(simulated, real, equal_var=False)`. */
export interface WelchTest {
  t: number;
  df: number;
  /** Two-sided. */
  p: number;
}

/** Welch's test, or null (with why) when a side has fewer than 2 answers or neither side varies. */
export function welchTest(real: Distribution, simulated: Distribution): WelchTest | string {
  const r = moments(real);
  const s = moments(simulated);
  if (r.variance === null || s.variance === null) return "a side has fewer than 2 answers";
  if (r.variance === 0 && s.variance === 0) return "neither side varies";
  const vr = r.variance / real.n;
  const vs = s.variance / simulated.n;
  const t = (s.mean! - r.mean!) / Math.sqrt(vr + vs);
  // Welch–Satterthwaite, written as SciPy's _unequal_var_ttest_denom writes it.
  const df = (vr + vs) ** 2 / (vr ** 2 / (real.n - 1) + vs ** 2 / (simulated.n - 1));
  const p = 2 * library().tCdf(-Math.abs(t), df);
  return { t, df, p: Math.min(1, p) };
}

/** Pearson's χ² on the 2 × k table of category × source: SciPy's `chi2_contingency(table, correction=False)`. */
export interface ChiSquareTest {
  statistic: number;
  df: number;
  p: number;
  /** The least expected count of a cell. */
  min_expected: number;
  /** How many cells expect fewer than `smallExpected` answers (the χ² p is then approximate). */
  small_expected_cells: number;
  cells: number;
  /**
   * Only when some expected count is small: the share of tables drawn with the same margins (one side's
   * answers drawn without replacement from all answers, seeded) whose χ² is at least the observed one,
   * (1 + b) / (1 + B) as R's `chisq.test(simulate.p.value = TRUE)`.
   */
  monte_carlo?: { p: number; samples: number; seed: number };
}

export interface ChiSquareOptions {
  /** An expected count below this makes the asymptotic p approximate (Cochran: 5). */
  smallExpected: number;
  /** Monte-Carlo tables drawn when an expected count is small; 0: none. */
  samples: number;
  seed: number;
}

/**
 * χ² on counts per category (the same categories, in the same order, on both sides). Categories no one gave
 * on either side are left out (their expected count would be 0). Null (with why) with fewer than two
 * categories left or an empty side.
 */
export function chiSquareTest(
  real: ArrayLike<number>,
  simulated: ArrayLike<number>,
  { smallExpected, samples, seed }: ChiSquareOptions,
): ChiSquareTest | string {
  const r: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < real.length; i++) {
    if (real[i]! + simulated[i]! === 0) continue;
    r.push(real[i]!);
    s.push(simulated[i]!);
  }
  const nr = sum(r);
  const ns = sum(s);
  if (nr === 0 || ns === 0) return "a side has no answers";
  if (r.length < 2) return "every answer is in one category";
  const columns = r.map((x, i) => x + s[i]!);
  const statistic = pearson(r, nr, ns, columns);
  const df = r.length - 1;
  const p = library().gammainc(statistic / 2, df / 2, true, true);
  let minExpected = Number.POSITIVE_INFINITY;
  let small = 0;
  for (const column of columns)
    for (const row of [nr, ns]) {
      const e = (row * column) / (nr + ns);
      minExpected = Math.min(minExpected, e);
      if (e < smallExpected) small++;
    }
  const test: ChiSquareTest = {
    statistic,
    df,
    p,
    min_expected: minExpected,
    small_expected_cells: small,
    cells: 2 * r.length,
  };
  if (small > 0 && samples > 0) test.monte_carlo = monteCarlo(statistic, nr, ns, columns, samples, seed);
  return test;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function pearson(r: ArrayLike<number>, nr: number, ns: number, columns: readonly number[]): number {
  const total = nr + ns;
  let x = 0;
  for (let j = 0; j < columns.length; j++) {
    const er = (nr * columns[j]!) / total;
    const es = (ns * columns[j]!) / total;
    const dr = r[j]! - er;
    // The simulated cell is the column less the real one, so its deviation is −dr.
    x += (dr * dr) / er + (dr * dr) / es;
  }
  return x;
}

/**
 * Permutation tables: all answers pooled, the smaller side's answers drawn from them without replacement
 * (a partial Fisher–Yates shuffle with core's seeded generator), the other side the rest. Each draw costs
 * as many steps as the smaller side has answers, so the tables drawn are capped at 2·10⁷ steps in all (at
 * least 100 tables); the document records how many were drawn.
 */
function monteCarlo(
  observed: number,
  nr: number,
  ns: number,
  columns: readonly number[],
  samples: number,
  seed: number,
): { p: number; samples: number; seed: number } {
  const draws = Math.min(nr, ns);
  const tables = Math.max(100, Math.min(samples, Math.floor(MONTE_CARLO_STEPS / draws)));
  const total = nr + ns;
  const pooled = new Int32Array(total);
  let at = 0;
  columns.forEach((count, category) => {
    pooled.fill(category, at, at + count);
    at += count;
  });
  const random = seededRandom(seed);
  const drawn = new Float64Array(columns.length);
  const real = new Float64Array(columns.length);
  // A drawn χ² that equals the observed one up to rounding counts as reaching it (R's tolerance).
  const reach = observed * (1 - 64 * Number.EPSILON);
  let atLeast = 0;
  for (let b = 0; b < tables; b++) {
    drawn.fill(0);
    for (let i = 0; i < draws; i++) {
      const j = i + Math.floor(random() * (total - i));
      const category = pooled[j]!;
      pooled[j] = pooled[i]!;
      pooled[i] = category;
      drawn[category]!++;
    }
    for (let c = 0; c < columns.length; c++) real[c] = nr === draws ? drawn[c]! : columns[c]! - drawn[c]!;
    if (pearson(real, nr, ns, columns) >= reach) atLeast++;
  }
  return { p: (1 + atLeast) / (1 + tables), samples: tables, seed };
}

const MONTE_CARLO_STEPS = 20_000_000;

/** The two-sample Kolmogorov–Smirnov test, two-sided: SciPy's `ks_2samp(real, simulated)` (method "auto"). */
export interface KsTest {
  d: number;
  p: number;
  /**
   * SciPy's choice under method="auto": "exact" when neither side has more than 10,000 answers (and the
   * exact count stays in double precision), else "asymptotic".
   */
  method: "exact" | "asymptotic";
}

/** SciPy's MAX_AUTO_N: above it, ks_2samp's method "auto" uses the asymptotic distribution. */
const MAX_EXACT_N = 10_000;

export function ksTest(real: Distribution, simulated: Distribution): KsTest | string {
  const n1 = real.n;
  const n2 = simulated.n;
  if (n1 === 0 || n2 === 0) return "a side has no answers";
  // D · lcm(n1, n2) is the integer max |c1·n2 − c2·n1| / g (c: cumulative counts), computed exactly.
  const g = gcd(n1, n2);
  let h = 0;
  eachValue(real, simulated, (_, c1, c2) => {
    h = Math.max(h, Math.abs(c1 * n2 - c2 * n1) / g);
  });
  const lcm = (n1 / g) * n2;
  const d = h / lcm;
  if (Math.max(n1, n2) <= MAX_EXACT_N) {
    const p = exactKsP(n1, n2, h);
    if (p !== null) return { d, p, method: "exact" };
  }
  return { d, p: kolmogorovSf(Math.sqrt((n1 * n2) / (n1 + n2)) * d), method: "asymptotic" };
}

/**
 * The limiting Kolmogorov distribution's survival function, Q(λ) = 2 Σ (−1)^(k−1) e^(−2k²λ²). SciPy's
 * asymptotic branch uses the finite-n distribution kstwo(round(n1·n2/(n1+n2))) instead, which this
 * approaches as n grows (at n = 500,000 they differ by 0.06–0.9 % of p): above 10,000 answers a side
 * the KS p here is not SciPy's to 1e-9.
 */
function kolmogorovSf(lambda: number): number {
  if (lambda < 0.2) return 1;
  let q = 0;
  for (let k = 1; k <= 100; k++) {
    const term = Math.exp(-2 * k * k * lambda * lambda);
    q += (k % 2 === 1 ? 2 : -2) * term;
    if (term < 1e-18) break;
  }
  return Math.min(1, Math.max(0, q));
}

/**
 * The Wasserstein-1 (earth mover's) distance between the two sides' answers: ∫ |F_real − F_sim|, SciPy's
 * `wasserstein_distance(real, simulated)`; null with an empty side.
 */
export function wasserstein1(real: Distribution, simulated: Distribution): number | null {
  if (real.n === 0 || simulated.n === 0) return null;
  let distance = 0;
  let previous: number | undefined;
  let gap = 0;
  eachValue(real, simulated, (x, c1, c2) => {
    if (previous !== undefined) distance += gap * (x - previous);
    gap = Math.abs(c1 / real.n - c2 / simulated.n);
    previous = x;
  });
  return distance;
}

/**
 * Each distinct value of either side in increasing order, with both sides' cumulative counts up to and including
 * it (an index past a side's end reads as +∞, without reading past it): the walk of KS and Wasserstein-1.
 */
function eachValue(
  real: Distribution,
  simulated: Distribution,
  visit: (x: number, c1: number, c2: number) => void,
): void {
  let c1 = 0;
  let c2 = 0;
  let i = 0;
  let j = 0;
  const [a, b] = [real.values, simulated.values];
  while (i < a.length || j < b.length) {
    const x = Math.min(
      i < a.length ? a[i]! : Number.POSITIVE_INFINITY,
      j < b.length ? b[j]! : Number.POSITIVE_INFINITY,
    );
    if (i < a.length && a[i] === x) c1 += real.counts[i++]!;
    if (j < b.length && b[j] === x) c2 += simulated.counts[j++]!;
    visit(x, c1, c2);
  }
}
