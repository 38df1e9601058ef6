// Benchmark for src/calibration (issue 39): 100,000 labelled items, 3 raters each, every agreement statistic
// with its bootstrap CI (1,000 resamples) must take under 5 s; the same items split into 100 propositions of
// 1,000 (the per-proposition report) are timed beside it. Items come from a seeded PRNG, so every run
// measures the same input; CPU time and the load average are shown because wall time on a shared machine is not.
import { loadavg } from "node:os";
import { type AgreementItem, agreement } from "../src/calibration/index.ts";
import { seededRandom } from "../src/core/index.ts";
import { fmt, type Outcome } from "./report.ts";

const ITEMS = 100_000;
const RATERS = 3;
const RESAMPLES = 1_000;
const PROPOSITIONS = 100;
const MAX_SECONDS = 5;

/** A true score per item; people within ±1 of it, the judge within ±2 and biased up, 1 % errored. */
function labelledItems(n: number, seed: number): AgreementItem[] {
  const random = seededRandom(seed);
  const clip = (v: number) => Math.max(0, Math.min(9, v));
  const near = (truth: number, spread: number) =>
    clip(truth + Math.floor(random() * (2 * spread + 1)) - spread);
  return Array.from({ length: n }, () => {
    const truth = Math.floor(random() * 10);
    const raters = Array.from({ length: RATERS }, () => near(truth, 1));
    return { judge: random() < 0.01 ? null : clip(near(truth, 2) + (random() < 0.2 ? 1 : 0)), raters };
  });
}

function timed<T>(run: () => T): { result: T; wall_s: number; cpu_s: number } {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = run();
  const used = process.cpuUsage(cpu);
  return { result, wall_s: (performance.now() - start) / 1000, cpu_s: (used.user + used.system) / 1e6 };
}

async function benchCalibration(): Promise<Outcome> {
  const items = labelledItems(ITEMS, 39);
  // Compiled and optimised on a small set first, as any second call in a process would be.
  agreement(items.slice(0, 2_000), { minimum: 6, resamples: 100 });
  const load = loadavg()[0]!;
  const whole = timed(() => agreement(items, { minimum: 6, resamples: RESAMPLES, seed: 39 }));
  const size = ITEMS / PROPOSITIONS;
  const split = timed(() =>
    Array.from({ length: PROPOSITIONS }, (_, p) =>
      agreement(items.slice(p * size, (p + 1) * size), { minimum: 6, resamples: RESAMPLES, seed: 39 }),
    ),
  );
  const { result } = whole;
  const computed = result.kappa_quadratic !== null && Object.values(result.ci).every((ci) => ci !== null);
  return {
    checks: [
      {
        metric: `${fmt(ITEMS)} items × ${RATERS} raters, ${fmt(RESAMPLES)} resamples: wall (CPU)`,
        value: `${fmt(whole.wall_s, 2)} s (${fmt(whole.cpu_s, 2)} s)`,
        target: `< ${MAX_SECONDS} s`,
        pass: whole.wall_s < MAX_SECONDS,
      },
      {
        metric: "every statistic and CI computed (κ, CI low–high)",
        value: `${computed ? "yes" : "no"} (${fmt(result.kappa_quadratic ?? Number.NaN, 3)}, ${result.ci.kappa_quadratic?.map((x) => fmt(x, 3)).join("–")})`,
        target: "yes",
        pass: computed,
      },
      {
        metric: `the same split into ${PROPOSITIONS} propositions of ${fmt(size)}: wall (CPU)`,
        value: `${fmt(split.wall_s, 2)} s (${fmt(split.cpu_s, 2)} s)`,
      },
      { metric: "load average (1 min) at the start", value: fmt(load, 2) },
    ],
    details: {
      items: ITEMS,
      raters: RATERS,
      resamples: RESAMPLES,
      whole: { wall_s: whole.wall_s, cpu_s: whole.cpu_s },
      split: { propositions: PROPOSITIONS, wall_s: split.wall_s, cpu_s: split.cpu_s },
      load_average: load,
      statistics: { ...result, confusion: undefined },
    },
  };
}

/** Registered in bench/run.ts as one entry of its list. */
export const calibrationBenchmark = {
  name: "calibration",
  about: `issue 39: judge-vs-human agreement, ${fmt(ITEMS)} items × ${RATERS} raters, every statistic with a ${fmt(RESAMPLES)}-resample bootstrap CI`,
  run: benchCalibration,
};
