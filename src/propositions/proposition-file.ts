import { basename, dirname, extname } from "node:path";
import {
  AGENT_DIMENSIONS,
  type DocumentPath,
  InputError,
  isPersonaDimension,
  nearestName,
  type PersonaDimension,
  type PropositionFile,
  PropositionFileSchema,
  parseLocatedYaml,
  readInputFile,
} from "../core/index.ts";
import { CLAIM_VARIABLE_NAMES } from "./claim.ts";

/** File name (without extension) of the set that applies to every agent of a dimension. */
export const DEFAULT_FILE_NAME = "_default";
/** Extensions read as proposition files, in order of preference. */
export const PROPOSITION_FILE_EXTENSIONS = [".yaml", ".yml"] as const;

/** A validated file that still knows where its parts were written (for errors spanning two files). */
export interface LocatedPropositionFile {
  /** How the file is named in `sources` and in messages: its path, or `builtin:<dimension>`. */
  source: string;
  file: PropositionFile;
  /** `line:col` of a part of the file (see `LocatedYaml.placeOf`). */
  placeOf(path: DocumentPath, options?: { key?: boolean }): string;
}

/** Whether a dimension is judged per agent (`agent`) or on a whole channel (`environment`). */
export function targetTypeOf(dimension: PersonaDimension): "agent" | "environment" {
  return (AGENT_DIMENSIONS as readonly string[]).includes(dimension) ? "agent" : "environment";
}

/**
 * Reads and validates a proposition file. Throws `InputError` naming the file, the line and column,
 * and what was expected. When the file sits in a folder named after a dimension (`…/adherence/x.yaml`):
 * its `dimension` must be that folder's; `_default.yaml` must not set `agent_id`; `<agent>.yaml` must
 * not set a different `agent_id`, and gets `agent_id: <agent>` when it sets none.
 */
export async function loadPropositionFile(path: string): Promise<PropositionFile> {
  return (await readLocatedPropositionFile(path)).file;
}

/** `loadPropositionFile` for text already in memory; `path` is used for messages and the location rules. */
export function parsePropositionFile(text: string, path: string): PropositionFile {
  return parseLocatedPropositionFile(text, path).file;
}

export async function readLocatedPropositionFile(
  path: string,
  source = path,
): Promise<LocatedPropositionFile> {
  const text = readInputFile(path, "proposition file");
  return parseLocatedPropositionFile(text, path, source);
}

export function parseLocatedPropositionFile(
  text: string,
  path: string,
  source = path,
): LocatedPropositionFile {
  const { data: file, placeOf } = parseLocatedYaml(text, path, PropositionFileSchema);
  const fail = (at: DocumentPath, message: string, options?: { key?: boolean }): never => {
    throw new InputError(message, { file: path, place: placeOf(at, options) });
  };

  const folder = basename(dirname(path));
  const name = basename(path, extname(path));
  if (isPersonaDimension(folder)) {
    if (file.dimension !== folder) {
      fail(
        ["dimension"],
        `dimension: "${file.dimension}" does not match the folder the file is in; expected ${folder} (or move the file to a ${file.dimension}/ folder)`,
      );
    }
    if (name === DEFAULT_FILE_NAME) {
      if (file.agent_id !== undefined) {
        fail(
          ["agent_id"],
          `agent_id: a ${DEFAULT_FILE_NAME} file applies to every agent; remove agent_id, or move these propositions to ${file.agent_id}.yaml`,
        );
      }
    } else if (!name.startsWith("_")) {
      if (file.agent_id !== undefined && file.agent_id !== name) {
        fail(
          ["agent_id"],
          `agent_id: "${file.agent_id}" does not match the file name; expected ${name} (or rename the file to ${file.agent_id}.yaml)`,
        );
      }
      file.agent_id = name;
    }
  }

  const natural = targetTypeOf(file.dimension);
  if (file.target_type !== undefined && file.target_type !== natural) {
    const scope = natural === "agent" ? "per agent" : "on a whole channel";
    fail(
      ["target_type"],
      `target_type: ${file.dimension} is judged ${scope}; expected ${natural}, got ${file.target_type}`,
    );
  }

  const firstIndex = new Map<string, number>();
  file.propositions.forEach((proposition, index) => {
    const earlier = firstIndex.get(proposition.id);
    if (earlier !== undefined) {
      fail(
        ["propositions", index, "id"],
        `id: duplicate proposition id "${proposition.id}"; already defined at ${path}:${placeOf(["propositions", earlier, "id"])}`,
      );
    }
    firstIndex.set(proposition.id, index);
    for (const field of ["claim", "recommendations_for_improvement"] as const) {
      const unknown = unknownVariable(proposition[field]);
      if (unknown !== undefined) fail(["propositions", index, field], `${field}: ${unknown}`);
    }
  });

  return { source, file, placeOf };
}

/**
 * Any `{{…}}` (not only a well-formed name), since a placeholder the renderer does not fill reaches
 * the judge as literal braces: a misspelt variable would be judged as written, silently.
 */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** What is wrong with the first `{{name}}` in a text that is not a claim variable, if one is. */
function unknownVariable(text: string | undefined): string | undefined {
  for (const [, name] of (text ?? "").matchAll(PLACEHOLDER)) {
    if ((CLAIM_VARIABLE_NAMES as readonly string[]).includes(name!)) continue;
    const meant = nearestName(name!, CLAIM_VARIABLE_NAMES);
    const known = CLAIM_VARIABLE_NAMES.map((v) => `{{${v}}}`).join(", ");
    return `unknown template variable {{${name}}}${meant ? `; did you mean {{${meant}}}?` : ""} (the variables are ${known})`;
  }
  return undefined;
}
