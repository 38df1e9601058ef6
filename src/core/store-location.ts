// The one parser of a store location (`--db`, `db:` in the project file, DRAMATURG_DB): a PostgreSQL
// URL, an in-memory store, or a PGlite data folder. Everything past the edge takes the parsed value.
import { resolve } from "node:path";
import { InputError } from "./errors.ts";
import { redactUrl } from "./redact.ts";

export type StoreLocation =
  /** A PostgreSQL server; `display` has the password replaced by `***`. */
  | { kind: "postgres"; url: string; display: string }
  /** An in-memory PGlite: nothing is kept after the process ends. */
  | { kind: "memory"; display: "memory://" }
  /** A PGlite data folder, created when first opened. */
  | { kind: "folder"; path: string; display: string };

/** The accepted forms, for messages and help. */
export const STORE_LOCATION_FORMS = "a PGlite data folder, memory://, or postgres://…";

const POSTGRES = /^postgres(ql)?:\/\//i;
const MEMORY = /^memory:(\/\/)?$/i;
/** `scheme://` of two letters or more, so a Windows drive (`C:\…`) is still a folder. */
const OTHER_SCHEME = /^[a-z][a-z0-9+.-]+:\/\//i;

export interface ParseStoreLocationOptions {
  /** Folder a relative folder path is resolved against; without it the path is kept as written. */
  cwd?: string;
}

/**
 * Parses a store location: `postgres://…` or `postgresql://…` (any case) a server, `memory:` or
 * `memory://` (any case) an in-memory store, anything else a folder. Another `scheme://` or an empty
 * text is an {@link InputError}, rather than a folder named after it.
 */
export function parseStoreLocation(text: string, { cwd }: ParseStoreLocationOptions = {}): StoreLocation {
  const trimmed = text.trim();
  if (POSTGRES.test(trimmed)) return { kind: "postgres", url: trimmed, display: redactUrl(trimmed) };
  if (MEMORY.test(trimmed)) return { kind: "memory", display: "memory://" };
  if (trimmed === "") throw new InputError(`no store location given; expected ${STORE_LOCATION_FORMS}`);
  if (OTHER_SCHEME.test(trimmed))
    throw new InputError(`unknown store location "${redactUrl(trimmed)}": expected ${STORE_LOCATION_FORMS}`);
  const path = cwd === undefined ? text : resolve(cwd, text);
  return { kind: "folder", path, display: path };
}

/** The text that parses back to this location: the URL, `memory://`, or the folder path. */
export function formatStoreLocation(location: StoreLocation): string {
  switch (location.kind) {
    case "postgres":
      return location.url;
    case "memory":
      return "memory://";
    case "folder":
      return location.path;
  }
}
