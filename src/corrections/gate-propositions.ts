// The proposition sets the action gate judges with: by default the built-in persona sets for adherence,
// consistency and fluency, and the gate's own suitability set.
import { GATE_DIMENSIONS, type GateDimension, type PropositionSet, readInputFile } from "../core/index.ts";
import {
  builtinPropositionFilePath,
  builtinSource,
  builtinSuitabilitySet,
  parsePropositionFile,
  resolvePropositionSet,
} from "../propositions/index.ts";

/** A proposition set for one gate dimension (a persona set, or a suitability set). */
export type GatePropositionSet = Omit<PropositionSet, "dimension"> & { dimension: GateDimension };

/** The sets a gate judges with, by dimension; a dimension left out uses the built-in set. */
export type GatePropositionSets = Partial<Record<GateDimension, GatePropositionSet>>;

/**
 * Dramaturg's built-in set of one gate dimension. Adherence, consistency and fluency are the offline
 * evaluation's own sets (their claims are about "the message", which the gate shows the judge as the
 * tentative one); the gate applies its action-level window to them, not their evaluation-level one.
 * Read and parsed synchronously: a gate loads its sets when it is made, never inside a check, so that its
 * deadline holds from the moment a message arrives.
 */
export function builtinGatePropositionSet(dimension: GateDimension): GatePropositionSet {
  if (dimension === "suitability") return builtinSuitabilitySet();
  const path = builtinPropositionFilePath(dimension);
  const file = parsePropositionFile(readInputFile(path, "proposition file"), path);
  const set = resolvePropositionSet({ dimension, files: [{ source: builtinSource(dimension), file }] });
  return { ...set, dimension };
}

/** Every built-in gate set, by dimension. */
export function builtinGatePropositionSets(): Record<GateDimension, GatePropositionSet> {
  return Object.fromEntries(GATE_DIMENSIONS.map((d) => [d, builtinGatePropositionSet(d)])) as Record<
    GateDimension,
    GatePropositionSet
  >;
}

/** The sets of `dimensions`: each one given, else the built-in one (read now; none read when all are given). */
export function gatePropositionSetsFor(
  dimensions: readonly GateDimension[],
  given: GatePropositionSets = {},
): GatePropositionSets {
  return Object.fromEntries(dimensions.map((d) => [d, given[d] ?? builtinGatePropositionSet(d)]));
}
