// Preconditions (library API, TinyTroupe §2.3): a proposition reads "precondition ⇒ claim", so a
// precondition that returns false makes it trivially true (9) and no judge is asked.
import {
  InputError,
  type PreconditionContext,
  type Proposition,
  type PropositionSet,
} from "../core/index.ts";
import { propositionSetHash } from "./proposition-set.ts";

export type Precondition = NonNullable<Proposition["precondition"]>;

/**
 * `"trivially-true"` when the proposition has a precondition that returns exactly `false` (score it
 * 9, or `true` for a check, without a judge call, and mark the verdict trivial); `"judge"` when it
 * has none or it returns `true`, `null` or `undefined`. A precondition that throws propagates.
 */
export function evaluatePrecondition(
  proposition: Proposition,
  context: PreconditionContext,
): "judge" | "trivially-true" {
  if (!proposition.precondition) return "judge";
  return proposition.precondition(context) === false ? "trivially-true" : "judge";
}

/**
 * A copy of `set` in which proposition `id` carries `precondition` (replacing any it had); the hash
 * is recomputed, since a precondition changes scores. The original set is left untouched.
 */
export function withPrecondition(
  set: PropositionSet,
  id: string,
  precondition: Precondition,
): PropositionSet {
  if (!set.propositions.some((p) => p.id === id)) {
    const known = set.propositions.map((p) => p.id).join(", ") || "none";
    throw new InputError(`no proposition "${id}" in the ${set.dimension} set; it has ${known}`);
  }
  const propositions = set.propositions.map((p) => (p.id === id ? { ...p, precondition } : p));
  const updated = { ...set, propositions };
  return { ...updated, hash: propositionSetHash(updated) };
}
