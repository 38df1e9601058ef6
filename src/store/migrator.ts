// Applies pending migrations in one transaction under an advisory lock, so two processes opening
// the same PostgreSQL at once apply each migration exactly once; and reports where a database stands.
import { contentHash, StoreError } from "../core/index.ts";
import { iso } from "./columns.ts";
import type { Db, Queryable } from "./db.ts";
import { MIGRATIONS, type Migration } from "./migrations.ts";

/** Arbitrary but fixed: every Dramaturg process takes this lock before migrating ("dram"). */
const MIGRATION_LOCK = 0x6472616d;

export interface AppliedMigration {
  version: number;
  name: string;
  applied_at: string;
}

export interface MigrationStatus {
  /** Highest version applied to the database (0 for an empty one). */
  current: number;
  /** Highest version this code knows. */
  latest: number;
  /** Known migrations not yet applied, in order. */
  pending: { version: number; name: string }[];
  applied: AppliedMigration[];
  /** Applied migrations whose SQL has since been edited in the code (should be empty). */
  changed: number[];
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version     integer PRIMARY KEY,
  name        text NOT NULL,
  checksum    text NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now()
)`;

interface MigrationRow {
  version: number;
  name: string;
  checksum: string;
  applied_at: Date | string;
}

/**
 * Brings the database to the latest version; returns the versions it applied (none when up to date).
 * Refuses a database migrated by a newer Dramaturg, whose schema this code does not know.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const ordered = checkOrder(migrations);
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.exec(CREATE_TABLE);
    const applied = await appliedRows(tx);
    const done = new Set(applied.map((r) => r.version));
    const latest = ordered.at(-1)?.version ?? 0;
    const newer = applied.filter((r) => r.version > latest);
    if (newer.length > 0)
      throw new StoreError(
        `the database schema is at version ${Math.max(...newer.map((r) => r.version))}, newer than this Dramaturg knows (${latest}); upgrade Dramaturg`,
      );
    const ran: number[] = [];
    for (const m of ordered) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)", [
        m.version,
        m.name,
        contentHash(m.sql),
      ]);
      ran.push(m.version);
    }
    return ran;
  });
}

/** Where the database stands against the migrations this code knows. Never changes anything. */
export async function migrationStatus(
  db: Queryable,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationStatus> {
  const ordered = checkOrder(migrations);
  const exists = await db.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  const applied = exists.rows[0]?.present ? await appliedRows(db) : [];
  const byVersion = new Map(applied.map((r) => [r.version, r]));
  return {
    current: applied.reduce((max, r) => Math.max(max, r.version), 0),
    latest: ordered.at(-1)?.version ?? 0,
    pending: ordered.filter((m) => !byVersion.has(m.version)).map(({ version, name }) => ({ version, name })),
    applied: applied.map((r) => ({ version: r.version, name: r.name, applied_at: iso(r.applied_at) })),
    changed: ordered
      .filter((m) => {
        const row = byVersion.get(m.version);
        return row !== undefined && row.checksum !== contentHash(m.sql);
      })
      .map((m) => m.version),
  };
}

async function appliedRows(db: Queryable): Promise<MigrationRow[]> {
  const result = await db.query<MigrationRow>(
    "SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version",
  );
  return result.rows;
}

function checkOrder(migrations: readonly Migration[]): readonly Migration[] {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new StoreError(`migration "${m.name}" has version ${m.version}; expected ${i + 1}`);
  });
  return migrations;
}
