// Every figure of `validate` against SciPy's for the same answers (scipy-reference.json, SciPy's own output
// written by scipy-reference.py beside it): TinyTroupe's Gazpacho and story-device surveys read through the
// readers, and synthetic edge cases. Each figure to 1e-9 relative (1e-12 absolute for values near 0).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type QuestionAnswers,
  questionFromFlags,
  type ValidationQuestion,
  validateAnswers,
  validateFiles,
} from "../../src/validation/index.ts";

type Reference = number | "nan" | "inf" | "-inf";
interface ExpectedSide {
  n: number;
  mean?: Reference;
  sd?: Reference;
  entropy_bits: Reference | null;
}
interface Expected {
  kind: string;
  real: ExpectedSide;
  simulated: ExpectedSide;
  welch?: { t: Reference; df: Reference; p: Reference };
  chi2: { statistic: number; df: number; p: number; min_expected: number } | null;
  ks?: { d: number; p: number } | null;
  wasserstein_1?: number | null;
  sd_ratio?: number | null;
  first_choice?: { real: Record<string, number>; simulated: Record<string, number> };
}
interface ReferenceFile {
  scipy: string;
  files: {
    real: string;
    simulated: string;
    spec: { column: string; simulated_column: string; kind: string; scale?: string };
    questions: Record<string, Expected>;
  }[];
  cases: {
    name: string;
    kind: "ordinal" | "numeric" | "binary";
    real: number[];
    simulated: number[];
    expected: Expected;
  }[];
}

const FIXTURES = new URL("../fixtures/validation/", import.meta.url);
const REFERENCE: ReferenceFile = JSON.parse(readFileSync(new URL("scipy-reference.json", FIXTURES), "utf8"));
const fixture = (name: string) => new URL(name, FIXTURES).pathname;

function close(actual: number | null | undefined, expected: Reference | null | undefined, what: string) {
  if (typeof expected !== "number") {
    expect(actual ?? null, `${what}: SciPy has no finite value (${expected}), so null`).toBeNull();
    return;
  }
  expect(actual, what).toBeTypeOf("number");
  const error = Math.abs(actual! - expected);
  expect(
    error <= 1e-9 * Math.abs(expected) || error <= 1e-12,
    `${what}: ${actual} vs SciPy ${expected} (off by ${error})`,
  ).toBe(true);
}

function expectScipy(actual: ValidationQuestion, expected: Expected, what: string) {
  for (const s of ["real", "simulated"] as const) {
    expect(actual[s].n, `${what} ${s}.n`).toBe(expected[s].n);
    if (expected[s].mean !== undefined) close(actual[s].mean, expected[s].mean, `${what} ${s}.mean`);
    if (expected[s].sd !== undefined) close(actual[s].sd, expected[s].sd, `${what} ${s}.sd`);
    close(actual[s].entropy_bits, expected[s].entropy_bits, `${what} ${s}.entropy_bits`);
  }
  if (expected.welch) {
    const undefinedTest = [expected.welch.t, expected.welch.p].some((x) => typeof x !== "number");
    if (undefinedTest) expect(actual.welch, `${what} welch`).toBeNull();
    else
      for (const k of ["t", "df", "p"] as const)
        close(actual.welch?.[k], expected.welch[k], `${what} welch.${k}`);
  }
  if (expected.chi2 === null) expect(actual.chi2, `${what} chi2`).toBeNull();
  else {
    expect(actual.chi2?.df, `${what} chi2.df`).toBe(expected.chi2.df);
    for (const k of ["statistic", "p", "min_expected"] as const)
      close(actual.chi2?.[k], expected.chi2[k], `${what} chi2.${k}`);
  }
  if (expected.ks === null) expect(actual.ks, `${what} ks`).toBeNull();
  else if (expected.ks) {
    close(actual.ks?.d, expected.ks.d, `${what} ks.d`);
    close(actual.ks?.p, expected.ks.p, `${what} ks.p`);
    expect(actual.ks?.method).toBe("exact");
  }
  if (expected.wasserstein_1 !== undefined)
    close(actual.wasserstein_1, expected.wasserstein_1, `${what} wasserstein_1`);
  if (expected.sd_ratio !== undefined) close(actual.sd_ratio, expected.sd_ratio, `${what} sd_ratio`);
  if (expected.first_choice)
    for (const s of ["real", "simulated"] as const)
      for (const [option, share] of Object.entries(expected.first_choice[s]))
        close(actual.first_choice?.[s][option], share, `${what} first_choice.${s}.${option}`);
}

describe("validate against SciPy", () => {
  it("the reference was written by SciPy 1.17 and holds the worked examples", () => {
    expect(REFERENCE.scipy).toMatch(/^1\.17\./);
    expect(REFERENCE.files.map((f) => f.simulated)).toEqual([
      "tinytroupe-gazpacho-simulated.csv",
      "tinytroupe-gazpacho-simulated-corrected.csv",
      "tinytroupe-story-device-simulated.json",
    ]);
  });

  for (const file of REFERENCE.files)
    it(`${file.real} against ${file.simulated}: every figure`, () => {
      const validation = validateFiles({
        real: fixture(file.real),
        simulated: fixture(file.simulated),
        questions: [
          questionFromFlags({
            column: file.spec.column,
            simulatedColumn: file.spec.simulated_column,
            kind: file.spec.kind,
            scale: file.spec.scale,
          }),
        ],
      });
      expect(validation.questions.map((q) => q.question)).toEqual(Object.keys(file.questions));
      for (const q of validation.questions)
        expectScipy(q, file.questions[q.question]!, `${file.simulated} ${q.question}`);
    });

  for (const c of REFERENCE.cases)
    it(`${c.name}: every figure`, () => {
      const answers: QuestionAnswers = {
        question: c.name,
        kind: c.kind,
        ...(c.kind === "ordinal" ? { scale: [1, 2, 3, 4, 5] } : {}),
        real: c.real,
        simulated: c.simulated,
      };
      expectScipy(validateAnswers({ questions: [answers] }).questions[0]!, c.expected, c.name);
    });
});

describe("the Gazpacho survey (issue 49's worked example)", () => {
  const gazpacho = (simulated: string) =>
    validateFiles({
      real: fixture("tinytroupe-gazpacho-real.csv"),
      simulated: fixture(simulated),
      questions: [
        questionFromFlags({ column: "Vote", simulatedColumn: "response", kind: "ordinal", scale: "1-5" }),
      ],
    }).questions[0]!;

  it("calls the simulated votes collapsed, with and without TinyTroupe's correction, though Welch's p is high", () => {
    const plain = gazpacho("tinytroupe-gazpacho-simulated.csv");
    const corrected = gazpacho("tinytroupe-gazpacho-simulated-corrected.csv");
    expect(plain.welch!.p).toBeGreaterThan(0.8);
    expect(corrected.welch!.p).toBeGreaterThan(0.2);
    expect(plain.verdict).toBe("collapsed");
    expect(corrected.verdict).toBe("collapsed");
    expect(plain.chi2!.small_expected_cells).toBeGreaterThan(0);
    expect(plain.chi2!.monte_carlo!.p).toBeLessThan(0.05);
  });
});
