// Treatment versus control on one metric: each arm's n, mean and sd, the difference, Welch's t-test with its
// 95 % confidence interval, and Cohen's d. The test and the sums are @stdlib's (`stats-ttest2`, unequal
// variances; `stats-strided-mean` and `-variance`, pairwise sums): no numerics of our own. What is not
// defined for the data (an arm with fewer than 2 values, no variance in either arm, a value that is not a
// finite number) is `null` with a note saying why — never NaN, never a throw.
import { createRequire } from "node:module";
import type stridedMean from "@stdlib/stats-strided-mean";
import type stridedVariance from "@stdlib/stats-strided-variance";
import type ttest2 from "@stdlib/stats-ttest2";
import { InputError } from "../core/index.ts";

/** One arm of a comparison: its sample size, mean and standard deviation (ddof 1); null where undefined. */
export interface ArmSummary {
  n: number;
  /** Null when the arm has no values (or one that is not a finite number). */
  mean: number | null;
  /** Sample standard deviation (n − 1 in the denominator); null with fewer than 2 values. */
  sd: number | null;
}

/** Treatment versus control on one metric. Every difference is treatment − control. */
export interface ArmComparison {
  control: ArmSummary;
  treatment: ArmSummary;
  /** Δ = mean(treatment) − mean(control). */
  delta: number | null;
  /** Δ / |mean(control)| · 100, so that its sign is Δ's; null when the control's mean is 0. */
  percent_change: number | null;
  /** Welch's t, of treatment − control (positive when the treatment's mean is higher). */
  t: number | null;
  /** Welch–Satterthwaite degrees of freedom. */
  df: number | null;
  /** Two-sided p-value of Welch's t-test. */
  p: number | null;
  /** 95 % confidence interval of Δ (Welch), whatever `alpha` is. */
  ci95: [number, number] | null;
  /** Cohen's d: Δ over the pooled standard deviation (ddof 1). */
  cohen_d: number | null;
  /** p < alpha; null when p is. */
  significant: boolean | null;
  /** Why some fields are null, when they are. */
  note?: string;
}

export interface CompareArmsOptions {
  /** Significance level of `significant` (p < alpha), between 0 and 1; 0.05 by default. */
  alpha?: number;
}

interface Stdlib {
  ttest2: typeof ttest2;
  mean: typeof stridedMean;
  variance: typeof stridedVariance;
}

let stdlib: Stdlib | undefined;
/** @stdlib is ≈ 300 small CommonJS modules: required at the first comparison, not when dramaturg loads. */
function library(): Stdlib {
  if (!stdlib) {
    const requireHere = createRequire(import.meta.url);
    stdlib = {
      ttest2: requireHere("@stdlib/stats-ttest2"),
      mean: requireHere("@stdlib/stats-strided-mean"),
      variance: requireHere("@stdlib/stats-strided-variance"),
    };
  }
  return stdlib;
}

/** Index of the first value that is not a finite number, or -1. */
function firstNonFinite(values: readonly number[]): number {
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) return i;
  }
  return -1;
}

interface ArmFacts {
  summary: ArmSummary;
  /** Sample variance (ddof 1), when defined. */
  variance: number | null;
  problem?: string;
}

function describeArm(name: string, values: readonly number[]): ArmFacts {
  const n = values.length;
  const bad = firstNonFinite(values);
  if (bad >= 0)
    return {
      summary: { n, mean: null, sd: null },
      variance: null,
      problem: `the ${name}'s value [${bad}] is not a finite number`,
    };
  if (n === 0)
    return { summary: { n, mean: null, sd: null }, variance: null, problem: `the ${name} has no values` };
  const { mean, variance } = library();
  const m = mean(n, values, 1);
  if (!Number.isFinite(m))
    return {
      summary: { n, mean: null, sd: null },
      variance: null,
      problem: `the ${name}'s values are too large for double precision`,
    };
  if (n < 2)
    return {
      summary: { n, mean: m, sd: null },
      variance: null,
      problem: `the ${name} has 1 value (a standard deviation needs 2)`,
    };
  const v = variance(n, 1, values, 1);
  if (!Number.isFinite(v))
    return {
      summary: { n, mean: m, sd: null },
      variance: null,
      problem: `the ${name}'s values spread too wide for double precision`,
    };
  return { summary: { n, mean: m, sd: Math.sqrt(v) }, variance: v };
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/**
 * Compares a treatment arm's values with a control arm's on one metric: n, mean and sd of each, Δ (T − C),
 * percent change, Welch's t (sign of T − C), its degrees of freedom, two-sided p and 95 % CI of Δ, Cohen's
 * d (pooled sd), and whether p < alpha. TinyTroupe's `StatisticalTester` (Welch) computes the same numbers
 * except: its t is C − T, its CI is at 1 − alpha, and where the data leave a figure undefined it writes
 * inf, NaN or a d of 0 — here that figure is null and `note` says why.
 */
export function compareArms(
  control: readonly number[],
  treatment: readonly number[],
  { alpha = 0.05 }: CompareArmsOptions = {},
): ArmComparison {
  if (!(typeof alpha === "number" && alpha > 0 && alpha < 1))
    throw new InputError(`expected a number between 0 and 1, got ${String(alpha)}`, { place: "alpha" });
  const c = describeArm("control", control);
  const t = describeArm("treatment", treatment);
  const notes = [c.problem, t.problem].filter((s): s is string => s !== undefined);
  const result: ArmComparison = {
    control: c.summary,
    treatment: t.summary,
    delta: null,
    percent_change: null,
    t: null,
    df: null,
    p: null,
    ci95: null,
    cohen_d: null,
    significant: null,
  };

  const meanC = c.summary.mean;
  const meanT = t.summary.mean;
  if (meanC !== null && meanT !== null) {
    result.delta = finite(meanT - meanC);
    if (result.delta === null) notes.push("the difference of the means is too large for double precision");
    else if (meanC === 0) notes.push("the control's mean is 0, so there is no percent change");
    else result.percent_change = finite((result.delta / Math.abs(meanC)) * 100);
  }

  if (c.variance !== null && t.variance !== null) {
    if (c.variance === 0 && t.variance === 0) {
      notes.push(
        "neither arm varies (every value the same within each arm): t, df, p, the CI and d are undefined",
      );
    } else {
      // The treatment goes first: the library's t and CI are of x − y, here T − C. It only reads the arrays.
      const test = library().ttest2(treatment as number[], control as number[], {
        alpha: 0.05,
        variance: "unequal",
      });
      const [low, high] = test.ci;
      const values = [test.statistic, test.df, test.pValue, low ?? Number.NaN, high ?? Number.NaN];
      if (values.every(Number.isFinite)) {
        result.t = test.statistic;
        result.df = test.df;
        result.p = test.pValue;
        result.ci95 = [low!, high!];
        result.significant = test.pValue < alpha;
      } else {
        // Values so small or so large that the variances underflow or overflow in double precision.
        notes.push("Welch's test is not defined in double precision for these values");
      }
      const nC = c.summary.n;
      const nT = t.summary.n;
      const pooled = Math.sqrt(((nC - 1) * c.variance + (nT - 1) * t.variance) / (nC + nT - 2));
      result.cohen_d = pooled > 0 && result.delta !== null ? finite(result.delta / pooled) : null;
    }
  }
  if (notes.length > 0) result.note = notes.join("; ");
  return result;
}
