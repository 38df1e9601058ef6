// The importers, tried in order on a parsed file (or chosen with --from): a registry a new format joins.
import { InputError } from "../../core/index.ts";
import { parseSession, type Session } from "../session-format.ts";
import { SESSION_FORMATS } from "../session-formats.ts";
import type { ImportOptions, SessionImporter } from "./importer.ts";
import { inspectImporter } from "./inspect.ts";
import { langfuseImporter } from "./langfuse.ts";
import { langsmithImporter } from "./langsmith.ts";
import { openaiAgentsImporter } from "./openai-agents.ts";
import { OpenAIToolsSchema, openaiChatImporter } from "./openai-chat.ts";
import { otlpImporter } from "./otlp.ts";
import { sessionImporter } from "./session.ts";
import { tauBenchImporter } from "./tau-bench.ts";
import { tau2BenchImporter } from "./tau2-bench.ts";

export type { Imported, ImportOptions, SessionImporter } from "./importer.ts";
export { readInspectArchive } from "./inspect.ts";
export { isZipArchive } from "./zip-archive.ts";
export { OpenAIToolsSchema, SESSION_FORMATS };

export const SESSION_IMPORTERS: SessionImporter[] = [
  sessionImporter,
  openaiChatImporter,
  openaiAgentsImporter,
  otlpImporter,
  tauBenchImporter,
  tau2BenchImporter,
  langfuseImporter,
  langsmithImporter,
  inspectImporter,
];

export interface ImportedSessions {
  sessions: Session[];
  /** The importer that read the file. */
  from: string;
  notes: string[];
}

/**
 * The sessions in a parsed file, by the importer `from` names or the first that recognises it. Each is
 * validated; a session the file holds several of is named by its position (`FILE#2`).
 */
export function importSessions(value: unknown, options: ImportOptions & { from?: string }): ImportedSessions {
  const importer = options.from
    ? SESSION_IMPORTERS.find((i) => i.name === options.from)
    : SESSION_IMPORTERS.find((i) => i.detect(value));
  if (!importer) {
    if (options.from)
      throw new InputError(
        `unknown format "${options.from}"; expected one of ${SESSION_IMPORTERS.map((i) => i.name).join(", ")}`,
        { place: "--from" },
      );
    throw new InputError(
      `not a format Dramaturg reads as sessions; expected ${SESSION_IMPORTERS.map((i) => i.name).join(", ")} (choose one with --from)`,
      { file: options.file },
    );
  }
  const imported = importer.import(value, options);
  const many = imported.sessions.length > 1;
  const sessions = imported.sessions.map((s, i) => {
    const name = many ? `${options.file}#${i + 1}` : options.file;
    return parseSession(s, importer === sessionImporter ? name : `${name} (read as ${importer.name})`);
  });
  return { sessions, from: importer.name, notes: imported.notes };
}
