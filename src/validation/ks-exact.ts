// The exact two-sided p-value of the two-sample Kolmogorov–Smirnov statistic, as SciPy's `ks_2samp`
// computes it with method="exact" (scipy/stats/_stats_py.py, _stats_pythran.py; SciPy 1.17): no
// maintained JavaScript library offers it, so the two counting algorithms are transcribed here, step for
// step, and test/validation/scipy-reference.test.ts holds them to SciPy's own output.
//
// The statistic is D = h / lcm(n1, n2) with h an integer; the p-value is the share of the lattice paths
// from (0, 0) to (n1, n2) that leave the band |x/n1 − y/n2| < h / lcm.

/**
 * P(D ≥ h / lcm) for samples of n1 and n2 answers (SciPy's `_attempt_exact_2kssamp`, two-sided), or null
 * when the computation leaves double precision (SciPy then falls back to the asymptotic distribution).
 */
export function exactKsP(n1: number, n2: number, h: number): number | null {
  if (h === 0) return 1;
  const g = gcd(n1, n2);
  const p = n1 === n2 ? probOutsideSquare(n1, h) : outerProbInsideMethod(n1, n2, g, h);
  return Number.isFinite(p) && p >= 0 && p <= 1 ? p : null;
}

export function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * SciPy's `_compute_prob_outside_square(n, h)`: Pr(D_{n,n} ≥ h/n) =
 * 2·(C(2n, n−h) − C(2n, n−2h) + …) / C(2n, n), in Horner form to avoid the cancellation.
 */
function probOutsideSquare(n: number, h: number): number {
  let p = 0;
  for (let k = Math.floor(n / h); k >= 0; k--) {
    let p1 = 1;
    for (let j = 0; j < h; j++) p1 = ((n - k * h - j) * p1) / (n + k * h + j + 1);
    p = p1 * (1 - p);
  }
  return 2 * p;
}

/**
 * SciPy's `_compute_outer_prob_inside_method(m, n, g, h)`: the share of paths that do not stay strictly
 * inside the band, by Hodges' inside method with Viehmann's recursion for 1 − p (arXiv:2102.08037), one
 * sliding column at a time.
 */
function outerProbInsideMethod(m0: number, n0: number, g: number, h: number): number {
  const [m, n] = m0 < n0 ? [n0, m0] : [m0, n0];
  const mg = m / g;
  const ng = n / g;
  let minj = 0;
  let maxj = Math.min(Math.ceil(h / mg), n + 1);
  let curlen = maxj - minj;
  const lenA = Math.min(2 * maxj + 2, n + 1);
  const a = new Float64Array(lenA).fill(1);
  for (let j = minj; j < maxj; j++) a[j] = 0;
  for (let i = 1; i <= m; i++) {
    const lastminj = minj;
    const lastlen = curlen;
    minj = Math.min(Math.max(Math.floor((ng * i - h) / mg) + 1, 0), n);
    maxj = Math.min(Math.ceil((ng * i + h) / mg), n + 1);
    if (maxj <= minj) return 1;
    let val = minj === 0 ? 0 : 1;
    for (let jj = 0; jj < maxj - minj; jj++) {
      const j = jj + minj;
      val = (a[jj + minj - lastminj]! * i + val * j) / (i + j);
      a[jj] = val;
    }
    curlen = maxj - minj;
    if (lastlen > curlen) a.fill(1, maxj - minj, maxj - minj + (lastlen - curlen));
  }
  return a[maxj - minj - 1]!;
}
