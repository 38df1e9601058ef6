// Resolves a project's propositions folder into one `PropositionSet` per (agent, dimension) and per
// environment dimension: `_default.yaml` (or the built-in set), then `<agent_id>.yaml` merged on top.
// Folders are listed synchronously, as the files are read: a few small entries, before the first judge request,
// and node:fs/promises would load ≈ 3 ms of Node's own modules there (readline's among them).
import { readdirSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import {
  contentHash,
  InputError,
  isPersonaDimension,
  PERSONA_DIMENSIONS,
  type PersonaDimension,
  type PropositionSet,
} from "../core/index.ts";
import { readBuiltinPropositionFile } from "./builtin-sets.ts";
import {
  DEFAULT_FILE_NAME,
  type LocatedPropositionFile,
  PROPOSITION_FILE_EXTENSIONS,
  readLocatedPropositionFile,
  targetTypeOf,
} from "./proposition-file.ts";
import { resolvePropositionSet } from "./proposition-set.ts";

export interface LoadPropositionsOptions {
  /**
   * The propositions folder: one subfolder per dimension (`adherence/`, `consistency/`, …), each with
   * an optional `_default.yaml` and optional `<agent_id>.yaml` files. Omit to use the built-in sets only.
   */
  dir?: string;
  /** The dimensions to resolve; folders of other dimensions are not read. */
  dimensions: readonly PersonaDimension[];
  /** The agents of the transcript; agent dimensions get one set per agent. */
  agentIds: readonly string[];
  /**
   * Start from Dramaturg's built-in set when a dimension has no `_default.yaml` (default true). With
   * `false`, such a dimension has sets only for agents that have their own file.
   */
  builtins?: boolean;
}

/** Every resolved set of a run, and what was noticed but not fatal. */
export interface LoadedPropositions {
  sets: {
    /**
     * Agent id → dimension → set, for the agent dimensions requested (adherence, consistency,
     * fluency). Every requested agent has an entry; a dimension with no set for it is absent.
     */
    agent: Map<string, Map<PersonaDimension, PropositionSet>>;
    /** Dimension → set, for the environment dimensions requested (convergence, ideas_quantity). */
    environment: Map<PersonaDimension, PropositionSet>;
  };
  /** Files that were ignored and why (an agent not in the transcript, an unknown folder, …). */
  warnings: string[];
  /** Hash of every set's hash, keyed by agent and dimension: equal hashes mean the same propositions. */
  hash: string;
}

/**
 * Reads, validates and merges the propositions for a run. Any invalid file is an `InputError`
 * naming the file, line and column; files for agents not in `agentIds` only produce a warning.
 */
export async function loadPropositions({
  dir,
  dimensions,
  agentIds,
  builtins = true,
}: LoadPropositionsOptions): Promise<LoadedPropositions> {
  const warnings: string[] = [];
  const agentSets = new Map<string, Map<PersonaDimension, PropositionSet>>(
    agentIds.map((id) => [id, new Map<PersonaDimension, PropositionSet>()]),
  );
  const environmentSets = new Map<PersonaDimension, PropositionSet>();

  for (const dimension of dimensions) {
    if (!isPersonaDimension(dimension)) {
      throw new InputError(
        `unknown dimension "${String(dimension)}"; expected one of ${PERSONA_DIMENSIONS.join(", ")}`,
      );
    }
  }
  if (dir !== undefined) warnings.push(...(await checkPropositionsDir(dir)));

  for (const dimension of new Set(dimensions)) {
    const folder = dir === undefined ? undefined : await readDimensionFolder(join(dir, dimension), warnings);
    const base = folder?.defaultFile ?? (builtins ? await readBuiltinPropositionFile(dimension) : undefined);
    const agentFiles = folder?.agentFiles ?? new Map<string, LocatedPropositionFile>();

    if (targetTypeOf(dimension) === "environment") {
      for (const file of agentFiles.values()) {
        warnings.push(
          `${file.source}: ${dimension} is judged on a whole channel, not per agent; file ignored`,
        );
      }
      if (base) environmentSets.set(dimension, resolvePropositionSet({ dimension, files: [base] }));
      continue;
    }

    for (const [agentId, file] of agentFiles) {
      if (!agentSets.has(agentId))
        warnings.push(`${file.source}: no agent "${agentId}" in the transcript; file ignored`);
    }
    for (const [agentId, sets] of agentSets) {
      const own = agentFiles.get(agentId);
      const files = [base, own].filter((f): f is LocatedPropositionFile => f !== undefined);
      if (files.length > 0) sets.set(dimension, resolvePropositionSet({ dimension, agentId, files }));
    }
  }

  const hash = contentHash({
    agent: Object.fromEntries([...agentSets].map(([id, sets]) => [id, hashesOf(sets)])),
    environment: hashesOf(environmentSets),
  });
  return { sets: { agent: agentSets, environment: environmentSets }, warnings, hash };
}

/**
 * The set to judge `dimension` with: the agent's for agent dimensions (an `agentId` is required),
 * the environment's for convergence and ideas_quantity. `undefined` when there is none.
 */
export function propositionSetFor(
  result: LoadedPropositions,
  dimension: PersonaDimension,
  agentId?: string,
): PropositionSet | undefined {
  if (targetTypeOf(dimension) === "environment") return result.sets.environment.get(dimension);
  if (agentId === undefined) {
    throw new InputError(
      `${dimension} is judged per agent; an agent id is needed to pick its proposition set`,
    );
  }
  return result.sets.agent.get(agentId)?.get(dimension);
}

function hashesOf(sets: Map<PersonaDimension, PropositionSet>): Record<string, string> {
  return Object.fromEntries([...sets].map(([dimension, set]) => [dimension, set.hash]));
}

/** The folder must exist; subfolders that are not dimensions are probably typos, so say so. */
async function checkPropositionsDir(dir: string): Promise<string[]> {
  if (!(await isDirectory(dir))) throw new InputError("propositions folder not found", { file: dir });
  const warnings: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !entry.name.startsWith(".") && !isPersonaDimension(entry.name)) {
      warnings.push(
        `${join(dir, entry.name)}: not a dimension folder (expected ${PERSONA_DIMENSIONS.join(", ")}); ignored`,
      );
    }
  }
  return warnings;
}

interface DimensionFolder {
  defaultFile?: LocatedPropositionFile;
  agentFiles: Map<string, LocatedPropositionFile>;
}

/** Reads and validates every proposition file of one dimension folder (absent folder: nothing). */
async function readDimensionFolder(folder: string, warnings: string[]): Promise<DimensionFolder | undefined> {
  if (!(await isDirectory(folder))) return undefined;
  const byName = new Map<string, string>();
  const entries = readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
  for (const entry of entries.sort()) {
    const extension = extname(entry);
    if (!(PROPOSITION_FILE_EXTENSIONS as readonly string[]).includes(extension)) continue;
    const name = entry.slice(0, -extension.length);
    const other = byName.get(name);
    if (other !== undefined) {
      throw new InputError(`two files for "${name}" (${other} and ${entry}); keep one`, {
        file: join(folder, entry),
      });
    }
    byName.set(name, entry);
  }

  const result: DimensionFolder = { agentFiles: new Map() };
  for (const [name, entry] of byName) {
    const path = join(folder, entry);
    if (name === DEFAULT_FILE_NAME) {
      result.defaultFile = await readLocatedPropositionFile(path);
    } else if (name.startsWith("_")) {
      warnings.push(
        `${path}: names starting with "_" are reserved (only ${DEFAULT_FILE_NAME}.yaml is read); ignored`,
      );
    } else {
      result.agentFiles.set(name, await readLocatedPropositionFile(path));
    }
  }
  return result;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
