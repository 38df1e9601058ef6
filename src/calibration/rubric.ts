// The rubric version of one proposition: a hash of what the judge is asked and shown for it (the claim, its
// inversion, the window and whether personas are shown). A calibration keeps it per proposition, so that a
// changed claim reads as uncalibrated in `dramaturg ci` while the unchanged ones stay calibrated.
import { contentHash, type PersonaDimension } from "../core/index.ts";
import { type LoadedPropositions, propositionSetFor } from "../propositions/index.ts";

/** One proposition where it is judged: on an agent's messages or whole trajectory, or on a channel. */
export interface RubricTarget {
  dimension: PersonaDimension;
  proposition_id: string;
  /** The agent whose proposition set applies; absent for a channel's (environment) dimension. */
  agent_id?: string;
}

/** `dimension` and proposition id, the key of a rubric. */
export const rubricKey = (t: { dimension: string; proposition_id: string }) =>
  `${t.dimension}\u0000${t.proposition_id}`;

/**
 * Each proposition's rubric hash over the targets given: the distinct definitions it has in their sets
 * (an agent's file may reword a claim), sorted, so the same claims give the same hash whatever the agents.
 */
export function propositionRubrics(
  propositions: LoadedPropositions,
  targets: Iterable<RubricTarget>,
): Map<string, string> {
  const definitions = new Map<string, Set<string>>();
  for (const target of targets) {
    const set = propositionSetFor(propositions, target.dimension, target.agent_id);
    const proposition = set?.propositions.find((p) => p.id === target.proposition_id);
    if (!set || !proposition) continue;
    const key = rubricKey(target);
    let seen = definitions.get(key);
    if (!seen) definitions.set(key, (seen = new Set()));
    seen.add(
      JSON.stringify([
        proposition.claim,
        proposition.inverted === true,
        set.include_personas,
        set.first_n,
        set.last_n,
      ]),
    );
  }
  return new Map([...definitions].map(([key, seen]) => [key, contentHash([...seen].sort())]));
}
