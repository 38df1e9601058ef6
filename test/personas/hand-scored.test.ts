// A transcript and propositions written for this test only, with hand-written fixture verdicts:
// the scores must be exactly what the formulas give by hand (worked out in the comments).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PERSONA_DIMENSIONS, parseTranscript } from "../../src/core/index.ts";
import { executePlan } from "../../src/engine/index.ts";
import { FixtureJudge } from "../../src/judge/index.ts";
import { aggregatePersonaScores, planPersonaEvaluation } from "../../src/personas/index.ts";
import { loadPropositions, propositionSetFor } from "../../src/propositions/index.ts";
import { tempDir } from "../temp-dir.ts";

const dir = fileURLToPath(new URL("../fixtures/hand-scored/", import.meta.url));
const transcript = parseTranscript(readFileSync(`${dir}transcript.json`, "utf8"), "transcript.json");

async function evaluate(mode: "individual" | "batch", fixtures = `${dir}judge-fixtures.json`) {
  const loaded = await loadPropositions({
    dir: `${dir}propositions`,
    dimensions: PERSONA_DIMENSIONS,
    agentIds: transcript.agents.map((a) => a.id),
  });
  const plan = planPersonaEvaluation({
    transcript,
    propositions: (d, a) => propositionSetFor(loaded, d, a),
    dimensions: PERSONA_DIMENSIONS,
    mode,
  });
  const judge = FixtureJudge.fromFile(fixtures);
  const run = await executePlan(plan, { judge });
  return { plan, run, scores: aggregatePersonaScores(plan, run.verdicts) };
}

describe("hand-scored transcript", () => {
  it("gives each agent dimension the score the formulas give by hand", async () => {
    const { scores } = await evaluate("individual");
    const kai = scores.agents.find((a) => a.agent_id === "kai")!;
    const rue = scores.agents.find((a) => a.agent_id === "rue")!;
    // Kai's set is hard (kai.yaml): a1 = mean(6*0.8, 9) = 6.9; a2 inverted = mean((9-2)*0.8, 9-0) = 7.3;
    // k1 = mean(8*0.8, 7*0.8) = 6.0; adherence = (6.9 + 0.5*7.3 + 6.0) / 2.5 = 6.62.
    expect(kai.dimensions.adherence!.score).toBeCloseTo(6.62, 10);
    // Rue (not hard): a1 = mean(5, 7) = 6; a2 = mean(9-3, 9-1) = 7; adherence = (6 + 0.5*7) / 1.5.
    expect(rue.dimensions.adherence!.score).toBeCloseTo(9.5 / 1.5, 10);
    // Consistency judges only messages with an earlier one of the same agent: y3 for Kai, d1 for Rue.
    expect(kai.dimensions.consistency!.score).toBe(4);
    expect(rue.dimensions.consistency!.score).toBe(8);
    // Fluency: Kai (7 + (9-3)) / 2 = 6.5; Rue (5 + (9-6)) / 2 = 4.
    expect(kai.dimensions.fluency!.score).toBe(6.5);
    expect(rue.dimensions.fluency!.score).toBe(4);
    // Overall: mean of the three agent dimensions.
    expect(kai.overall_score).toBeCloseTo((6.62 + 4 + 6.5) / 3, 10);
    expect(rue.overall_score).toBeCloseTo((9.5 / 1.5 + 8 + 4) / 3, 10);
    expect(scores.errored).toBe(0);
  });

  it("scores voice divergence and counts ideas once per channel, a DM included", async () => {
    const { scores } = await evaluate("individual");
    const yard = scores.environments.find((e) => e.channel === "yard")!;
    const dm = scores.environments.find((e) => e.channel === "dm-rue-kai")!;
    // yard: (1*6 + 2*(9-4)) / 3; dm: (9 + 2*9) / 3 = 9.
    expect(yard.dimensions.convergence!.score).toBeCloseTo(16 / 3, 10);
    expect(dm.dimensions.convergence!.score).toBe(9);
    expect(yard.dimensions.ideas_quantity).toMatchObject({
      count: 2,
      ideas: ["fix the fence", "fix the roof"],
    });
    expect(dm.dimensions.ideas_quantity!.count).toBe(0);
  });

  it("the most specific fixture verdict wins over a general one", async () => {
    const { scores } = await evaluate("individual");
    const a1 = scores.agents
      .find((a) => a.agent_id === "kai")!
      .dimensions.adherence!.propositions.find((p) => p.id === "a1")!;
    expect(a1.reasoning).toEqual(["y1", "y3"]);
  });

  it("batch mode gives the same scores with at most a fifth of the calls here", async () => {
    const individual = await evaluate("individual");
    const batch = await evaluate("batch");
    expect(batch.scores).toEqual(individual.scores);
    expect([...batch.plan.calls()].length).toBeLessThan([...individual.plan.calls()].length);
  });

  it("a missing verdict is errored, counted and left out of the score, never a default", async () => {
    const fixtures = JSON.parse(readFileSync(`${dir}judge-fixtures.json`, "utf8"));
    fixtures.verdicts = fixtures.verdicts.filter(
      (v: { proposition_id: string; message_id?: string }) =>
        !(v.proposition_id === "c1" && v.message_id === "y3"),
    );
    const { writeFileSync } = await import("node:fs");
    const tmp = `${tempDir("dramaturg-hand-scored-")}/fixtures.json`;
    writeFileSync(tmp, JSON.stringify(fixtures));
    const { scores, run } = await evaluate("individual", tmp);
    const kai = scores.agents.find((a) => a.agent_id === "kai")!;
    expect(kai.dimensions.consistency).toMatchObject({ score: null, errored: 1, verdicts: 0 });
    expect(kai.errored).toBe(1);
    expect(scores.errored).toBe(1);
    // Overall is the mean of the dimensions that were evaluated: adherence and fluency.
    expect(kai.overall_score).toBeCloseTo((6.62 + 6.5) / 2, 10);
    const errored = run.verdicts.find((v) => !v.verdict.ok)!;
    expect(errored.verdict.ok === false && errored.verdict.error.message).toMatch(
      /consistency\/c1 agent=kai message=y3/,
    );
  });
});
