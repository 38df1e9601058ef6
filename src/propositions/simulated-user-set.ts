// The propositions about a simulated user (not about the agent): a conversation's (does it stay in its role,
// pursue its tasks, keep the facts withheld from it, end when the tasks are done?) or a red team's attacker,
// who plays the user with a strategy. A built-in set per role shipped beside this module, or a user's file of
// the same shape. It is not a persona dimension: the persona loaders never read it, and its file has a schema
// of its own (a `when` per proposition, a `threshold`).
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

/**
 * Whose brief a set checks: a conversation's simulated user (`converse`), or a red team's attacker
 * (`redteam`), which plays the user with a strategy.
 */
export type SimulatedRole = "user" | "attacker";

/** The variables a claim about the simulated user may use. */
export const SIMULATED_USER_CLAIM_VARIABLES = ["user_name", "signoff"] as const;

/** The variables a claim about a red team's attacker may use: the character attacked and the strategy's name. */
export const ATTACKER_CLAIM_VARIABLES = ["character", "strategy"] as const;

const CLAIM_VARIABLES: Record<SimulatedRole, readonly string[]> = {
  user: SIMULATED_USER_CLAIM_VARIABLES,
  attacker: ATTACKER_CLAIM_VARIABLES,
};

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
  /** Where it came from: `builtin:simulated_user` (`builtin:simulated_user/attacker`), or the file's path. */
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

/** Path of the built-in set about a red team's attacker. */
export const BUILTIN_ATTACKER_FILE = join(BUILTIN_PROPOSITIONS_DIR, "simulated_user", "attacker.yaml");

/**
 * Reads a set about the simulated user of `role`: its built-in one, or `file`. Bad input is an InputError
 * naming the file, the line and column and what was expected; so is a claim variable the role does not have
 * ({{user_name}} and {{signoff}} for the user, {{character}} and {{strategy}} for the attacker), two
 * propositions with one id, or a `when` in an attacker's set (an attacker is given no facts).
 */
export function loadSimulatedUserSet(
  file?: string,
  role: SimulatedRole = "user",
): SimulatedUserPropositionSet {
  const path = file ?? (role === "user" ? BUILTIN_SIMULATED_USER_FILE : BUILTIN_ATTACKER_FILE);
  const { data, placeOf } = parseLocatedYaml(
    readInputFile(path, "simulated user proposition file"),
    path,
    SimulatedUserPropositionFileSchema,
  );
  return simulatedUserSetOf(
    data,
    file !== undefined
      ? path
      : role === "user"
        ? "builtin:simulated_user"
        : "builtin:simulated_user/attacker",
    { role, where: (at) => `${path}:${placeOf(at)}` },
  );
}

/**
 * A set from a file's contents, already through {@link SimulatedUserPropositionFileSchema} (a loaded file,
 * or a set carried whole in a queued job), under `source`: its ids and claim variables checked for `role`, its
 * hash taken of what changes a verdict. A mistake is an InputError naming where it is (`where`: the file, line
 * and column; by default the source and a path like `propositions.2.id`, when there is no file to point into).
 */
export function simulatedUserSetOf(
  data: SimulatedUserPropositionFile,
  source: string,
  {
    role = "user",
    where = (at) => `${source}: ${at.join(".")}`,
  }: { role?: SimulatedRole; where?: (at: (string | number)[]) => string } = {},
): SimulatedUserPropositionSet {
  const variables = CLAIM_VARIABLES[role];
  const seen = new Set<string>();
  for (const [i, p] of data.propositions.entries()) {
    if (seen.has(p.id))
      throw new InputError(`${where(["propositions", i, "id"])}: the id "${p.id}" is used twice`);
    seen.add(p.id);
    if (role === "attacker" && p.when !== undefined)
      throw new InputError(
        `${where(["propositions", i, "when"])}: a red team's attacker is given no facts, so "when: ${p.when}" would never apply; remove it`,
      );
    for (const name of templateVariables(p.claim))
      if (!variables.includes(name))
        throw new InputError(
          `${where(["propositions", i, "claim"])}: unknown variable {{${name}}}; expected one of ${variables.map((v) => `{{${v}}}`).join(", ")}`,
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
