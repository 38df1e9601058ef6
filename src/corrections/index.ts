// Public surface of corrections/: the action gate (as a function wrapper and as AI SDK middleware), its
// similarity and repetition checks, its correction log and statistics; a world run with corrections, stored
// or not.
export {
  type ActionGate,
  type ActionGateOptions,
  ActionRejectedError,
  bestAttempt,
  createActionGate,
  GATE_TIMEOUT_MS,
  type GateCheckInput,
  type GateCheckResult,
  type Regenerate,
} from "./action-gate.ts";
export {
  type CorrectionLogSink,
  type GateAttemptSummary,
  type GateLogEntry,
  memoryCorrectionLog,
} from "./correction-log.ts";
export { escalation, type GateAttempt, type GateFeedback, gateFeedback } from "./feedback.ts";
export {
  builtinGatePropositionSet,
  builtinGatePropositionSets,
  type GatePropositionSet,
  type GatePropositionSets,
} from "./gate-propositions.ts";
export {
  type DimensionJudgement,
  type GateHistoryEntry,
  judgeDimension,
  type PropositionJudgement,
} from "./judge-dimension.ts";
export { type ActionGateMiddlewareOptions, actionGate, historyFromPrompt } from "./middleware.ts";
export {
  actionSimilarity,
  RECENT_MESSAGES,
  type RepetitionCheck,
  type RepetitionCheckOptions,
  repetitionCheck,
} from "./similarity.ts";
export {
  type ResolveWorldCorrectionsOptions,
  requireWorldJudge,
  resolveWorldCorrections,
  type SimulateWithCorrectionsOptions,
  type SimulationWithCorrectionsResult,
  simulateWithCorrections,
  worldCorrectionsActive,
  worldJudgeNeed,
} from "./simulate-with-corrections.ts";
export { type RunSimulationOptions, runSimulation, type StoredSimulation } from "./simulation-run.ts";
export { type AttemptStatistics, type GateStatistics, gateStatistics } from "./statistics.ts";
export { type WithActionGateOptions, withActionGate } from "./with-action-gate.ts";
export {
  gateHistory,
  type WorldCorrections,
  type WorldCorrectionsOptions,
  worldCorrections,
} from "./world-gate.ts";
