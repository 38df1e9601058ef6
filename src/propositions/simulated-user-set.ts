// The propositions about a conversation's simulated user (not about the agent): does it stay in its role,
// pursue its tasks, keep the facts withheld from it, end when the tasks are done? A built-in set shipped
// beside this module, or a user's file of the same shape. It is not a persona dimension: the persona
// loaders never read it, and its file has a schema of its own (a `when` per proposition, a `threshold`).
import { join } from "node:path";
import { z } from "zod";
import {
  contentHash,
  InputError,
  PropositionSpecSchema,
  parseLocatedYaml,
  readInputFile,
  templateVariables,
} from "../core/index.ts";
import { BUILTIN_PROPOSITIONS_DIR } from "./builtin-sets.ts";
import { DEFAULT_FILE_NAME } from "./proposition-file.ts";

/** When a proposition about the simulated user is asked: in a pass that withholds the facts, gives them, or always. */
export const SIMULATED_USER_WHEN = ["facts_withheld", "facts_given"] as const;

/** The variables a claim about the simulated user may use. */
export const SIMULATED_USER_CLAIM_VARIABLES = ["user_name", "signoff"] as const;

const SimulatedUserPropositionSchema = PropositionSpecSchema.extend({
  when: z.enum(SIMULATED_USER_WHEN).optional(),
}).strict();

export const SimulatedUserPropositionFileSchema = z
  .object({
    dimension: z.literal("simulated_user"),
    threshold: z.number().int().min(1).max(9).default(5),
    propositions: z.array(SimulatedUserPropositionSchema).min(1, "at least one proposition"),
  })
  .strict();

export type SimulatedUserProposition = z.infer<typeof SimulatedUserPropositionSchema>;
export type SimulatedUserPropositionFile = z.infer<typeof SimulatedUserPropositionFileSchema>;

/** A set of propositions about the simulated user, ready to judge. */
export interface SimulatedUserPropositionSet {
  dimension: "simulated_user";
  /** A proposition scored under this (0–9, after inversion) is a broken brief. */
  threshold: number;
  propositions: SimulatedUserProposition[];
  /** Where it came from: `builtin:simulated_user`, or the file's path. */
  source: string;
  /** A hash of what changes a verdict (threshold and propositions), never the path. */
  hash: string;
}

/** Path of the built-in set about the simulated user. */
export const BUILTIN_SIMULATED_USER_FILE = join(
  BUILTIN_PROPOSITIONS_DIR,
  "simulated_user",
  `${DEFAULT_FILE_NAME}.yaml`,
);

/**
 * Reads a set about the simulated user: the built-in one, or `file`. Bad input is an InputError naming the
 * file, the line and column and what was expected; so is a claim variable other than {{user_name}} and
 * {{signoff}}, or two propositions with one id.
 */
export function loadSimulatedUserSet(file?: string): SimulatedUserPropositionSet {
  const path = file ?? BUILTIN_SIMULATED_USER_FILE;
  const { data, placeOf } = parseLocatedYaml(
    readInputFile(path, "simulated user proposition file"),
    path,
    SimulatedUserPropositionFileSchema,
  );
  return simulatedUserSetOf(
    data,
    file === undefined ? "builtin:simulated_user" : path,
    (at) => `${path}:${placeOf(at)}`,
  );
}

/**
 * A set from a file's contents, already through {@link SimulatedUserPropositionFileSchema} (a loaded file,
 * or a set carried whole in a queued job), under `source`: its ids and claim variables checked, its hash
 * taken of what changes a verdict. A mistake is an InputError naming where it is (`where`: the file, line and
 * column; by default the source and a path like `propositions.2.id`, when there is no file to point into).
 */
export function simulatedUserSetOf(
  data: SimulatedUserPropositionFile,
  source: string,
  where: (at: (string | number)[]) => string = (at) => `${source}: ${at.join(".")}`,
): SimulatedUserPropositionSet {
  const seen = new Set<string>();
  for (const [i, p] of data.propositions.entries()) {
    if (seen.has(p.id))
      throw new InputError(`${where(["propositions", i, "id"])}: the id "${p.id}" is used twice`);
    seen.add(p.id);
    for (const name of templateVariables(p.claim))
      if (!(SIMULATED_USER_CLAIM_VARIABLES as readonly string[]).includes(name))
        throw new InputError(
          `${where(["propositions", i, "claim"])}: unknown variable {{${name}}}; expected one of ${SIMULATED_USER_CLAIM_VARIABLES.map((v) => `{{${v}}}`).join(", ")}`,
        );
  }
  const propositions = data.propositions.map((p) => ({ ...p }));
  return {
    dimension: "simulated_user",
    threshold: data.threshold,
    propositions,
    source,
    hash: contentHash({ threshold: data.threshold, propositions }),
  };
}
