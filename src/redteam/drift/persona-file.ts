// The personas a drift run probes, from a file: one persona (`id`, `name`, `persona`), or the agents of a
// world (`dramaturg.world/v1`), a transcript (`dramaturg.transcript/v1`, JSON) or any file with `agents`.
// YAML or JSON; a mistake is reported at its line.
import { z } from "zod";
import { InputError, PersonaSchema, parseLocatedYaml, readInputFile } from "../../core/index.ts";
import type { DriftPersona } from "./partner.ts";

const PersonaEntrySchema = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1),
    persona: PersonaSchema,
  })
  .loose();

type Entry = z.output<typeof PersonaEntrySchema>;

export const DriftPersonaFileSchema = z.union([
  z.object({ agents: z.array(PersonaEntrySchema).min(1) }).loose(),
  PersonaEntrySchema,
]);

/** Parses a persona file's text: its personas, in the file's order (an id given twice is refused). */
export function parsePersonaFile(text: string, file: string): DriftPersona[] {
  const located = parseLocatedYaml(text, file, DriftPersonaFileSchema);
  const data = located.data as { agents?: Entry[] } & Partial<Entry>;
  const entries: Entry[] = data.agents ?? [data as Entry];
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    if (seen.has(entry.id))
      throw new InputError(`agents[${i}].id: "${entry.id}" is used twice; expected unique ids`, {
        file,
        place: located.placeOf(["agents", i, "id"]),
      });
    seen.add(entry.id);
    return { id: entry.id, name: entry.name, persona: entry.persona };
  });
}

/** Reads the personas of a file. */
export function loadPersonaFile(file: string): DriftPersona[] {
  return parsePersonaFile(readInputFile(file, "the persona file"), file);
}

/** The personas named by `ids` among those given (all when none is named); an unknown id is bad input. */
export function pickPersonas(personas: readonly DriftPersona[], ids: readonly string[]): DriftPersona[] {
  if (ids.length === 0) return [...personas];
  return ids.map((id) => {
    const found = personas.find((p) => p.id === id);
    if (!found)
      throw new InputError(
        `no persona "${id}" in the persona files; expected one of ${personas.map((p) => p.id).join(", ")}`,
        { place: "--agent" },
      );
    return found;
  });
}
