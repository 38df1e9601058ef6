// The Vitest matchers of `dramaturg/vitest` on the bundled ensemble and its hand-written fixture
// verdicts: an agent in character passes, a drifted one fails with the propositions that fell.
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import "../../src/vitest/index.ts";
import { type EvalResult, evaluatePersonas } from "../../src/index.ts";

const root = fileURLToPath(new URL("../../examples/ensemble/", import.meta.url));
const transcript = `${root}transcript.json`;
const options = { propositions: `${root}propositions`, judge: `fixtures:${root}judge-fixtures.json` };

describe("dramaturg/vitest matchers", () => {
  let result: EvalResult;
  beforeAll(async () => {
    result = await evaluatePersonas({
      transcript,
      ...options,
      dimensions: ["adherence", "consistency", "fluency"],
    });
  });

  it("toStayInCharacter evaluates a transcript file and passes for an agent in character", async () => {
    // Wendell: adherence 7.60, consistency 7.08 in the fixtures.
    await expect(transcript).toStayInCharacter({ agent: "wendell", ...options, min: 7 });
  });

  it("toStayInCharacter fails for a drifted agent, naming the propositions that fell and why", async () => {
    // Inés: adherence 6.79 < 7.
    const error = await expect(result)
      .toStayInCharacter({ agent: "ines", ...options, min: 7 })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/Inés Okafor \(ines\) to stay in character \(min 7\)/);
    expect(message).toMatch(/adherence 6\.79 < 7/);
    const fell = result.runs
      .find((r) => r.agent_id === "ines")!
      .dimensions.adherence!.propositions.filter((p) => p.score !== null && p.score < 7);
    expect(fell.length).toBeGreaterThan(0);
    for (const p of fell) expect(message).toContain(p.id);
    expect(message).toContain(`judge: ${fell[0]!.reasoning[0]}`);
    expect(message).not.toMatch(/consistency/);
  });

  it("toScoreAtLeast is the per-dimension form", async () => {
    await expect(result).toScoreAtLeast("consistency", { agent: "dov", ...options, min: 7.5 });
    const error = await expect(result)
      .toScoreAtLeast("fluency", { agent: "dov", ...options, min: 6 })
      .catch((e: Error) => e);
    expect((error as Error).message).toMatch(/fluency 2\.68 < 6/);
    expect((error as Error).message).toContain("dov-catchphrase-tic 0.00 (inverted)");
  });

  it(".not inverts the matcher", async () => {
    await expect(result).not.toScoreAtLeast("fluency", { agent: "dov", ...options, min: 6 });
  });

  it("an agent that is not in the result fails rather than passing", async () => {
    const error = await expect(result)
      .toStayInCharacter({ agent: "nobody", ...options })
      .catch((e: Error) => e);
    expect((error as Error).message).toMatch(/no run for it/);
  });
});
