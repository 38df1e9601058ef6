// Exporting scores to where teams already look at their traces: Langfuse scores, Phoenix annotations, OTLP
// evaluation events. Reads any stored kind through the registry; hosts and keys come from the environment only.
export type { ApiRequest, DeliveryOptions } from "./delivery.ts";
export { retryAfterMs } from "./delivery.ts";
export type { ExportDestination, ExportEnv, ExportTarget } from "./destination.ts";
export { EXPORT_TARGETS } from "./destination.ts";
export { EXPORT_LEDGER_FORMAT, ExportLedger } from "./export-ledger.ts";
export type { ExportAfter, ExportRule } from "./export-rule.ts";
export { EXPORT_AFTER, ExportRulesSchema } from "./export-rule.ts";
export type { ExportOutcome, ExportScoresOptions } from "./export-run.ts";
export {
  exportByRule,
  exportDestination,
  exportOutcomeLines,
  exportScores,
  undelivered,
  undeliveredLines,
} from "./export-run.ts";
export type { ExportScore, ScoreAttachment } from "./export-score.ts";
export { ExportAuthError, ExportDeliveryError, stableScoreId } from "./export-score.ts";
export { fallbackSessionId, langfuseTraceUrl } from "./langfuse.ts";
export { EVALUATION_EVENT, GEN_AI_SEMCONV_VERSION, otlpHeaders } from "./otlp.ts";
export type { PersonaPlacement, SourcedMessage } from "./persona-sources.ts";
export { judgedSources, personaPlacement, storedMessages } from "./persona-sources.ts";
export { phoenixLedgerKey, phoenixTraceUrl } from "./phoenix.ts";
export type { StoredScores } from "./stored-scores.ts";
export { readStoredScores, scoresOfDocument } from "./stored-scores.ts";
