// A scenario's survey: the fixed rule that reads an answer from an agent's reply (each kind, with the cases
// where a looser rule would read something else), and the survey's mistakes refused at their line.
import { describe, expect, it } from "vitest";
import { parseScenario, type SurveyQuestion, surveyAnswer } from "../../src/experiments/index.ts";
import { inputError } from "../input-error.ts";

const question = (q: Partial<SurveyQuestion> & Pick<SurveyQuestion, "kind">): SurveyQuestion => ({
  id: "q",
  prompt: "?",
  ...q,
});

describe("surveyAnswer", () => {
  it("ordinal: the first number on the scale, not the first number", () => {
    const vote = question({ kind: "ordinal", scale: "1-5" });
    expect(surveyAnswer(vote, "4 — I would try it.")).toBe("4");
    expect(surveyAnswer(vote, "After 10 years of cold soup, a 2.")).toBe("2");
    expect(surveyAnswer(vote, "Maybe 2.5? Say 3.")).toBe("3");
    expect(surveyAnswer(vote, "I would never buy it.")).toBeNull();
  });

  it("numeric: the first number, whatever its size", () => {
    const price = question({ kind: "numeric" });
    expect(surveyAnswer(price, "About 12.50 euros, not 20.")).toBe("12.50");
    expect(surveyAnswer(price, "-3 degrees")).toBe("-3");
    expect(surveyAnswer(price, "no idea")).toBeNull();
  });

  it("binary: the first yes or no as a whole word", () => {
    const buy = question({ kind: "binary" });
    expect(surveyAnswer(buy, "Not sure... no, I would not.")).toBe("no");
    expect(surveyAnswer(buy, "Yes! (nobody asked me before)")).toBe("yes");
    expect(surveyAnswer(buy, "Nobody knows.")).toBeNull();
  });

  it("categorical: the option named earliest, whole words, the longer of two at one place", () => {
    const shop = question({
      kind: "categorical",
      options: ["market", "supermarket", "online shop", "online"],
    });
    expect(surveyAnswer(shop, "At the supermarket, or a market.")).toBe("supermarket");
    expect(surveyAnswer(shop, "Online shop first, then the Market.")).toBe("online shop");
    expect(surveyAnswer(shop, "Markets are too far.")).toBeNull();
  });
});

describe("a scenario's survey", () => {
  it("takes questions with their kinds and refuses what a kind does not take, at the line", () => {
    const base = (survey: string) =>
      `format: dramaturg.scenario/v1
id: s
title: S
population: { profile: average-customers, size: 2 }
group_size: 2
environments: 2
steps: 1
prompts: { intro: Hi., task: Talk. }
rapporteur: { prompt: Sum up. }
extraction: { kind: ideas, objective: List ideas., situation: A chat., fields: [name] }
parameters: [{ theme: soup }]
${survey}arms:
  control: { corrections: {} }
  treatment: { corrections: { gate_adherence_enabled: true } }
`;
    const ok = parseScenario(
      base(`survey:
  - { id: vote, prompt: "1 to 5?", kind: ordinal, scale: 1-5, empirical: { file: real.csv, column: Vote } }
  - { id: shop, prompt: "Where?", kind: categorical, options: [market, online] }
`),
    );
    expect(ok.survey?.map((q) => q.id)).toEqual(["vote", "shop"]);
    const noScale = inputError(() =>
      parseScenario(base(`survey:\n  - { id: vote, prompt: "1 to 5?", kind: ordinal }\n`), "s.yaml"),
    );
    expect(noScale.message).toMatch(/s\.yaml:13:\d+: scale: expected scale for ordinal questions/);
    const twice = inputError(() =>
      parseScenario(
        base(
          `survey:\n  - { id: a, prompt: "?", kind: binary }\n  - { id: a, prompt: "?", kind: numeric }\n`,
        ),
        "s.yaml",
      ),
    );
    expect(twice.message).toMatch(/s\.yaml:14:.*expected each question id once/);
  });
});
