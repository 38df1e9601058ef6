// What a population is made from: a profile (`dramaturg.population-profile/v1`) describes the people in
// words, optionally split into segments, and names the persona fragments merged into each person
// (`dramaturg.persona-fragment/v1`, a partial persona as TinyTroupe's `difficult_person`).
import { existsSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { z } from "zod";
import {
  contentHash,
  InputError,
  issuePath,
  type Persona,
  parseLocatedYaml,
  readInputFile,
  stableStringify,
} from "../core/index.ts";
import { BUILTIN_PERSONA_FRAGMENTS, BUILTIN_POPULATION_PROFILES } from "./population-profiles.ts";

export const POPULATION_PROFILE_FORMAT = "dramaturg.population-profile/v1";
export const PERSONA_FRAGMENT_FORMAT = "dramaturg.persona-fragment/v1";

const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const NAME_NOUN = "a name of lower-case letters, digits and hyphens (difficult-person)";

/** A partial persona; it never names anyone, since it is merged into many people. */
const FragmentPersonaSchema = z
  .record(z.string(), z.unknown())
  .refine((p) => !("name" in p), { message: "a persona without name: a fragment is merged into many people" })
  .refine((p) => Object.keys(p).length > 0, { message: "a persona with at least one field" });

export const PersonaFragmentFileSchema = z
  .object({
    format: z.literal(PERSONA_FRAGMENT_FORMAT),
    name: z.string().regex(NAME, NAME_NOUN).optional().describe("Default: the file's name"),
    persona: FragmentPersonaSchema,
  })
  .strict();

const FragmentRefSchema = z.union([
  z
    .string()
    .min(1)
    .describe("A built-in fragment's name, or a fragment file (.yaml, .yml, .json) relative to the profile"),
  z.object({ name: z.string().regex(NAME, NAME_NOUN), persona: FragmentPersonaSchema }).strict(),
]);

export const PopulationProfileFileSchema = z
  .object({
    format: z.literal(POPULATION_PROFILE_FORMAT),
    name: z.string().regex(NAME, NAME_NOUN).optional().describe("Default: the file's name"),
    description: z
      .string()
      .min(1)
      .describe("The population in words: who they are, how they vary, known proportions"),
    particularities: z
      .string()
      .min(1)
      .optional()
      .describe("What every person has in common, told to the model that writes each persona"),
    fragments: z.array(FragmentRefSchema).default([]).describe("Merged into every person, in order"),
    segments: z
      .array(
        z
          .object({
            name: z.string().regex(NAME, NAME_NOUN),
            share: z
              .number()
              .int()
              .min(1)
              .default(1)
              .describe("Relative size; sizes are apportioned exactly"),
            description: z.string().min(1).optional().describe("What sets this segment apart"),
            fragments: z.array(FragmentRefSchema).default([]).describe("Merged into this segment's people"),
          })
          .strict(),
      )
      .min(1)
      .optional()
      .describe("Parts planned apart, each with its own fragments (political-compass: four quadrants)"),
  })
  .strict()
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.segments?.forEach((s, i) => {
      if (seen.has(s.name))
        ctx.addIssue({
          code: "custom",
          path: ["segments", i, "name"],
          message: `a segment name not used before`,
        });
      seen.add(s.name);
    });
  });

export type PopulationProfileFile = z.input<typeof PopulationProfileFileSchema>;

/** A partial persona merged into people. */
export interface PersonaFragment {
  name: string;
  persona: Record<string, unknown>;
}

export interface PopulationSegment {
  name: string;
  /** Relative size: a population of N is apportioned over the segments by share. */
  share: number;
  description?: string;
  fragments: PersonaFragment[];
}

/** A profile with its fragments read: everything the factory needs, and no file names left. */
export interface PopulationProfile {
  name: string;
  description: string;
  particularities?: string;
  fragments: PersonaFragment[];
  /** At least one; a profile without segments has one, `all`. */
  segments: PopulationSegment[];
}

/** The names of the built-in profiles. */
export function builtinPopulationProfileNames(): string[] {
  return Object.keys(BUILTIN_POPULATION_PROFILES);
}

/** A profile by built-in name (`average-customers`) or file; anything else is an InputError. */
export function resolvePopulationProfile(nameOrFile: string): PopulationProfile {
  const builtin = BUILTIN_POPULATION_PROFILES[nameOrFile];
  if (builtin) return structuredClone(builtin);
  if (!isFileReference(nameOrFile) && !existsSync(nameOrFile))
    throw new InputError(
      `no built-in profile "${nameOrFile}"; expected one of ${builtinPopulationProfileNames().join(", ")}, or a profile file (.yaml, .yml, .json)`,
    );
  return loadPopulationProfile(nameOrFile);
}

/** Reads and checks a profile file and the fragment files it names (relative to it). */
export function loadPopulationProfile(file: string): PopulationProfile {
  return parsePopulationProfile(readInputFile(file, "the population profile"), file);
}

/** Parses profile text; fragment files resolve against the folder of `file`. */
export function parsePopulationProfile(text: string, file = "<profile>"): PopulationProfile {
  const { data, placeOf } = parseLocatedYaml(text, file, PopulationProfileFileSchema);
  const base = dirname(resolve(file));
  const fragmentsOf = (refs: readonly z.output<typeof FragmentRefSchema>[], path: (string | number)[]) =>
    refs.map((ref, i) => {
      if (typeof ref !== "string") return { name: ref.name, persona: ref.persona };
      if (isFileReference(ref)) return loadPersonaFragment(resolve(base, ref));
      const builtin = BUILTIN_PERSONA_FRAGMENTS[ref];
      if (!builtin)
        throw new InputError(
          `${issuePath([...path, i])}: no built-in fragment "${ref}"; expected one of ${Object.keys(BUILTIN_PERSONA_FRAGMENTS).join(", ")}, or a fragment file ending in .yaml, .yml or .json`,
          { file, place: placeOf([...path, i]) },
        );
      return structuredClone(builtin);
    });
  return {
    name: data.name ?? stemOf(file),
    description: data.description,
    ...(data.particularities !== undefined ? { particularities: data.particularities } : {}),
    fragments: fragmentsOf(data.fragments, ["fragments"]),
    segments: (data.segments ?? [{ name: "all", share: 1, fragments: [] }]).map((s, i) => ({
      name: s.name,
      share: s.share,
      ...(s.description !== undefined ? { description: s.description } : {}),
      fragments: fragmentsOf(s.fragments, ["segments", i, "fragments"]),
    })),
  };
}

/** Reads and checks a fragment file (`dramaturg.persona-fragment/v1`). */
export function loadPersonaFragment(file: string): PersonaFragment {
  const { data } = parseLocatedYaml(
    readInputFile(file, "the persona fragment"),
    file,
    PersonaFragmentFileSchema,
  );
  return { name: data.name ?? stemOf(file), persona: data.persona };
}

/** A fragment by built-in name or file, as `--fragment` takes it. */
export function resolvePersonaFragment(nameOrFile: string): PersonaFragment {
  const builtin = BUILTIN_PERSONA_FRAGMENTS[nameOrFile];
  if (builtin && !isFileReference(nameOrFile)) return structuredClone(builtin);
  if (!isFileReference(nameOrFile))
    throw new InputError(
      `no built-in fragment "${nameOrFile}"; expected one of ${Object.keys(BUILTIN_PERSONA_FRAGMENTS).join(", ")}, or a fragment file (.yaml, .yml, .json)`,
    );
  return loadPersonaFragment(nameOrFile);
}

/** What the manifest keeps of a fragment: its name and a hash of its persona. */
export function fragmentRecord(fragment: PersonaFragment): { name: string; content_hash: string } {
  return { name: fragment.name, content_hash: contentHash(fragment.persona) };
}

/**
 * A persona with a fragment merged in (neither is changed). Per field: absent or null → the fragment's;
 * two objects → merged the same way; two lists → the persona's items, then the fragment's that are not
 * already there; otherwise the fragment's value wins. TinyTroupe refuses two different scalars; here a
 * fragment overrides them, because it meets its people only after they were generated, and a refusal then
 * would throw away every model call. Merging a fragment twice changes nothing the second time. A persona
 * written as free text becomes `{ description: text }` with the fragment's fields beside it.
 */
export function mergePersonaFragment(
  persona: Persona,
  fragment: Record<string, unknown>,
): Record<string, unknown> {
  const base = typeof persona === "string" ? { description: persona } : persona;
  return mergeObjects(base, fragment);
}

function mergeObjects(
  base: Record<string, unknown>,
  additions: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = structuredClone(base);
  for (const [key, value] of Object.entries(additions)) out[key] = mergeValue(out[key], value);
  return out;
}

function mergeValue(current: unknown, addition: unknown): unknown {
  if (current === undefined || current === null) return structuredClone(addition);
  if (isPlainObject(current) && isPlainObject(addition)) return mergeObjects(current, addition);
  if (Array.isArray(current) && Array.isArray(addition)) {
    const seen = new Set(current.map((item) => stableStringify(item ?? null)));
    const added = addition.filter((item) => {
      const key = stableStringify(item ?? null);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return [...current, ...structuredClone(added)];
  }
  return structuredClone(addition);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isFileReference(ref: string): boolean {
  return /\.(ya?ml|json)$/i.test(ref);
}

function stemOf(file: string): string {
  const stem = basename(file)
    .replace(/\.(ya?ml|json)$/i, "")
    .replace(/\.fragment$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return stem || "profile";
}
