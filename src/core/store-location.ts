// The one parser of a store location (`--db`, `db:` in the project file, DRAMATURG_DB): a PostgreSQL
// URL, an in-memory store, or a PGlite data folder. Everything past the edge takes the parsed value.
import { resolve } from "node:path";
import { nearestName } from "./edit-distance.ts";
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
/**
 * A `scheme:` prefix of two letters or more (so a Windows drive, `C:\…`, is still a folder). Past the two
 * forms above, such a text is a mistyped URL far more often than a folder meant to be named `postgres:`.
 */
const SCHEME = /^([a-z][a-z0-9+.-]+):(.*)$/is;
const KNOWN_SCHEMES = ["postgres", "postgresql", "memory"];

export interface ParseStoreLocationOptions {
  /** Folder a relative folder path is resolved against; without it the path is kept as written. */
  cwd?: string;
}

/**
 * Parses a store location: `postgres://…` or `postgresql://…` (any case) a server, `memory:` or
 * `memory://` (any case) an in-memory store, anything else a folder. Any other `scheme:` prefix
 * (`postgres:/h/db`, `postgress://…`, `pglite:x`, `mysql://…`) or an empty text is an {@link InputError}
 * ("did you mean postgres://h/db?"), rather than a folder named after it; `./name:x` is such a folder.
 */
export function parseStoreLocation(text: string, { cwd }: ParseStoreLocationOptions = {}): StoreLocation {
  const trimmed = text.trim();
  if (POSTGRES.test(trimmed)) return { kind: "postgres", url: trimmed, display: redactUrl(trimmed) };
  if (MEMORY.test(trimmed)) return { kind: "memory", display: "memory://" };
  if (trimmed === "") throw new InputError(`no store location given; expected ${STORE_LOCATION_FORMS}`);
  const scheme = SCHEME.exec(trimmed);
  if (scheme) throw mistypedUrl(scheme[1]!, scheme[2]!);
  const path = cwd === undefined ? text : resolve(cwd, text);
  return { kind: "folder", path, display: path };
}

/** The error for `scheme:rest` that is no store location: the text shown without its password, and the fix. */
function mistypedUrl(scheme: string, rest: string): InputError {
  const slashes = /^\/*/.exec(rest)![0];
  // Shown as a URL with its slashes mended, so redactUrl finds a password however few slashes were typed.
  const tail = redactUrl(`x://${rest.slice(slashes.length)}`).slice("x://".length);
  const shown = `${scheme}:${slashes}${tail}`;
  const lower = scheme.toLowerCase();
  const meant = KNOWN_SCHEMES.includes(lower) ? lower : nearestName(lower, KNOWN_SCHEMES);
  if (meant === undefined) {
    // Without `//` the text may be meant as a folder name: say how to write one.
    const folder = slashes === "//" ? "" : ` (a folder whose name has a colon is written ./${shown})`;
    return new InputError(`unknown store location "${shown}": expected ${STORE_LOCATION_FORMS}${folder}`);
  }
  const fix = meant === "memory" ? "memory://" : `${meant}://${tail}`;
  return new InputError(
    `"${shown}" is not a store location: did you mean ${fix}? (expected ${STORE_LOCATION_FORMS})`,
  );
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
