import { describe, expect, it } from "vitest";
import { HARD_PENALTY, mean, verdictScore, weightedScore } from "../../src/core/index.ts";

describe("verdict scores", () => {
  it("a plain proposition keeps the raw score", () => {
    expect(verdictScore(6, {})).toBe(6);
  });

  it("an inverted proposition flips the raw score to 9 - raw", () => {
    expect(verdictScore(2, { inverted: true })).toBe(7);
  });

  it("a hard proposition multiplies a score below 9 by 0.8", () => {
    expect(verdictScore(5, { hard: true })).toBeCloseTo(4);
    expect(HARD_PENALTY).toBe(0.8);
  });

  it("a hard proposition leaves a perfect 9 untouched", () => {
    expect(verdictScore(9, { hard: true })).toBe(9);
  });

  it("an inverted proposition flips the raw score before the hard penalty", () => {
    // raw 0 inverted is 9: no penalty; raw 3 inverted is 6: penalised to 4.8.
    expect(verdictScore(0, { inverted: true, hard: true })).toBe(9);
    expect(verdictScore(3, { inverted: true, hard: true })).toBeCloseTo(4.8);
  });
});

describe("aggregation", () => {
  it("a dimension score is the weight-normalised mean of its propositions", () => {
    expect(
      weightedScore([
        { weight: 1, score: 8 },
        { weight: 0.5, score: 2 },
      ]),
    ).toBeCloseTo((8 + 1) / 1.5);
  });

  it("propositions without a score are left out of the dimension score", () => {
    expect(
      weightedScore([
        { weight: 1, score: 6 },
        { weight: 1, score: null },
      ]),
    ).toBe(6);
  });

  it("a dimension with no scored proposition has no score rather than a default", () => {
    expect(weightedScore([{ weight: 1, score: null }])).toBeNull();
    expect(mean([])).toBeNull();
  });
});
