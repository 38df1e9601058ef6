// agreement() against an independent computation: every statistic of every case in reference.json (written by
// scripts/calibration-reference.py, item by item with SciPy and NumPy) to 1e-9, nulls where it has none, and the
// bootstrap intervals against plain item resampling with the same generator.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type AgreementItem, type AgreementStatistics, agreement } from "../../src/calibration/index.ts";

type Value = number | null;
interface Expected {
  n: number;
  n_judged: number;
  pearson: Value;
  spearman: Value;
  kappa_quadratic: Value;
  alpha_interval: Value;
  alpha_ordinal: Value;
  mae: Value;
  bias: Value;
  exact: Value;
  within_1: Value;
  confusion: number[][];
  raters: { items: number; alpha_interval: Value; alpha_ordinal: Value };
  fails?: {
    minimum: number;
    precision: Value;
    recall: Value;
    tp: number;
    fp: number;
    fn: number;
    tn: number;
  };
}
interface Case {
  name: string;
  minimum: number | null;
  resamples: number;
  seed: number;
  items: AgreementItem[];
  expected: Expected;
  bootstrap?: Record<string, { interval: [number, number] | null; defined: number }>;
}
const REFERENCE: { scipy: string; cases: Case[] } = JSON.parse(
  readFileSync(new URL("../fixtures/calibration/reference.json", import.meta.url), "utf8"),
);

const TOLERANCE = 1e-9;

function close(actual: Value | undefined, expected: Value, what: string) {
  if (expected === null) {
    expect(actual, `${what}: the reference has no value, so null`).toBeNull();
    return;
  }
  expect(actual, what).toBeTypeOf("number");
  const error = Math.abs(actual! - expected);
  expect(error <= TOLERANCE, `${what}: ${actual} vs reference ${expected} (off by ${error})`).toBe(true);
}

const STATISTICS = [
  "pearson",
  "spearman",
  "kappa_quadratic",
  "alpha_interval",
  "alpha_ordinal",
  "mae",
  "bias",
  "exact",
  "within_1",
] as const;

/** A resampled figure of the result by the reference's name of it ("fails.recall", "raters.alpha_ordinal"). */
function intervalOf(result: AgreementStatistics, name: string) {
  const [outer, inner] = name.split(".");
  if (inner === undefined) return result.ci[outer as (typeof STATISTICS)[number]];
  if (outer === "fails") return result.fails!.ci[inner as "precision" | "recall"];
  return result.raters.ci[inner as "alpha_interval" | "alpha_ordinal"];
}

describe("agreement against the independent reference", () => {
  it("was given the reference, with cases that test something", () => {
    expect(REFERENCE.scipy).toMatch(/^\d+\.\d+/);
    expect(REFERENCE.cases.length).toBeGreaterThanOrEqual(8);
    expect(REFERENCE.cases.some((c) => c.items.some((i) => i.judge === null))).toBe(true);
    expect(REFERENCE.cases.some((c) => c.items.some((i) => i.raters.length === 1))).toBe(true);
    expect(REFERENCE.cases.some((c) => c.items.some((i) => i.raters.length === 4))).toBe(true);
  });

  for (const { name, minimum, resamples, seed, items, expected, bootstrap } of REFERENCE.cases) {
    it(`matches the reference: ${name}`, () => {
      const result = agreement(items, { ...(minimum === null ? {} : { minimum }), resamples, seed });
      expect(result.n, "n").toBe(expected.n);
      expect(result.n_judged, "n_judged").toBe(expected.n_judged);
      for (const statistic of STATISTICS) close(result[statistic], expected[statistic], statistic);
      expect(result.confusion.counts, "confusion").toEqual(expected.confusion);
      expect(result.raters.items, "raters.items").toBe(expected.raters.items);
      close(result.raters.alpha_interval, expected.raters.alpha_interval, "raters.alpha_interval");
      close(result.raters.alpha_ordinal, expected.raters.alpha_ordinal, "raters.alpha_ordinal");
      if (expected.fails) {
        const { precision, recall, ...counts } = expected.fails;
        expect(result.fails, "fails").toMatchObject(counts);
        close(result.fails!.precision, precision, "fails.precision");
        close(result.fails!.recall, recall, "fails.recall");
      } else expect(result.fails, "fails without a minimum").toBeUndefined();
    });

    if (bootstrap)
      it(`draws the reference's bootstrap intervals (${resamples} resamples, seed ${seed}): ${name}`, () => {
        const result = agreement(items, { ...(minimum === null ? {} : { minimum }), resamples, seed });
        for (const [statistic, { interval, defined }] of Object.entries(bootstrap)) {
          const actual = intervalOf(result, statistic);
          expect(
            result.bootstrap.defined[statistic] ?? resamples,
            `${statistic}: resamples with a value`,
          ).toBe(defined);
          if (interval === null) expect(actual, statistic).toBeNull();
          else {
            close(actual?.[0] ?? null, interval[0], `${statistic} CI low`);
            close(actual?.[1] ?? null, interval[1], `${statistic} CI high`);
          }
        }
      });
  }
});
