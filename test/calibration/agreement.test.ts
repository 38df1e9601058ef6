// The behaviours issue 39 asks of the agreement statistics: a perfect judge, an offset judge, nulls where a
// statistic is undefined, errored items left out and counted, seeded bootstrap intervals, clear bad input.
import { describe, expect, it } from "vitest";
import { IndexSampler } from "../../src/calibration/bootstrap.ts";
import { type AgreementItem, agreement, SCORE_BANDS } from "../../src/calibration/index.ts";
import { InputError } from "../../src/core/index.ts";

/** Items whose people all agree on `scores`, judged by `judge` (a function of the people's score). */
function labelled(
  scores: readonly number[],
  judge: (score: number) => number | null,
  raters = 2,
): AgreementItem[] {
  return scores.map((score) => ({
    judge: judge(score),
    raters: Array.from({ length: raters }, () => score),
  }));
}

/** Every score 0–9 a few times over, so that every statistic has variation to work with. */
const SPREAD = Array.from({ length: 60 }, (_, i) => (i * 7) % 10);

/** A realistic set: a noisy judge and two or three noisy raters around a true score. */
function noisy(n: number): AgreementItem[] {
  const random = new IndexSampler(2026);
  const clip = (v: number) => Math.max(0, Math.min(9, v));
  return Array.from({ length: n }, () => {
    const truth = random.below(10);
    return {
      judge: clip(truth + random.below(3) - 1),
      raters: Array.from({ length: 2 + random.below(2) }, () => clip(truth + random.below(3) - 1)),
    };
  });
}

/** No NaN or infinity anywhere in a result. */
function finiteOrNull(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(finiteOrNull);
  if (value && typeof value === "object") return Object.values(value).every(finiteOrNull);
  return true;
}

describe("agreement", () => {
  it("gives a judge that agrees perfectly exactly κ = 1, α = 1, r = ρ = 1 and no error", () => {
    const result = agreement(
      labelled(SPREAD, (s) => s),
      { resamples: 0 },
    );
    expect(result).toMatchObject({
      kappa_quadratic: 1,
      alpha_interval: 1,
      alpha_ordinal: 1,
      pearson: 1,
      spearman: 1,
      mae: 0,
      bias: 0,
      exact: 1,
      within_1: 1,
    });
  });

  it("shows a constant offset as bias, with ρ = 1 but a lower κ", () => {
    const result = agreement(
      labelled(
        SPREAD.map((s) => s % 8),
        (s) => s + 2,
      ),
      { resamples: 0 },
    );
    expect(result.bias).toBe(2);
    expect(result.mae).toBe(2);
    expect(result.spearman).toBe(1);
    expect(result.pearson).toBeCloseTo(1, 12);
    expect(result.exact).toBe(0);
    expect(result.kappa_quadratic).toBeLessThan(0.85);
  });

  it("shows a clipped offset as a smaller bias, a high ρ below 1 and a lower κ", () => {
    const result = agreement(
      labelled(SPREAD, (s) => Math.min(9, s + 2)),
      { resamples: 0 },
    );
    expect(result.bias).toBeGreaterThan(1);
    expect(result.bias).toBeLessThan(2);
    expect(result.spearman).toBeGreaterThan(0.9);
    expect(result.spearman).toBeLessThan(1);
    expect(result.kappa_quadratic).toBeLessThan(0.85);
  });

  it("reproduces Krippendorff's 2011 worked example: α interval 0.849, ordinal 0.815", () => {
    const units: [number | null, number[]][] = [
      [1, [1, 1]],
      [2, [2, 3, 2]],
      [3, [3, 3, 3]],
      [3, [3, 3, 3]],
      [2, [2, 2, 2]],
      [1, [2, 3, 4]],
      [4, [4, 4, 4]],
      [1, [1, 2, 1]],
      [2, [2, 2, 2]],
      [null, [5, 5, 5]],
      [null, [1, 1]],
      [null, [3]],
    ];
    const result = agreement(
      units.map(([judge, raters]) => ({ judge, raters })),
      { resamples: 0 },
    );
    expect(result.alpha_interval).toBeCloseTo(0.849, 3);
    expect(result.alpha_ordinal).toBeCloseTo(0.815, 3);
  });

  it("gives null, never NaN, for what the data cannot define", () => {
    const constantJudge = agreement(
      labelled(SPREAD, () => 7),
      { minimum: 6, resamples: 50 },
    );
    expect(constantJudge.pearson).toBeNull();
    expect(constantJudge.spearman).toBeNull();
    expect(constantJudge.fails!.precision).toBeNull();
    expect(constantJudge.fails!.recall).toBe(0);
    expect(constantJudge.ci.pearson).toBeNull();
    expect(constantJudge.bootstrap.defined).toMatchObject({ pearson: 0, spearman: 0, "fails.precision": 0 });

    const nothingVaries = agreement(
      labelled([5, 5, 5, 5], () => 5),
      { minimum: 6, resamples: 50 },
    );
    for (const statistic of [
      "pearson",
      "spearman",
      "kappa_quadratic",
      "alpha_interval",
      "alpha_ordinal",
    ] as const)
      expect(nothingVaries[statistic], statistic).toBeNull();
    expect(nothingVaries.raters.alpha_interval).toBeNull();
    expect(nothingVaries.fails).toMatchObject({ precision: 1, recall: 1, tp: 4 });

    const oneRaterEach = agreement(
      labelled(SPREAD, (s) => s, 1),
      { resamples: 50 },
    );
    expect(oneRaterEach.raters).toMatchObject({ items: 0, alpha_interval: null, alpha_ordinal: null });
    expect(oneRaterEach.raters.ci).toEqual({ alpha_interval: null, alpha_ordinal: null });

    const none = agreement([], { minimum: 6 });
    expect(none).toMatchObject({ n: 0, n_judged: 0, kappa_quadratic: null, mae: null, exact: null });
    expect(none.bootstrap.resamples).toBe(0);
    for (const result of [constantJudge, nothingVaries, oneRaterEach, none])
      expect(finiteOrNull(result)).toBe(true);
  });

  it("leaves errored items out of the judge's statistics and counts them", () => {
    const judged = noisy(200);
    const errored = [...judged, ...labelled([3, 8, 1], () => null, 1)];
    const withErrors = agreement(errored, { minimum: 6, resamples: 0 });
    const without = agreement(judged, { minimum: 6, resamples: 0 });
    expect(withErrors.n).toBe(203);
    expect(withErrors.n_judged).toBe(200);
    for (const statistic of [
      "pearson",
      "spearman",
      "kappa_quadratic",
      "mae",
      "bias",
      "exact",
      "within_1",
    ] as const)
      expect(withErrors[statistic], statistic).toBe(without[statistic]);
    expect(withErrors.confusion).toEqual(without.confusion);
    expect(withErrors.fails).toEqual(without.fails);
  });

  it("rounds the human mean half up for κ, exact agreement and the bands", () => {
    const result = agreement(
      [
        { judge: 5, raters: [4, 5] },
        { judge: 0, raters: [0, 1] },
        { judge: 9, raters: [8, 9, 9] },
        { judge: 2, raters: [4, 5] },
      ],
      { minimum: 5, resamples: 0 },
    );
    // 4.5 → 5 and 8.67 → 9 match the judge; 0.5 → 1 is one off the judge's 0; 4.5 → 5 is three off its 2.
    expect(result.exact).toBe(0.5);
    expect(result.within_1).toBe(0.75);
    expect(result.confusion.bands).toEqual(SCORE_BANDS);
    expect(result.confusion.counts).toEqual([
      [0, 1, 0, 0, 0],
      [0, 0, 1, 0, 0],
      [0, 0, 1, 0, 0],
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0, 1],
    ]);
    // The judge fails the 2 and the 0; people fail only the 0 (means 4.5 and 0.5 round to 5 and 1).
    expect(result.fails).toMatchObject({ tp: 1, fp: 1, fn: 0, tn: 2, precision: 0.5, recall: 1 });
  });
});

describe("agreement's bootstrap", () => {
  const items = noisy(300);

  it("gives intervals that contain the point estimate on a well-behaved set", () => {
    const result = agreement(items, { minimum: 6 });
    expect(result.bootstrap).toEqual({ resamples: 1000, seed: 1, defined: {} });
    for (const [statistic, interval] of Object.entries(result.ci)) {
      const point = result[statistic as keyof typeof result.ci];
      expect(interval, statistic).not.toBeNull();
      expect(interval![0], statistic).toBeLessThanOrEqual(point!);
      expect(interval![1], statistic).toBeGreaterThanOrEqual(point!);
      expect(interval![0], statistic).toBeLessThan(interval![1]);
    }
    expect(result.raters.ci.alpha_interval![0]).toBeLessThanOrEqual(result.raters.alpha_interval!);
    expect(result.raters.ci.alpha_interval![1]).toBeGreaterThanOrEqual(result.raters.alpha_interval!);
  });

  it("gives the same intervals bit for bit for the same seed, and others for another seed", () => {
    const once = agreement(items, { minimum: 6, resamples: 200, seed: 39 });
    const again = agreement(items, { minimum: 6, resamples: 200, seed: 39 });
    const other = agreement(items, { minimum: 6, resamples: 200, seed: 40 });
    expect(JSON.stringify(again)).toBe(JSON.stringify(once));
    expect(other.ci.kappa_quadratic).not.toEqual(once.ci.kappa_quadratic);
    expect(other.kappa_quadratic).toBe(once.kappa_quadratic);
  });

  it("says how many resamples gave a value when some did not", () => {
    const rare = [...labelled(Array(30).fill(8), (s) => s), { judge: 2, raters: [2] }];
    const result = agreement(rare, { minimum: 6, resamples: 200 });
    const defined = result.bootstrap.defined;
    expect(defined["fails.precision"]).toBeGreaterThan(0);
    expect(defined["fails.precision"]).toBeLessThan(200);
    expect(result.fails!.ci.precision).toEqual([1, 1]);
    expect(defined.mae).toBeUndefined();
  });
});

describe("agreement's input", () => {
  it("rejects a score that is not an integer 0–9, naming the item", () => {
    expect(() => agreement([{ judge: 11, raters: [3] }])).toThrow(/items\[0\]\.judge.*got 11/);
    expect(() =>
      agreement([
        { judge: 3, raters: [3] },
        { judge: 3, raters: [3, 4.5] },
      ]),
    ).toThrow(/items\[1\]\.raters\[1\]/);
    expect(() => agreement([{ judge: 3, raters: [] }])).toThrow(InputError);
  });

  it("rejects options out of range", () => {
    expect(() => agreement([], { resamples: -1 })).toThrow(/resamples/);
    expect(() => agreement([], { seed: 2 ** 32 })).toThrow(/seed/);
    expect(() => agreement([], { minimum: Number.NaN })).toThrow(/minimum/);
  });
});

describe("IndexSampler", () => {
  it("is xoshiro128** seeded by splitmix32: the reference C implementation's first outputs", () => {
    // Printed by the authors' xoshiro128starstar.c fed the same splitmix32 state, compiled with gcc -O2.
    const expected: Record<number, number[]> = {
      0: [1789933344, 44971166, 2521387044, 3848737593, 1138324114],
      1: [393288148, 2174103013, 3814759091, 2092745082, 1865176206],
      4294967295: [4104197751, 1825856343, 1152209388, 2427537429, 3685145430],
    };
    for (const [seed, outputs] of Object.entries(expected)) {
      const sampler = new IndexSampler(Number(seed));
      expect(outputs.map(() => sampler.nextUint32())).toEqual(outputs);
    }
  });

  it("draws every index below n and none at or above it", () => {
    const sampler = new IndexSampler(5);
    const seen = new Array(7).fill(0);
    for (let i = 0; i < 7_000; i++) seen[sampler.below(7)]++;
    expect(seen.every((count) => count > 850 && count < 1150)).toBe(true);
    expect(new IndexSampler(5).below(1)).toBe(0);
  });
});
