// The package's library entry point exposes the same pieces the CLI is built from.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as dramaturg from "../src/index.ts";

describe("library entry point", () => {
  it("evaluates a transcript with the fixture judge without the CLI", async () => {
    const root = new URL("../examples/ensemble/", import.meta.url);
    const transcript = dramaturg.parseTranscript(
      readFileSync(new URL("transcript.json", root), "utf8"),
      "t.json",
    );
    const loaded = await dramaturg.loadPropositions({
      dir: new URL("propositions", root).pathname,
      dimensions: ["fluency"],
      agentIds: transcript.agents.map((a) => a.id),
    });
    const plan = dramaturg.planPersonaEvaluation({
      transcript,
      propositions: (d, a) => dramaturg.propositionSetFor(loaded, d, a),
      dimensions: ["fluency"],
      mode: "batch",
    });
    const judge = dramaturg.FixtureJudge.fromFile(new URL("judge-fixtures.json", root).pathname);
    const run = await dramaturg.executePlan(plan, { judge });
    const scores = dramaturg.aggregatePersonaScores(plan, run.verdicts);
    const dov = scores.agents.find((a) => a.agent_id === "dov")!;
    expect(dov.dimensions.fluency!.score).toBeCloseTo(2.68, 2);
    expect(scores.errored).toBe(0);
  });
});
