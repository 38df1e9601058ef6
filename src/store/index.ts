// Public surface of store/: open a store (PGlite, PostgreSQL or in memory) and its repositories.
// The location parser and URL redaction live in core/; they are re-exported here for callers of openStore.
export { parseStoreLocation, redactUrl, type StoreLocation } from "../core/index.ts";
export {
  AGENT_CONFIG_KEYS,
  type AgentConfigRepository,
  type AgentConfigSource,
  agentCorrectionSettings,
  type ProjectAgentConfigs,
  type ResolvedAgentConfig,
  resolveAgentConfig,
  type StoredAgentConfig,
} from "./agent-config.ts";
export type { AgentRepository, AgentRow } from "./agents.ts";
export { personaHash } from "./agents.ts";
export type { CorrectionLogQuery, CorrectionLogRepository } from "./correction-logs.ts";
export { openDatabase } from "./database.ts";
export type { Db, Queryable, QueryResult } from "./db.ts";
export type {
  CacheStats,
  EvaluationKind,
  EvaluationOutcome,
  EvaluationRepository,
  EvaluationRow,
  NewEvaluation,
  RerunCacheStats,
} from "./evaluations.ts";
export {
  type JudgeRateLimitRepository,
  judgeRateLimitRepository,
  type RateLimitCharge,
} from "./judge-rate-limits.ts";
export type { LabelInput, LabelRepository, LabelRow, LabelTarget, RaterCount } from "./labels.ts";
export type { LifecycleStatus } from "./lifecycle.ts";
export type { MessageQuery, MessageRepository, MessageRow } from "./messages.ts";
export { MIGRATIONS, type Migration } from "./migrations.ts";
export { type AppliedMigration, type MigrationStatus, migrate, migrationStatus } from "./migrator.ts";
export type {
  NewOnlineRun,
  OnlineAlertDelivery,
  OnlineAlertSummary,
  OnlineAlertToPost,
  OnlineCandidate,
  OnlineRepository,
  OnlineRunCheck,
  OnlineRunExport,
  OnlineRunRow,
  OnlineRunSummary,
  OnlineWindowMessage,
} from "./online-runs.ts";
export {
  type CreatedRange,
  decodePageCursor,
  encodePageCursor,
  fetchPage,
  type PageAfter,
  pageOf,
} from "./page.ts";
export type { QueuedJobTotalsRepository } from "./queued-job-totals.ts";
export type {
  DimensionScores,
  HistoryPoint,
  NewRun,
  RunJudge,
  RunOutcome,
  RunRepository,
  RunRow,
  StoredDimensionScore,
} from "./runs.ts";
export { agentMatches } from "./runs.ts";
export type { ScoreWriter, ScoreWriterOptions } from "./score-writer.ts";
export {
  type ScoreInput,
  type ScoreRepository,
  type ScoreRow,
  type ScoreStatus,
  scoreFromVerdict,
} from "./scores.ts";
export {
  type AgentHit,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_QUERY,
  type MessageHit,
  type ReasoningHit,
  type RunHit,
  SEARCH_KINDS,
  type SearchGroup,
  type SearchKind,
  type SearchQuery,
  type SearchRepository,
  type SearchResults,
  type SessionHit,
  type SnippetPart,
  searchQueryProblem,
  type TranscriptHit,
} from "./search.ts";
export type { SignedOutSessionRepository } from "./signed-out-sessions.ts";
export { storeOver } from "./sql-store.ts";
export {
  type OpenStoreOptions,
  openStore,
  openStoreEarly,
  type Store,
  type StoreDialect,
  storeExists,
} from "./store.ts";
export type {
  CachedVerdictValue,
  CacheEntry,
  CacheStatsByModel,
  VerdictCacheRepository,
  VerdictCacheStats,
} from "./verdict-cache.ts";
export { emptyVerdictCacheStats } from "./verdict-cache.ts";
