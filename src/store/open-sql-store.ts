// Opens a SQL store: PGlite in a data folder (or in memory, for tests) or a PostgreSQL server, migrated.
// Loaded only when such a store is opened, so that `memory://` never loads a database driver.
import type { StoreLocation } from "../core/index.ts";
import type { Db } from "./db.ts";
import { migrate } from "./migrator.ts";
import { openPgliteDb } from "./pglite-db.ts";
import { openPostgresDb } from "./postgres-db.ts";
import { pristineDataDir } from "./pristine-data-dir.ts";
import { storeOver } from "./sql-store.ts";
import type { OpenStoreOptions, Store } from "./store.ts";

/** Opens the SQL store of a folder or PostgreSQL location. */
export async function openSqlStore(
  where: Exclude<StoreLocation, { kind: "memory" }>,
  options: OpenStoreOptions = {},
): Promise<Store> {
  return where.kind === "postgres"
    ? migratedStore(await openPostgresDb(where.url), where.display, options)
    : openPgliteStore(where.path, options, where.display);
}

/**
 * Opens a PGlite store in `folder`, or in memory when `folder` is undefined. In memory is for tests
 * and benchmarks that need SQL without a folder; `memory://` itself is the in-memory store, with no database.
 */
export async function openPgliteStore(
  folder: string | undefined,
  options: OpenStoreOptions = {},
  display = folder ?? "memory://",
): Promise<Store> {
  const db = await openPgliteDb(folder, {
    // A new store starts migrated, from the pristine directory; one left unmigrated (e.g. for
    // `doctor`) runs initdb, so that it is as empty as asked.
    ...(options.migrate === false ? {} : { dataDir: pristineDataDir }),
  });
  return migratedStore(db, display, options);
}

async function migratedStore(db: Db, display: string, { migrate: shouldMigrate = true }: OpenStoreOptions) {
  try {
    if (shouldMigrate) await migrate(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return storeOver(db, display);
}
