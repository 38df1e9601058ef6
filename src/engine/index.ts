// Public surface of engine/: the run lifecycle every evaluation kind shares (start or resume, judge a
// plan through the cache, store verdicts, aggregate, complete or fail, keep the result).

// The store as evaluation kinds use it: kinds reach the store only through the engine.
export {
  type Db,
  type EvaluationRow,
  openDatabase,
  openStore,
  openStoreEarly,
  personaHash,
  type Queryable,
  type RerunCacheStats,
  type RunJudge,
  type RunRow,
  type Store,
  scoreFromVerdict,
  storeExists,
} from "../store/index.ts";
export {
  DEFAULT_CONCURRENCY,
  type ExecuteOptions,
  type ExecuteResult,
  executePlan,
} from "./execute-plan.ts";
export { type FindEvaluationOptions, findEvaluation, loadStoredResult } from "./find-evaluation.ts";
export {
  type JudgeOption,
  type JudgeSettings,
  openingCache,
  prepareJudge,
  type ReadyJudge,
} from "./judge-option.ts";
export {
  type JudgePlan,
  metaByKey,
  type PlannedCall,
  type PlannedTrivial,
  type PlannedVerdict,
  pendingCalls,
  planSize,
  requestOf,
} from "./plan.ts";
export type { ProgressEvent, ProgressListener } from "./progress.ts";
export {
  type CacheInUse,
  type EngineTotals,
  type EvaluationOfKind,
  type EvaluationRunResult,
  executedTotals,
  type FinishContext,
  type ReuseOfKind,
  type RunEvaluationOptions,
  runEvaluation,
  verdictFromRow,
} from "./run-evaluation.ts";
export {
  type ReportContext,
  type StoredKind,
  type StoredKindApi,
  type StoredListQuery,
  type StoredListRow,
  storedListTable,
} from "./stored-kind.ts";
