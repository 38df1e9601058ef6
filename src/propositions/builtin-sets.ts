// Dramaturg's built-in default proposition sets: annotated YAML files shipped beside this module,
// used when a project has no `_default.yaml` for a dimension (and copied by `dramaturg init`).

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PersonaDimension, PropositionSet } from "../core/index.ts";
import {
  DEFAULT_FILE_NAME,
  type LocatedPropositionFile,
  readLocatedPropositionFile,
} from "./proposition-file.ts";
import { resolvePropositionSet } from "./proposition-set.ts";

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
