// Dramaturg's built-in default proposition sets: annotated YAML files shipped beside this module,
// used when a project has no `_default.yaml` for a dimension (and copied by `dramaturg init`).

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  ACTION_LEVEL_WINDOW_DEFAULTS,
  type PersonaDimension,
  PropositionFileSchema,
  type PropositionSet,
  parseLocatedYaml,
  readInputFile,
} from "../core/index.ts";
import {
  DEFAULT_FILE_NAME,
  type LocatedPropositionFile,
  readLocatedPropositionFile,
} from "./proposition-file.ts";
import { propositionSetHash, resolvePropositionSet } from "./proposition-set.ts";

/** Absolute path of the folder holding `<dimension>/_default.yaml` for every persona dimension. */
export const BUILTIN_PROPOSITIONS_DIR = fileURLToPath(new URL("./builtin/", import.meta.url));

/** How a built-in set is named in `PropositionSet.sources`. */
export function builtinSource(dimension: PersonaDimension): string {
  return `builtin:${dimension}`;
}

/** Path of the built-in `_default.yaml` of a dimension. */
export function builtinPropositionFilePath(dimension: PersonaDimension): string {
  return join(BUILTIN_PROPOSITIONS_DIR, dimension, `${DEFAULT_FILE_NAME}.yaml`);
}

export function readBuiltinPropositionFile(dimension: PersonaDimension): Promise<LocatedPropositionFile> {
  return readLocatedPropositionFile(builtinPropositionFilePath(dimension), builtinSource(dimension));
}

/** The built-in set of a dimension, resolved on its own (for an agent, or the environment). */
export async function builtinPropositionSet(
  dimension: PersonaDimension,
  agentId?: string,
): Promise<PropositionSet> {
  const file = await readBuiltinPropositionFile(dimension);
  return resolvePropositionSet({ dimension, agentId, files: [file] });
}

/**
 * A set of the action gate's own dimension. Suitability is not a persona dimension (offline evaluation
 * has no such score), so it has a schema of its own and the persona loaders never read it.
 */
export type SuitabilityPropositionSet = Omit<PropositionSet, "dimension"> & { dimension: "suitability" };

const SuitabilityFileSchema = PropositionFileSchema.extend({ dimension: z.literal("suitability") });

/** Path of the action gate's built-in suitability set. */
export const BUILTIN_SUITABILITY_FILE = join(
  BUILTIN_PROPOSITIONS_DIR,
  "suitability",
  `${DEFAULT_FILE_NAME}.yaml`,
);

/** The gate's built-in suitability set (action-level window, persona included unless the file says not). */
export function builtinSuitabilitySet(agentId?: string): SuitabilityPropositionSet {
  const path = BUILTIN_SUITABILITY_FILE;
  const { data: file } = parseLocatedYaml(
    readInputFile(path, "proposition file"),
    path,
    SuitabilityFileSchema,
  );
  const set: Omit<SuitabilityPropositionSet, "hash"> = {
    dimension: "suitability",
    ...(agentId !== undefined ? { agent_id: agentId } : {}),
    include_personas: file.include_personas ?? true,
    hard: file.hard ?? false,
    target_type: "agent",
    first_n: file.first_n ?? ACTION_LEVEL_WINDOW_DEFAULTS.first_n,
    last_n: file.last_n ?? ACTION_LEVEL_WINDOW_DEFAULTS.last_n,
    double_check: file.double_check ?? false,
    propositions: file.propositions.map((p) => ({ ...p })),
    sources: ["builtin:suitability"],
  };
  // The hash reads only the fields every set has; the dimension name is part of it like any other.
  const hash = propositionSetHash(set as unknown as Omit<PropositionSet, "hash" | "sources">);
  return { ...set, hash };
}
