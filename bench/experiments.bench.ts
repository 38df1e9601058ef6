// Benchmark for src/experiments' statistics (issue 36): compareArms on 1,000,000 values per arm must take
// under 1 s. The arms are seeded normal samples (Box–Muller), so every run measures the same input. @stdlib
// loads at the first comparison (lazily, as a user's first call does): that load is timed on its own, on
// two 3-value arms, then the first comparison of the million, held to the target, then three more.
import { seededRandom } from "../src/core/index.ts";
import { compareArms } from "../src/experiments/index.ts";

export const VALUES_PER_ARM = 1_000_000;

function normalSample(n: number, mean: number, sd: number, seed: number): number[] {
  const random = seededRandom(seed);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const angle = 2 * Math.PI * random();
    out[i] = mean + sd * r * Math.cos(angle);
    if (i + 1 < n) out[i + 1] = mean + sd * r * Math.sin(angle);
  }
  return out;
}

export interface ExperimentsBenchFigures {
  values_per_arm: number;
  /** The first comparison of two 3-value arms: loading @stdlib, almost all of it. */
  load_ms: number;
  /** The first comparison of the two million-value arms (its code not yet optimised). */
  first_ms: number;
  /** The median of three more. */
  warm_ms: number;
  /** What the comparison found, so that a run that computed nothing cannot pass. */
  delta: number | null;
  p: number | null;
  df: number | null;
}

export async function benchExperimentStatistics(): Promise<ExperimentsBenchFigures> {
  const control = normalSample(VALUES_PER_ARM, 6.5, 1.5, 36);
  const treatment = normalSample(VALUES_PER_ARM, 6.505, 1.6, 37);
  let start = performance.now();
  compareArms([1, 2, 3], [2, 3, 5]);
  const loadMs = performance.now() - start;
  start = performance.now();
  const first = compareArms(control, treatment);
  const firstMs = performance.now() - start;
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) {
    start = performance.now();
    compareArms(control, treatment);
    warm.push(performance.now() - start);
  }
  warm.sort((a, b) => a - b);
  return {
    values_per_arm: VALUES_PER_ARM,
    load_ms: Math.round(loadMs),
    first_ms: Math.round(firstMs),
    warm_ms: Math.round(warm[1]!),
    delta: first.delta,
    p: first.p,
    df: first.df,
  };
}
