// Opens a store at a location (PostgreSQL URL, `memory://`, or a PGlite data folder) and hands out its
// repositories: SQL over the one Db contract, or for `memory://` the in-memory store, with no database.
import { existsSync } from "node:fs";
import { parseStoreLocation, type StoreLocation } from "../core/index.ts";
import type { AgentConfigRepository } from "./agent-config.ts";
import type { AgentRepository } from "./agents.ts";
import type { CorrectionLogRepository } from "./correction-logs.ts";
import type { Db } from "./db.ts";
import type { EvaluationRepository } from "./evaluations.ts";
import type { LabelRepository } from "./labels.ts";
import { openMemoryStore } from "./memory-store.ts";
import type { MessageRepository } from "./messages.ts";
import type { MigrationStatus } from "./migrator.ts";
import type { OnlineRepository } from "./online-runs.ts";
import type { QueuedJobTotalsRepository } from "./queued-job-totals.ts";
import type { RunRepository } from "./runs.ts";
import type { ScoreWriter, ScoreWriterOptions } from "./score-writer.ts";
import type { ScoreRepository } from "./scores.ts";
import type { SearchRepository } from "./search.ts";
import type { SignedOutSessionRepository } from "./signed-out-sessions.ts";
import type { VerdictCacheRepository } from "./verdict-cache.ts";

export interface OpenStoreOptions {
  /** Apply pending migrations on open (default). `false` leaves the schema as it is, e.g. for `doctor`. */
  migrate?: boolean;
}

/** What holds a store's rows: embedded PGlite, a PostgreSQL server, or this process's memory (no database). */
export type StoreDialect = Db["dialect"] | "memory";

export interface Store {
  /** The location, with any password replaced by `***`: safe to print. */
  readonly location: string;
  readonly dialect: StoreDialect;
  /** The raw database, for the odd query no repository has; undefined for `memory://`, which has none. */
  readonly db?: Db;
  readonly agents: AgentRepository;
  readonly messages: MessageRepository;
  readonly evaluations: EvaluationRepository;
  readonly runs: RunRepository;
  readonly scores: ScoreRepository & {
    /** A buffered, batched writer for verdicts as they arrive. */
    writer(options?: ScoreWriterOptions): ScoreWriter;
  };
  readonly verdictCache: VerdictCacheRepository;
  /** The action gate's checks (`correction_logs`). */
  readonly corrections: CorrectionLogRepository;
  /** Per-agent runtime-correction settings (`agent_evaluation_config`). */
  readonly agentConfig: AgentConfigRepository;
  /** The dashboard's search over agents, runs, session analyses and messages (full-text on SQL stores). */
  readonly search: SearchRepository;
  /** People's labels of persona evaluations' items (the labelling page), exported for `calibrate`. */
  readonly labels: LabelRepository;
  /** Dashboard sessions signed out before they expired: refused by every server on the store. */
  readonly signedOutSessions: SignedOutSessionRepository;
  /** What each queued job of an evaluation spent (`queued_job_totals`), summed when it completes. */
  readonly queuedJobTotals: QueuedJobTotalsRepository;
  /** Online rules' runs and alerts (`online_runs`, `online_alerts`); none on memory://, which has no queue. */
  readonly online: OnlineRepository;
  migrationStatus(): Promise<MigrationStatus>;
  close(): Promise<void>;
}

/**
 * Opens (and by default migrates) a store at a location, as text ({@link parseStoreLocation}) or parsed:
 * `postgres://…` / `postgresql://…` a server; `memory://` the in-memory store (no database: it opens in
 * a few ms); anything else a PGlite data folder, created if missing. Failures are StoreErrors (exit code 3)
 * that never show a password. The SQL drivers are loaded only for the locations that need them.
 */
export async function openStore(
  location: string | StoreLocation,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const where = typeof location === "string" ? parseStoreLocation(location) : location;
  if (where.kind === "memory") return openMemoryStore();
  const { openSqlStore } = await import("./open-sql-store.ts");
  return openSqlStore(where, options);
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
