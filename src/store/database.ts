// A database a user names — a PostgreSQL URL or a PGlite folder that already holds one — opened as it is:
// no migrations, nothing created. What conversation assertions and setup read and write.
import { existsSync } from "node:fs";
import { InputError, parseStoreLocation } from "../core/index.ts";
import type { Db } from "./db.ts";

export async function openDatabase(location: string): Promise<Db> {
  const where = parseStoreLocation(location);
  if (where.kind === "memory")
    throw new InputError("memory:// holds no database to query; give a PostgreSQL URL or a PGlite folder", {
      place: location,
    });
  if (where.kind === "postgres") {
    const { openPostgresDb } = await import("./postgres-db.ts");
    return openPostgresDb(where.url);
  }
  if (!existsSync(where.path)) throw new InputError("no database in this folder", { place: location });
  const { openPgliteDb } = await import("./pglite-db.ts");
  return openPgliteDb(where.path);
}
