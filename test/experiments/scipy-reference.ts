// SciPy's reference (scipy-reference.json, SciPy's own output written by scipy-reference.py beside it) and
// the check of a comparison against it: every figure to 1e-6 relative, p to 1e-4 relative or 1e-12 absolute.
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { ArmComparison, ArmSummary } from "../../src/experiments/index.ts";

/** SciPy writes what it could not compute as "nan", "inf" or "-inf". */
export type Reference = number | "nan" | "inf" | "-inf";
export interface ExpectedArm {
  n: number;
  mean: Reference;
  sd: Reference;
}
export interface Expected {
  control: ExpectedArm;
  treatment: ExpectedArm;
  delta: Reference;
  percent_change: Reference | null;
  t: Reference;
  df: Reference;
  p: Reference;
  ci95: [Reference, Reference];
  cohen_d: Reference;
}
export interface ReferenceFile {
  scipy: string;
  cases: { name: string; control: number[]; treatment: number[]; expected: Expected }[];
  artifacts: { file: string; metrics: Record<string, Expected> }[];
}

export const REFERENCE: ReferenceFile = JSON.parse(
  readFileSync(new URL("../fixtures/experiments/scipy-reference.json", import.meta.url), "utf8"),
);

function close(
  actual: number | null,
  expected: Reference | null,
  what: string,
  relative = 1e-6,
  absolute = 0,
) {
  if (typeof expected !== "number") {
    expect(actual, `${what}: SciPy has no finite value (${expected}), so null`).toBeNull();
    return;
  }
  expect(actual, what).not.toBeNull();
  const error = Math.abs(actual! - expected);
  const ok = error <= absolute || error <= relative * Math.abs(expected) || (expected === 0 && error < 1e-15);
  expect(ok, `${what}: ${actual} vs SciPy ${expected} (off by ${error})`).toBe(true);
}

function arm(actual: ArmSummary, expected: ExpectedArm, what: string) {
  expect(actual.n, `${what}.n`).toBe(expected.n);
  close(actual.mean, expected.mean, `${what}.mean`);
  close(actual.sd, expected.sd, `${what}.sd`);
}

/** Fewer than 2 values in an arm, or no variance in either: t, df, p, CI and d are null, whatever SciPy says. */
function undefinedTest(expected: Expected): boolean {
  const { control: c, treatment: t } = expected;
  return c.n < 2 || t.n < 2 || (c.sd === 0 && t.sd === 0);
}

/** Every figure of `actual` against SciPy's `expected`, under the tolerances. */
export function expectScipy(actual: ArmComparison, expected: Expected, what: string) {
  arm(actual.control, expected.control, `${what} control`);
  arm(actual.treatment, expected.treatment, `${what} treatment`);
  close(actual.delta, expected.delta, `${what} delta`);
  close(actual.percent_change, expected.percent_change, `${what} percent_change`);
  if (undefinedTest(expected)) {
    for (const field of ["t", "df", "p", "ci95", "cohen_d", "significant"] as const)
      expect(actual[field], `${what} ${field}`).toBeNull();
    expect(actual.note, `${what} note`).toMatch(/\w/);
    return;
  }
  close(actual.t, expected.t, `${what} t`);
  close(actual.df, expected.df, `${what} df`);
  close(actual.p, expected.p, `${what} p`, 1e-4, 1e-12);
  close(actual.ci95?.[0] ?? null, expected.ci95[0], `${what} ci95[0]`);
  close(actual.ci95?.[1] ?? null, expected.ci95[1], `${what} ci95[1]`);
  close(actual.cohen_d, expected.cohen_d, `${what} cohen_d`);
  expect(actual.significant, `${what} significant`).toBe((expected.p as number) < 0.05);
}
