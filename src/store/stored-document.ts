// An evaluation's input and result as the SQL stores keep them: JSON text, gzip-compressed (and base64'd,
// the columns being text) above a size. A long transcript is megabytes of JSON; sent whole into PGlite it
// grows the database's WebAssembly memory, which never shrinks, by several copies of it for the rest of
// the run. Compressed here, off the main thread, it is a tenth of that or less.
import { promisify } from "node:util";
import { gunzipSync, gzip } from "node:zlib";

/** Marks a compressed document. No JSON text starts with it. */
const GZIP = "gzip:";
/** Documents under this many characters are kept as plain JSON (readable in SQL, no work either way). */
const COMPRESS_FROM = 64 * 1024;

const gzipAsync = promisify(gzip);

/** The column value of a document (null and undefined stay SQL NULL). */
export async function documentColumn(value: unknown): Promise<string | null> {
  if (value === undefined || value === null) return null;
  const json = JSON.stringify(value);
  if (json.length < COMPRESS_FROM) return json;
  // Level 1: most of the saving for a fraction of the time (≈ 1.3 ms for a 280 KB transcript, 13× smaller).
  return GZIP + (await gzipAsync(json, { level: 1 })).toString("base64");
}

/** A document read back from its column (plain JSON as older versions wrote it, or compressed). */
export function documentOf(text: string | null | undefined): unknown {
  if (text === null || text === undefined) return undefined;
  if (!text.startsWith(GZIP)) return JSON.parse(text);
  return JSON.parse(gunzipSync(Buffer.from(text.slice(GZIP.length), "base64")).toString("utf8"));
}
