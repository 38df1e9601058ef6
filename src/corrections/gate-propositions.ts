// The proposition sets the action gate judges with: by default the built-in persona sets for adherence,
// consistency and fluency, and the gate's own suitability set.
import type { GateDimension, PropositionSet } from "../core/index.ts";
import { builtinPropositionSet, builtinSuitabilitySet } from "../propositions/index.ts";

/** A proposition set for one gate dimension (a persona set, or a suitability set). */
export type GatePropositionSet = Omit<PropositionSet, "dimension"> & { dimension: GateDimension };

/** The sets a gate judges with, by dimension; a dimension left out uses the built-in set. */
export type GatePropositionSets = Partial<Record<GateDimension, GatePropositionSet>>;

/**
 * Dramaturg's built-in gate sets. Adherence, consistency and fluency are the offline evaluation's own
 * sets (their claims are about "the message", which the gate shows the judge as the tentative one);
 * the gate applies its action-level window to them, not their evaluation-level one.
 */
export async function builtinGatePropositionSets(): Promise<Record<GateDimension, GatePropositionSet>> {
  const [adherence, consistency, fluency] = await Promise.all([
    builtinPropositionSet("adherence"),
    builtinPropositionSet("consistency"),
    builtinPropositionSet("fluency"),
  ]);
  return {
    adherence: { ...adherence, dimension: "adherence" },
    consistency: { ...consistency, dimension: "consistency" },
    fluency: { ...fluency, dimension: "fluency" },
    suitability: builtinSuitabilitySet(),
  };
}
