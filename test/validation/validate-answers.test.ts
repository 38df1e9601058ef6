// The comparison of one question's answers and its verdict, on plain data: what each kind computes, what is
// left null and why, and the four verdicts under the documented and changed thresholds.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_THRESHOLDS,
  distributionOf,
  entropyBits,
  type QuestionAnswers,
  ValidationSchema,
  validateAnswers,
  validationExitCode,
} from "../../src/validation/index.ts";

const repeat = (counts: Record<number, number>) =>
  Object.entries(counts).flatMap(([v, c]) => Array<number>(c).fill(Number(v)));

function one(q: QuestionAnswers, thresholds = {}) {
  const v = validateAnswers({ questions: [q], thresholds });
  expect(ValidationSchema.parse(v)).toEqual(v);
  return v.questions[0]!;
}

const ordinal = (real: number[], simulated: number[]): QuestionAnswers => ({
  question: "Vote",
  kind: "ordinal",
  scale: [1, 2, 3, 4, 5],
  real,
  simulated,
});

const wide = repeat({ 1: 20, 2: 20, 3: 20, 4: 20, 5: 20 });

describe("the frequency table", () => {
  it("counts distinct values in ascending order whatever the order of the answers", () => {
    const a = distributionOf([3, 1, 3, 2, 1, 3]);
    const b = distributionOf([1, 1, 2, 3, 3, 3]);
    expect([...a.values]).toEqual([1, 2, 3]);
    expect([...a.counts]).toEqual([2, 1, 3]);
    expect(a).toEqual(b);
  });

  it("sorts many distinct values instead of counting them in a map", () => {
    const many = Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 10_000);
    const d = distributionOf(many);
    expect(d.values.length).toBe(10_000);
    expect(d.values[0]).toBe(0);
    expect(d.values[9_999]).toBe(9_999);
  });

  it("gives log2(k) bits for k equally chosen categories and 0 for one", () => {
    expect(entropyBits([5, 5, 5, 5])).toBeCloseTo(2, 12);
    expect(entropyBits([0, 9, 0])).toBe(0);
    expect(entropyBits([0, 0])).toBeNull();
  });
});

describe("an ordinal question", () => {
  it("keeps a scale point nobody chose, with a count of 0", () => {
    const q = one(ordinal(wide, repeat({ 2: 30, 3: 40, 4: 30 })));
    expect(q.simulated.counts).toEqual({ "1": 0, "2": 30, "3": 40, "4": 30, "5": 0 });
  });

  it("is consistent when both sides are drawn alike", () => {
    const q = one(ordinal(wide, repeat({ 1: 19, 2: 21, 3: 20, 4: 22, 5: 18 })));
    expect(q.verdict).toBe("consistent");
    expect(q.welch!.p).toBeGreaterThan(0.5);
  });

  it("is collapsed when the mean agrees but the spread is gone", () => {
    const q = one(ordinal(wide, repeat({ 2: 10, 3: 80, 4: 10 })));
    expect(q.welch!.p).toBeGreaterThan(0.05);
    expect(q.sd_ratio!).toBeLessThan(0.6);
    expect(q.verdict).toBe("collapsed");
    expect(q.reasons.join("\n")).toMatch(/spread is far below/);
  });

  it("is shifted when the location moves and the spread stays", () => {
    const q = one(ordinal(repeat({ 1: 30, 2: 30, 3: 30, 4: 10 }), repeat({ 2: 10, 3: 30, 4: 30, 5: 30 })));
    expect(q.welch!.p).toBeLessThan(0.05);
    expect(q.sd_ratio!).toBeGreaterThan(0.6);
    expect(q.verdict).toBe("shifted");
  });

  it("is different when the location moves and the spread collapses", () => {
    const q = one(ordinal(wide, repeat({ 5: 95, 4: 5 })));
    expect(q.verdict).toBe("different");
  });

  it("is different when the shape changes though mean and spread agree", () => {
    // U-shaped against flat: the same mean, a similar sd, another distribution.
    const q = one(ordinal(repeat({ 1: 100, 3: 20, 5: 100 }), repeat({ 1: 40, 2: 40, 3: 60, 4: 40, 5: 40 })));
    expect(q.welch!.p).toBeGreaterThan(0.05);
    expect(q.verdict).toBe("different");
  });

  it("calls a low sd in a small sample consistent when the distributions do not differ", () => {
    const q = one(ordinal([1, 3, 5, 2, 4], [3, 3, 2, 4, 3]));
    expect(q.sd_ratio!).toBeLessThan(0.6);
    expect(q.verdict).toBe("consistent");
    expect(q.reasons.join("\n")).toMatch(/do not differ at this sample size/);
  });

  it("moves the verdict with the thresholds", () => {
    const collapsedData = ordinal(wide, repeat({ 2: 10, 3: 80, 4: 10 }));
    expect(one(collapsedData, { collapse_sd_ratio: 0.1, collapse_entropy_ratio: 0.1 }).verdict).toBe(
      "different",
    );
    const shifted = ordinal(repeat({ 1: 30, 2: 30, 3: 30, 4: 10 }), repeat({ 2: 10, 3: 30, 4: 30, 5: 30 }));
    expect(one(shifted, { alpha: 1e-30 }).verdict).toBe("consistent");
  });

  it("gives the χ² caveat and a seeded Monte-Carlo p when expected counts are small", () => {
    const data = ordinal([1, 2, 3, 4, 5, 3, 3, 2], [3, 3, 3, 3, 2, 4, 3, 3]);
    const a = one(data);
    expect(a.chi2!.small_expected_cells).toBeGreaterThan(0);
    expect(a.chi2!.monte_carlo).toMatchObject({ samples: DEFAULT_THRESHOLDS.monte_carlo_samples, seed: 49 });
    expect(a.reasons.join("\n")).toMatch(/expected counts are below 5.*approximate/);
    expect(one(data).chi2!.monte_carlo!.p).toBe(a.chi2!.monte_carlo!.p);
    expect(one(data, { seed: 7 }).chi2!.monte_carlo!.p).not.toBe(a.chi2!.monte_carlo!.p);
    expect(one(ordinal(wide, wide)).chi2!.monte_carlo).toBeUndefined();
  });

  it("draws a Monte-Carlo p near the asymptotic one where the χ² approximation holds", () => {
    // Large counts but one sparse cell: the asymptotic p is good, and the simulated one must agree with it.
    const data = ordinal(repeat({ 1: 2, 2: 150, 3: 160, 4: 150 }), repeat({ 1: 3, 2: 160, 3: 140, 4: 170 }));
    const q = one(data, { monte_carlo_samples: 20_000 });
    const mc = q.chi2!.monte_carlo!.p;
    const se = Math.sqrt((q.chi2!.p * (1 - q.chi2!.p)) / 20_000);
    expect(Math.abs(mc - q.chi2!.p)).toBeLessThan(5 * se + 0.01);
  });
});

describe("the other kinds", () => {
  it("a numeric question has KS and Wasserstein but no counts, entropy or χ²", () => {
    const q = one({
      question: "price",
      kind: "numeric",
      real: [1.5, 2.25, 3, 4.75],
      simulated: [2, 2.5, 3.5, 9],
    });
    expect(q.real.counts).toBeNull();
    expect(q.real.entropy_bits).toBeNull();
    expect(q.chi2).toBeNull();
    expect(q.ks!.method).toBe("exact");
    // ∫|F − G|: the simulated answers sit 0.5, 0.25, 0.5 and 4.25 above the real ones, in order.
    expect(q.wasserstein_1).toBeCloseTo((0.5 + 0.25 + 0.5 + 4.25) / 4, 12);
  });

  it("a binary question's mean is the share of yes, with χ² but no KS", () => {
    const q = one({
      question: "buy",
      kind: "binary",
      real: [1, 0, 0, 1, 1, 0],
      simulated: [1, 1, 1, 1, 1, 0],
    });
    expect(q.real.mean).toBeCloseTo(0.5, 15);
    expect(q.simulated.mean).toBeCloseTo(5 / 6, 15);
    expect(q.ks).toBeNull();
    expect(q.chi2!.df).toBe(1);
  });

  it("a categorical question is tested on its counts and has no mean", () => {
    const q = one({
      question: "channel",
      kind: "categorical",
      categories: ["app", "device", "tablet"],
      real: [0, 1, 2, 0, 1, 2, 0, 1, 2, 2],
      simulated: [0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
    });
    expect(q.real.mean).toBeNull();
    expect(q.welch).toBeNull();
    expect(q.real.counts).toEqual({ app: 3, device: 3, tablet: 4 });
    expect(q.entropy_ratio!).toBeLessThan(0.75);
  });

  it("a ranking gives first-choice shares, mean ranks and one ordinal question per option", () => {
    const v = validateAnswers({
      questions: [
        {
          question: "Vote",
          kind: "ranking",
          options: ["A", "B", "C"],
          real: [
            [0, 1, 2],
            [1, 0, 2],
            [2, 1, 0],
            [1, 2, 0],
          ],
          simulated: [
            [0, 1, 2],
            [0, 2, 1],
            [0, 1, 2],
            [1, 0, 2],
          ],
        },
      ],
    });
    expect(v.questions.map((q) => q.question)).toEqual([
      "Vote",
      "Vote: rank of A",
      "Vote: rank of B",
      "Vote: rank of C",
    ]);
    const [head, a] = v.questions;
    expect(head!.first_choice).toEqual({
      real: { A: 0.25, B: 0.5, C: 0.25 },
      simulated: { A: 0.75, B: 0.25, C: 0 },
    });
    expect(head!.mean_rank!.real.A).toBeCloseTo((1 + 2 + 3 + 3) / 4, 15);
    expect(a!.of).toBe("Vote");
    expect(a!.real.counts).toEqual({ "1": 1, "2": 1, "3": 2 });
  });

  it("leaves a figure null and says so when a side has too few answers", () => {
    const q = one(ordinal([3], [3]));
    expect(q.welch).toBeNull();
    expect(q.real.sd).toBeNull();
    expect(q.chi2).toBeNull();
    expect(q.verdict).toBe("consistent");
  });
});

describe("the document", () => {
  it("counts the verdicts and exits 1 when a question fails", () => {
    const v = validateAnswers({
      questions: [ordinal(wide, wide), { ...ordinal(wide, repeat({ 2: 10, 3: 80, 4: 10 })), question: "Q2" }],
    });
    expect(v.summary).toEqual({
      questions: 2,
      failed: 1,
      verdicts: { consistent: 1, shifted: 0, collapsed: 1, different: 0 },
    });
    expect(validationExitCode(v)).toBe(1);
    expect(validationExitCode(validateAnswers({ questions: [ordinal(wide, wide)] }))).toBe(0);
  });
});
