// compareArms against SciPy: every figure of every case in scipy-reference.json (SciPy's own output, written by
// scipy-reference.py beside it) to 1e-6 relative, p to 1e-4 relative or 1e-12 absolute; the undefined cases
// null with a note, never NaN.
import { describe, expect, it } from "vitest";
import { compareArms } from "../../src/experiments/index.ts";
import { expectScipy, REFERENCE } from "./scipy-reference.ts";

/** No NaN or infinity anywhere in a comparison. */
function finiteOrNull(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(finiteOrNull);
  if (value && typeof value === "object") return Object.values(value).every(finiteOrNull);
  return true;
}

describe("compareArms against SciPy", () => {
  it("was given SciPy's reference, with cases that test something", () => {
    expect(REFERENCE.scipy).toMatch(/^\d+\.\d+/);
    expect(REFERENCE.cases.length).toBeGreaterThanOrEqual(15);
  });

  for (const { name, control, treatment, expected } of REFERENCE.cases) {
    it(`matches SciPy: ${name}`, () => {
      const result = compareArms(control, treatment);
      expectScipy(result, expected, name);
      expect(finiteOrNull(result)).toBe(true);
    });
  }
});

describe("compareArms", () => {
  it("gives t, Δ and the CI the sign of treatment − control", () => {
    const higher = compareArms([1, 2, 3, 4], [5, 6, 7, 9]);
    expect(higher.delta).toBe(4.25);
    expect(higher.t).toBeGreaterThan(0);
    expect(higher.ci95![0]).toBeGreaterThan(0);
    expect(higher.cohen_d).toBeGreaterThan(0);
    const lower = compareArms([5, 6, 7, 9], [1, 2, 3, 4]);
    expect(lower.t).toBeCloseTo(-higher.t!, 12);
    expect(lower.ci95![1]).toBeLessThan(0);
  });

  it("calls a difference significant when p < alpha, not when p equals it", () => {
    const { p } = compareArms([1, 2, 3, 4], [2, 4, 5, 7]);
    expect(compareArms([1, 2, 3, 4], [2, 4, 5, 7], { alpha: p! }).significant).toBe(false);
    expect(compareArms([1, 2, 3, 4], [2, 4, 5, 7], { alpha: p! * 1.0001 }).significant).toBe(true);
  });

  it("keeps the CI at 95 % whatever alpha is", () => {
    const a = compareArms([1, 2, 3, 4], [2, 4, 5, 7]);
    const b = compareArms([1, 2, 3, 4], [2, 4, 5, 7], { alpha: 0.01 });
    expect(b.ci95).toEqual(a.ci95);
  });

  it("gives null t, df, p, CI and d with a note when neither arm varies", () => {
    const result = compareArms([7, 7, 7], [8, 8, 8, 8]);
    expect(result).toMatchObject({
      delta: 1,
      t: null,
      df: null,
      p: null,
      ci95: null,
      cohen_d: null,
      significant: null,
    });
    expect(result.control.sd).toBe(0);
    expect(result.note).toMatch(/neither arm varies/);
  });

  it("still tests when only one arm varies", () => {
    const result = compareArms([7, 7, 7], [6, 8, 9, 8]);
    expect(result.df).toBeCloseTo(3, 12);
    expect(result.p).not.toBeNull();
    expect(result.note).toBeUndefined();
  });

  it("gives null with a note for an arm with fewer than 2 values", () => {
    const one = compareArms([5], [1, 2, 3]);
    expect(one).toMatchObject({
      control: { n: 1, mean: 5, sd: null },
      delta: -3,
      t: null,
      p: null,
      cohen_d: null,
    });
    expect(one.note).toMatch(/control has 1 value/);
    const none = compareArms([1, 2], []);
    expect(none).toMatchObject({
      treatment: { n: 0, mean: null, sd: null },
      delta: null,
      percent_change: null,
    });
    expect(none.note).toMatch(/treatment has no values/);
  });

  it("gives null with a note for a value that is not a finite number, and never NaN", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const result = compareArms([1, 2, 3], [4, bad, 6]);
      expect(result).toMatchObject({
        treatment: { n: 3, mean: null, sd: null },
        delta: null,
        t: null,
        p: null,
      });
      expect(result.note).toMatch(/treatment's value \[1\] is not a finite number/);
      expect(finiteOrNull(result)).toBe(true);
    }
  });

  it("gives null with a note, never NaN, where double precision runs out", () => {
    const huge = compareArms([1e308, 1e308, 1e308], [1, 2, 3]);
    expect(huge).toMatchObject({ control: { mean: null }, delta: null, t: null });
    expect(huge.note).toMatch(/control's values are too large for double precision/);
    const wide = compareArms([-1.5e308, 1.5e308, 0], [1, 2, 3]);
    expect(wide).toMatchObject({ control: { mean: 0, sd: null }, t: null, cohen_d: null });
    expect(wide.note).toMatch(/control's values spread too wide/);
    // Variances near 1e-320 are representable; their squares in the degrees of freedom are not.
    const tiny = compareArms([1e-160, 2e-160, 4e-160], [1e-160, 3e-160, 6e-160]);
    expect(tiny).toMatchObject({ t: null, df: null, p: null, ci95: null, significant: null });
    expect(tiny.note).toMatch(/not defined in double precision/);
    for (const result of [huge, wide, tiny]) expect(finiteOrNull(result)).toBe(true);
  });

  it("gives no percent change when the control's mean is 0, and a percent change of Δ's sign otherwise", () => {
    const zero = compareArms([-1, 1], [1, 2]);
    expect(zero.percent_change).toBeNull();
    expect(zero.delta).toBe(1.5);
    expect(zero.note).toMatch(/control's mean is 0/);
    // −2 → −1 is a rise: +50 %, not TinyTroupe's Δ / mean(C) = −50 %.
    expect(compareArms([-2, -3, -1, -2], [-1, 0, -2, -1]).percent_change).toBeCloseTo(50, 12);
  });

  it("refuses an alpha outside (0, 1)", () => {
    for (const alpha of [0, 1, -0.1, Number.NaN])
      expect(() => compareArms([1, 2], [3, 4], { alpha })).toThrow(
        expect.objectContaining({
          name: "InputError",
          message: expect.stringMatching(/^alpha: expected a number between 0 and 1/),
        }),
      );
  });
});
