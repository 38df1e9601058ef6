// A population on disk: a folder of persona files, one per person (`<slug>.yaml`, each a world agent's
// id, name and persona), and, when the factory wrote it, a manifest `_population.yaml`
// (`dramaturg.population/v1`) with how it was made. A folder written by hand needs no manifest.

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import type * as Yaml from "yaml";
import { z } from "zod";
import {
  contentHash,
  InputError,
  type LocatedYaml,
  type Persona,
  PersonaSchema,
  parseLocatedYaml,
  readInputFile,
} from "../core/index.ts";
import { AgentNudgesSchema, type WorldAgent } from "../sim/index.ts";

export const POPULATION_FORMAT = "dramaturg.population/v1";

/** The manifest's file name in a population folder; a slug never starts with `_`, so no person is named so. */
export const POPULATION_MANIFEST = "_population.yaml";

const PERSON_FILE = /^[^._][^/\\]*\.(ya?ml|json)$/i;

/** A person's id and file stem: lower-case letters, digits and single hyphens. */
export function personSlug(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug || "person";
}

/** One person's file: what a world's agent needs (its id, name, persona and nudges) and nothing else. */
export const PersonFileSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .optional()
      .describe("Stable id, the sender of the person's messages in a world; default the slug of the name"),
    name: z.string().min(1),
    persona: PersonaSchema,
    nudges: AgentNudgesSchema.optional(),
  })
  .strict();

const RangeSchema = z
  .object({ min: z.number(), max: z.number() })
  .strict()
  .refine((r) => r.min <= r.max, { message: "a range whose min is not above its max" });

/** A sampling dimension as the manifest keeps it: categorical values (with shares when known) or a range. */
export const SamplingDimensionSchema = z
  .object({
    name: z.string().min(1),
    values: z
      .array(z.object({ value: z.string().min(1), share: z.number().min(0).max(1).optional() }).strict())
      .min(1)
      .optional(),
    range: RangeSchema.optional(),
  })
  .strict()
  .refine((d) => (d.values === undefined) !== (d.range === undefined), {
    message: "either values or range, exactly one of them",
  });

/** A directive's value on one dimension: one value, options to pick from, or a numeric range. */
export const SampledValueSchema = z.union([
  z.string().min(1),
  z.array(z.string().min(1)).min(2),
  RangeSchema,
]);

/** One subpopulation directive of a sampling plan. */
export const PlanDirectiveSchema = z
  .object({
    id: z.number().int().min(1),
    subpopulation: z.string().min(1),
    quantity: z.number().int().min(0).describe("People drawn from this directive, after fitting to the size"),
    proposed_quantity: z
      .number()
      .int()
      .min(0)
      .describe("What the model proposed, before the quantities were fitted to sum to the size"),
    sampled_values: z.record(z.string(), SampledValueSchema),
  })
  .strict();

const FragmentRecordSchema = z.object({ name: z.string().min(1), content_hash: z.string().min(1) }).strict();

const ContentHashSchema = z.string().regex(/^[0-9a-f]{16}$/, "a 16-character hex hash");

/** The characteristics a person was generated from, after the plan's options and ranges were drawn. */
export const CharacteristicsSchema = z.record(z.string(), z.union([z.string(), z.number()]));

export const PopulationManifestSchema = z
  .object({
    format: z.literal(POPULATION_FORMAT),
    profile: z.string().min(1).optional().describe("The built-in profile or profile file it was made from"),
    description: z.string().min(1).optional(),
    size: z.number().int().min(1).optional(),
    seed: z.number().int().optional(),
    model: z
      .object({ provider: z.string().min(1), model: z.string().min(1), base_url: z.string().optional() })
      .strict()
      .optional()
      .describe("The model that answered every stage (never a key)"),
    prompt_version: z.string().min(1).optional().describe("Hash of the factory's prompts"),
    fragments: z.array(FragmentRecordSchema).optional().describe("Fragments merged into every person"),
    dimensions: z.array(SamplingDimensionSchema).optional(),
    segments: z
      .array(
        z
          .object({
            name: z.string().min(1),
            size: z.number().int().min(0),
            description: z.string().min(1).optional(),
            fragments: z.array(FragmentRecordSchema).optional(),
            plan: z.array(PlanDirectiveSchema),
          })
          .strict(),
      )
      .optional(),
    people: z
      .array(
        z
          .object({
            file: z
              .string()
              .regex(
                PERSON_FILE,
                "a file name in the folder ending in .yaml, .yml or .json, not starting with _",
              ),
            id: z.string().min(1),
            name: z.string().min(1),
            content_hash: ContentHashSchema.optional(),
            segment: z.string().min(1).optional(),
            directive: z.number().int().min(1).optional(),
            characteristics: CharacteristicsSchema.optional(),
          })
          .strict(),
      )
      .optional()
      .describe("Every person file of the folder, in population order"),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (m.size !== undefined && m.people !== undefined && m.size !== m.people.length)
      ctx.addIssue({
        code: "custom",
        path: ["size"],
        message: `the size of the people list (${m.people.length})`,
      });
    const files = new Set<string>();
    m.people?.forEach((p, i) => {
      if (files.has(p.file))
        ctx.addIssue({ code: "custom", path: ["people", i, "file"], message: `a file not listed before` });
      files.add(p.file);
    });
  });

export type PersonFile = z.output<typeof PersonFileSchema>;
export type PopulationManifest = z.output<typeof PopulationManifestSchema>;
export type SamplingDimension = z.output<typeof SamplingDimensionSchema>;
export type PlanDirective = z.output<typeof PlanDirectiveSchema>;
export type Characteristics = z.output<typeof CharacteristicsSchema>;

/** A person of a population, ready to be a world's agent (`{ id, name, persona, nudges }`). */
export interface PopulationPerson {
  id: string;
  name: string;
  persona: Persona;
  nudges?: PersonFile["nudges"];
  /** The person's file. */
  file: string;
  /** sha256 (16 hex) of the person's id, name, persona and nudges, whatever the file's layout. */
  content_hash: string;
}

export interface Population {
  dir: string;
  /** The manifest, when the folder has one. */
  manifest?: PopulationManifest;
  /** In the manifest's order, or by file name when there is no manifest. */
  people: PopulationPerson[];
}

/** The people as a world's agents (`dramaturg.world/v1` `agents`), in population order. */
export function populationAgents(population: Pick<Population, "people">): WorldAgent[] {
  return population.people.map(({ id, name, persona, nudges }) => ({
    id,
    name,
    persona,
    ...(nudges ? { nudges } : {}),
  }));
}

/** The content hash of a person: of what a world sees, not of how the file is laid out. */
export function personContentHash(
  person: Pick<PopulationPerson, "id" | "name" | "persona" | "nudges">,
): string {
  const { id, name, persona, nudges } = person;
  return contentHash({ id, name, persona, nudges });
}

/**
 * Reads and checks a population folder: every `*.yaml`, `*.yml` or `*.json` file not starting with `_` or
 * `.` is one person; `_population.yaml`, if present, must list exactly those files with matching ids,
 * names and hashes. Every problem is an InputError naming the file, its line and column, and the field.
 */
export function loadPopulation(dir: string): Population {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new InputError("not a population folder; expected a folder of persona files (one per person)", {
      file: dir,
    });
  const files = readdirSync(dir)
    .filter((f) => PERSON_FILE.test(f) && statSync(join(dir, f)).isFile())
    .sort();
  const manifestFile = join(dir, POPULATION_MANIFEST);
  const located = existsSync(manifestFile)
    ? parseLocatedYaml(
        readInputFile(manifestFile, "the population manifest"),
        manifestFile,
        PopulationManifestSchema,
      )
    : undefined;
  if (files.length === 0)
    throw new InputError(
      "no persona files; expected one file per person (NAME.yaml, .yml or .json with name and persona)",
      { file: dir },
    );

  const byFile = new Map<string, PopulationPerson>();
  const fileOfId = new Map<string, string>();
  for (const file of files) {
    const path = join(dir, file);
    const { data, placeOf } = parseLocatedYaml(
      readInputFile(path, "the persona file"),
      path,
      PersonFileSchema,
    );
    const id = data.id ?? personSlug(data.name);
    const other = fileOfId.get(id);
    if (other !== undefined)
      throw new InputError(
        `${data.id === undefined ? "name" : "id"}: id "${id}" is already the id of ${other}`,
        {
          file: path,
          place: placeOf([data.id === undefined ? "name" : "id"]),
        },
      );
    fileOfId.set(id, file);
    const person = {
      id,
      name: data.name,
      persona: data.persona,
      ...(data.nudges ? { nudges: data.nudges } : {}),
    };
    byFile.set(file, { ...person, file: path, content_hash: personContentHash(person) });
  }
  if (!located) return { dir, people: [...byFile.values()] };
  return { dir, manifest: located.data, people: peopleOfManifest(located, manifestFile, byFile) };
}

/** The people in the manifest's order, each checked against the file it lists. */
function peopleOfManifest(
  { data: manifest, placeOf }: LocatedYaml<PopulationManifest>,
  manifestFile: string,
  byFile: Map<string, PopulationPerson>,
): PopulationPerson[] {
  if (manifest.people === undefined) return [...byFile.values()];
  const fail = (path: (string | number)[], message: string): never => {
    throw new InputError(message, { file: manifestFile, place: placeOf(path) });
  };
  const people = manifest.people.map((entry, i) => {
    const person = byFile.get(entry.file);
    if (!person)
      return fail(["people", i, "file"], `people[${i}].file: no file "${entry.file}" in the folder`);
    if (entry.id !== person.id)
      fail(
        ["people", i, "id"],
        `people[${i}].id: expected "${person.id}", the id in ${entry.file}, got "${entry.id}"`,
      );
    if (entry.name !== person.name)
      fail(
        ["people", i, "name"],
        `people[${i}].name: expected "${person.name}", the name in ${entry.file}, got "${entry.name}"`,
      );
    if (entry.content_hash !== undefined && entry.content_hash !== person.content_hash)
      fail(
        ["people", i, "content_hash"],
        `people[${i}].content_hash: ${entry.file} changed since the manifest was written (its hash is ${person.content_hash}); expected ${entry.content_hash}, or remove content_hash`,
      );
    return person;
  });
  const listed = new Set(manifest.people.map((p) => p.file));
  const unlisted = [...byFile.keys()].find((f) => !listed.has(f));
  if (unlisted !== undefined)
    fail(
      ["people"],
      `people: ${unlisted} is in the folder but not listed; expected every person file listed`,
    );
  return people;
}

let yamlModule: typeof Yaml | undefined;
function yaml(): typeof Yaml {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
  return yamlModule;
}

/** YAML text of a value, the same bytes for the same value (no anchors, no folding of long lines). */
export function populationYaml(value: unknown): string {
  return yaml().stringify(value, { aliasDuplicateObjects: false, lineWidth: 0 });
}

/** The file name a person is written to. */
export function personFileName(person: { id: string }): string {
  return `${person.id}.yaml`;
}

/** The files of a population folder, by name: one per person and the manifest. Pure, for writing and tests. */
export function populationFiles(
  manifest: PopulationManifest,
  people: readonly Pick<PopulationPerson, "id" | "name" | "persona" | "nudges">[],
): Map<string, string> {
  const files = new Map<string, string>();
  for (const { id, name, persona, nudges } of people)
    files.set(personFileName({ id }), populationYaml({ id, name, persona, ...(nudges ? { nudges } : {}) }));
  files.set(POPULATION_MANIFEST, populationYaml(manifest));
  return files;
}

/**
 * Writes a population into `dir`, which must not exist or be empty (an InputError otherwise, before anything
 * is written). The files go to a sibling folder first, which then takes `dir`'s place: a failure leaves no
 * half-written population behind.
 */
export function writePopulation(
  dir: string,
  manifest: PopulationManifest,
  people: readonly Pick<PopulationPerson, "id" | "name" | "persona" | "nudges">[],
): void {
  assertEmptyFolder(dir);
  const parent = dirname(resolve(dir));
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(join(parent, `.${basename(resolve(dir))}-`));
  try {
    for (const [name, text] of populationFiles(manifest, people)) writeFileSync(join(staging, name), text);
    if (existsSync(dir)) rmdirSync(dir);
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** An InputError unless `dir` is absent or an empty folder: a population never mixes with other files. */
export function assertEmptyFolder(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory())
    throw new InputError("exists and is not a folder; expected a new or empty folder for the population", {
      file: dir,
    });
  if (readdirSync(dir).length > 0)
    throw new InputError("is not empty; expected a new or empty folder for the population", { file: dir });
}
