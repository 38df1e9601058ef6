// Merges a dimension's default file with an agent's file into one resolved `PropositionSet`, and
// hashes what changes a score (settings and propositions, never file paths).
import {
  contentHash,
  EVALUATION_WINDOW_DEFAULTS,
  InputError,
  type PersonaDimension,
  type Proposition,
  type PropositionFile,
  type PropositionSet,
} from "../core/index.ts";
import { type LocatedPropositionFile, targetTypeOf } from "./proposition-file.ts";

/** A file to merge: its content and its name for `sources` and messages. */
export interface SourcedPropositionFile {
  /** A path, or `builtin:<dimension>`. */
  source: string;
  file: PropositionFile;
  /** `line:col` of a part of the file, when known (files read from disk). */
  placeOf?: LocatedPropositionFile["placeOf"];
}

/** Settings used when no merged file sets them (format doc; windows from `EVALUATION_WINDOW_DEFAULTS`). */
export const PROPOSITION_SET_DEFAULTS = Object.freeze({
  include_personas: true,
  hard: false,
  first_n: EVALUATION_WINDOW_DEFAULTS.first_n,
  last_n: EVALUATION_WINDOW_DEFAULTS.last_n,
  double_check: false,
});

const SETTINGS = ["include_personas", "hard", "target_type", "first_n", "last_n", "double_check"] as const;

/**
 * Resolves the set for one dimension (and agent): files are merged in order, each one's file-level
 * settings overriding the earlier ones' and its propositions appended after theirs. A proposition id
 * defined twice is an `InputError` naming both places. `target_type` defaults to the dimension's own
 * (agent for adherence, consistency, fluency; environment for convergence, ideas_quantity).
 */
export function resolvePropositionSet({
  dimension,
  agentId,
  files,
}: {
  dimension: PersonaDimension;
  /** The agent the set is for; omit for environment dimensions. */
  agentId?: string;
  /** Files in merge order: the default first, then the agent's. */
  files: readonly SourcedPropositionFile[];
}): PropositionSet {
  const settings: Pick<PropositionSet, (typeof SETTINGS)[number]> = {
    ...PROPOSITION_SET_DEFAULTS,
    target_type: targetTypeOf(dimension),
  };
  const propositions: Proposition[] = [];
  const definedAt = new Map<string, string>();

  for (const { source, file, placeOf } of files) {
    if (file.dimension !== dimension) {
      throw new InputError(`dimension: expected ${dimension}, got ${file.dimension}`, {
        file: source,
        place: placeOf?.(["dimension"]),
      });
    }
    for (const key of SETTINGS) {
      const value = file[key];
      if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
    }
    file.propositions.forEach((spec, index) => {
      const here = placeOf ? `${source}:${placeOf(["propositions", index, "id"])}` : source;
      const earlier = definedAt.get(spec.id);
      if (earlier !== undefined) {
        throw new InputError(
          `id: duplicate proposition id "${spec.id}" in the merged ${dimension} set; already defined at ${earlier}`,
          {
            file: source,
            place: placeOf?.(["propositions", index, "id"]),
          },
        );
      }
      definedAt.set(spec.id, here);
      propositions.push({ ...spec });
    });
  }

  const set: Omit<PropositionSet, "hash"> = {
    dimension,
    ...(agentId !== undefined ? { agent_id: agentId } : {}),
    ...settings,
    propositions,
    sources: files.map((f) => f.source),
  };
  return { ...set, hash: propositionSetHash(set) };
}

/**
 * Hash of what changes a score: the dimension, the settings and each proposition's id, claim, weight,
 * inverted flag, recommendations and precondition (by its source text). Not the agent, not `sources`:
 * moving or renaming a folder keeps the hash, and agents sharing one default set share one hash.
 */
export function propositionSetHash(set: Omit<PropositionSet, "hash" | "sources" | "agent_id">): string {
  return contentHash({
    dimension: set.dimension,
    include_personas: set.include_personas,
    hard: set.hard,
    target_type: set.target_type,
    first_n: set.first_n,
    last_n: set.last_n,
    double_check: set.double_check,
    propositions: set.propositions.map((p) => ({
      id: p.id,
      claim: p.claim,
      weight: p.weight,
      inverted: p.inverted,
      recommendations_for_improvement: p.recommendations_for_improvement,
      precondition: p.precondition ? p.precondition.toString() : undefined,
    })),
  });
}
