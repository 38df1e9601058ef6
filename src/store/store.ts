// Opens a store at a location (PostgreSQL URL, `memory://`, or a PGlite data folder), migrates it,
// and hands out the repositories, all over the one Db contract.
import { existsSync } from "node:fs";
import { parseStoreLocation, type StoreLocation } from "../core/index.ts";
import { type AgentRepository, agentRepository } from "./agents.ts";
import type { Db } from "./db.ts";
import { type EvaluationRepository, evaluationRepository } from "./evaluations.ts";
import { type MessageRepository, messageRepository } from "./messages.ts";
import { type MigrationStatus, migrate, migrationStatus } from "./migrator.ts";
import { openPgliteDb } from "./pglite-db.ts";
import { openPostgresDb } from "./postgres-db.ts";
import { pristineDataDir } from "./pristine-data-dir.ts";
import { type RunRepository, runRepository } from "./runs.ts";
import { createScoreWriter, type ScoreWriter, type ScoreWriterOptions } from "./score-writer.ts";
import { type ScoreRepository, scoreRepository } from "./scores.ts";
import { type VerdictCacheRepository, verdictCacheRepository } from "./verdict-cache.ts";

export interface OpenStoreOptions {
  /** Apply pending migrations on open (default). `false` leaves the schema as it is, e.g. for `doctor`. */
  migrate?: boolean;
}

export interface Store {
  /** The location, with any password replaced by `***`: safe to print. */
  readonly location: string;
  readonly dialect: Db["dialect"];
  /** The raw database, for the odd query no repository has. */
  readonly db: Db;
  readonly agents: AgentRepository;
  readonly messages: MessageRepository;
  readonly evaluations: EvaluationRepository;
  readonly runs: RunRepository;
  readonly scores: ScoreRepository & {
    /** A buffered, batched writer for verdicts as they arrive. */
    writer(options?: ScoreWriterOptions): ScoreWriter;
  };
  readonly verdictCache: VerdictCacheRepository;
  migrationStatus(): Promise<MigrationStatus>;
  close(): Promise<void>;
}

/**
 * Opens (and by default migrates) a store at a location, as text ({@link parseStoreLocation}) or parsed:
 * `postgres://…` / `postgresql://…` a server; `memory://` an in-memory PGlite; anything else a PGlite
 * data folder, created if missing. Failures are StoreErrors (exit code 3) that never show a password.
 */
export async function openStore(
  location: string | StoreLocation,
  { migrate: shouldMigrate = true }: OpenStoreOptions = {},
): Promise<Store> {
  const where = typeof location === "string" ? parseStoreLocation(location) : location;
  const db =
    where.kind === "postgres"
      ? await openPostgresDb(where.url)
      : await openPgliteDb(where.kind === "folder" ? where.path : undefined, {
          // A new store starts migrated, from the pristine directory; one left unmigrated (e.g. for
          // `doctor`) runs initdb, so that it is as empty as asked.
          ...(shouldMigrate ? { dataDir: pristineDataDir } : {}),
        });
  try {
    if (shouldMigrate) await migrate(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return storeOver(db, where.display);
}

/** The repositories over an already open database (tests, and callers with their own Db). */
export function storeOver(db: Db, location: string): Store {
  let closed: Promise<void> | undefined;
  return {
    location,
    dialect: db.dialect,
    db,
    agents: agentRepository(db),
    messages: messageRepository(db),
    evaluations: evaluationRepository(db),
    runs: runRepository(db),
    scores: { ...scoreRepository(db), writer: (options) => createScoreWriter(db, options) },
    verdictCache: verdictCacheRepository(db),
    migrationStatus: () => migrationStatus(db),
    close: () => {
      closed ??= db.close();
      return closed;
    },
  };
}

/**
 * Whether there is already a store to read at a location: a PGlite folder that exists, or a server
 * (assumed to exist). `memory://` holds nothing before it is opened.
 */
export function storeExists(location: string | StoreLocation): boolean {
  const where = typeof location === "string" ? parseStoreLocation(location) : location;
  if (where.kind === "postgres") return true;
  if (where.kind === "memory") return false;
  return existsSync(where.path);
}

/**
 * Starts opening a store now, beside reading and planning, when opening writes nothing that bad input
 * should prevent: `memory://`, or a folder that already holds a store. Undefined otherwise (a new folder
 * is created only once the input is known to be good). The caller must close or await the result.
 */
export function openStoreEarly(location: string | StoreLocation): Promise<Store> | undefined {
  const where = typeof location === "string" ? parseStoreLocation(location) : location;
  if (where.kind === "postgres" || (where.kind === "folder" && !existsSync(where.path))) return undefined;
  const opening = openStore(where);
  // Until the caller awaits it, a failed open must not be an unhandled rejection.
  opening.catch(() => {});
  return opening;
}
