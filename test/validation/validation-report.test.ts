// The renderers of a validation (table, Markdown, SVG) and the spec file: the same document gives the same
// bytes, numeric questions get histograms, and a spec's mistakes are reported at their line.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  numericAnswers,
  type QuestionAnswers,
  readValidationSpec,
  renderValidationChart,
  renderValidationMarkdown,
  renderValidationTable,
  validateAnswers,
} from "../../src/validation/index.ts";
import { inputError } from "../input-error.ts";
import { tempDir } from "../temp-dir.ts";

const questions: QuestionAnswers[] = [
  {
    question: "Vote",
    kind: "ordinal",
    scale: [1, 2, 3, 4, 5],
    real: [1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 3, 3],
    simulated: [3, 3, 3, 3, 2, 4, 3, 3, 3, 3, 3, 3],
  },
  {
    question: "price",
    kind: "numeric",
    real: [1.5, 2.5, 3.5, 9.5, 4.25, 5],
    simulated: [3, 3.1, 3.2, 3.3, 3.4, 3.5],
  },
];

describe("the renderers", () => {
  it("give the same bytes for the same answers, whatever their order", () => {
    const reversed = questions.map((q) => ({
      ...q,
      real: [...(q.real as number[])].reverse(),
      simulated: [...(q.simulated as number[])].reverse(),
    })) as QuestionAnswers[];
    const [a, b] = [questions, reversed].map((qs) => validateAnswers({ questions: qs }));
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(renderValidationTable(b!)).toBe(renderValidationTable(a!));
    expect(renderValidationMarkdown(b!)).toBe(renderValidationMarkdown(a!));
    expect(renderValidationChart(b!, numericAnswers(reversed))).toBe(
      renderValidationChart(a!, numericAnswers(questions)),
    );
  });

  it("draw a numeric question as two histograms of ten bins over both sides' range", () => {
    const v = validateAnswers({ questions: [questions[1]!] });
    const withAnswers = renderValidationChart(v, numericAnswers(questions));
    const bars = (svg: string) => (svg.match(/fill="#c0522b"\/>/g) ?? []).length;
    // Ten simulated bars (and the legend's square).
    expect(bars(withAnswers)).toBe(11);
    expect(bars(renderValidationChart(v))).toBe(1);
  });

  it("put the verdict and its reasons under the table", () => {
    const text = renderValidationTable(validateAnswers({ questions: [questions[0]!] }));
    expect(text).toMatch(/^Vote: (consistent|shifted|collapsed|different)\n {2}- means /m);
    expect(text).toMatch(/^1 question\(s\): /m);
  });
});

describe("the spec file", () => {
  it("reads questions, labelled scales and thresholds", () => {
    const file = join(tempDir(), "spec.yaml");
    writeFileSync(
      file,
      "questions:\n  - column: Q1\n    kind: ordinal\n    scale: [no, maybe, yes]\n  - column: Q2\n    simulated_column: q2\n    question: Second\n    kind: binary\nthresholds:\n  collapse_sd_ratio: 0.5\n",
    );
    const spec = readValidationSpec(file);
    expect(spec.questions[0]).toMatchObject({ scale: { points: [1, 2, 3], labels: ["no", "maybe", "yes"] } });
    expect(spec.questions[1]).toMatchObject({ question: "Second", column: "Q2", simulated_column: "q2" });
    expect(spec.thresholds).toEqual({ collapse_sd_ratio: 0.5 });
  });

  it("reports a scale on a question that is not ordinal, and an unknown key, at their lines", () => {
    const dir = tempDir();
    const scale = join(dir, "scale.yaml");
    writeFileSync(scale, "questions:\n  - column: Q1\n    kind: numeric\n    scale: 1-5\n");
    expect(inputError(() => readValidationSpec(scale)).message).toMatch(
      /scale\.yaml:4:\d+: .*a scale is for ordinal answers, not numeric/,
    );
    const unknown = join(dir, "unknown.yaml");
    writeFileSync(unknown, "questions:\n  - column: Q1\n    kind: ordinal\nthreshold:\n  alpha: 0.1\n");
    expect(inputError(() => readValidationSpec(unknown)).message).toMatch(/unknown\.yaml:4:\d+: .*threshold/);
  });
});
