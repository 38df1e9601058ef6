import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { builtinGatePropositionSets } from "../../src/corrections/index.ts";
import {
  BUILTIN_SUITABILITY_FILE,
  builtinSuitabilitySet,
  loadPropositions,
} from "../../src/propositions/index.ts";

describe("the gate's built-in proposition sets", () => {
  it("suitability is action-level, shows the persona, and gives a recommendation for every claim", () => {
    const set = builtinSuitabilitySet();
    expect(set).toMatchObject({
      dimension: "suitability",
      include_personas: true,
      target_type: "agent",
      first_n: 5,
      last_n: 10,
      double_check: false,
    });
    expect(set.propositions.map((p) => [p.id, p.inverted])).toEqual([
      ["fits-situation", false],
      ["out-of-place", true],
    ]);
    for (const p of set.propositions) expect(p.recommendations_for_improvement?.length).toBeGreaterThan(40);
  });

  it("the suitability file explains each of its settings in a comment just above it", () => {
    const lines = readFileSync(BUILTIN_SUITABILITY_FILE, "utf8").split("\n");
    for (const setting of [
      "dimension",
      "include_personas",
      "hard",
      "target_type",
      "first_n",
      "double_check",
    ]) {
      const at = lines.findIndex((l) => l.startsWith(`${setting}:`));
      expect(lines[at - 1], setting).toMatch(/^# /);
    }
  });

  it("the gate judges adherence, consistency and fluency with the persona sets", async () => {
    const sets = await builtinGatePropositionSets();
    expect(sets.adherence.propositions.map((p) => p.id)).toContain("persona-traits");
    expect(sets.consistency.include_personas).toBe(false);
    expect(sets.fluency.include_personas).toBe(false);
    expect(sets.suitability.sources).toEqual(["builtin:suitability"]);
  });

  it("offline evaluation still loads only the persona dimensions", async () => {
    const loaded = await loadPropositions({ dimensions: ["adherence", "fluency"], agentIds: ["marta"] });
    expect([...loaded.sets.agent.get("marta")!.keys()]).toEqual(["adherence", "fluency"]);
    expect(loaded.warnings).toEqual([]);
  });
});
