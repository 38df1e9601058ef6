// The library: `import { … } from "dramaturg"`. A surface chosen on purpose — evaluate, resume and show
// persona evaluations; the formats and their schemas; judges; propositions; the store; baselines and
// the regression check; the error classes. Test helpers are in `dramaturg/testing`, Vitest matchers in
// `dramaturg/vitest`; everything else (prompts, migrations, planners) is internal and may change.
// test/public-api.test.ts pins this list: a change to it is a change to the package's contract.

// ── Conversations ───────────────────────────────────────────────────────────────────────────────
export type {
  ConversationJob,
  ConversationResult,
  PassResult,
  RunConversationOptions,
} from "./conversations/index.ts";
export {
  CONVERSATION_RESULT_FORMAT,
  ConversationJobSchema,
  loadConversationJob,
  runConversation,
} from "./conversations/index.ts";
export type {
  Agent,
  ErrorReason,
  JudgeSpec,
  Message,
  Persona,
  PersonaDimension,
  Proposition,
  PropositionFile,
  PropositionSet,
  StoreLocation,
  TokenUsage,
  Transcript,
  Verdict,
  VerdictKey,
} from "./core/index.ts";
// ── Formats ─────────────────────────────────────────────────────────────────────────────────────
// ── Errors: catch by kind with `X.isInstance(error)` ────────────────────────────────────────────
export {
  DramaturgError,
  InputError,
  JudgeError,
  MissingVerdictError,
  PERSONA_DIMENSIONS,
  PropositionFileSchema,
  parseJudgeSpec,
  parseStoreLocation,
  parseTranscript,
  parseTranscriptValue,
  StoreError,
  TRANSCRIPT_FORMAT,
  TranscriptSchema,
} from "./core/index.ts";
// ── Evaluate ────────────────────────────────────────────────────────────────────────────────────
export type {
  JudgeOption,
  JudgeSettings,
  ProgressEvent,
  ProgressListener,
} from "./engine/index.ts";
export type { Baseline, CheckRule, CiReport, Measurement, MeasurementInput } from "./harness/index.ts";
// ── Baselines and the regression check ──────────────────────────────────────────────────────────
export {
  baselineOf,
  checkAgainstBaselines,
  ciExitCode,
  measurementOf,
  readBaselineFolder,
  renderCiJunit,
  renderCiMarkdown,
  serializeBaseline,
} from "./harness/index.ts";
export type {
  CreateJudgeOptions,
  Judge,
  JudgeDescriptor,
  JudgeItem,
  JudgeRequest,
  JudgeResponse,
} from "./judge/index.ts";
// ── Judges ──────────────────────────────────────────────────────────────────────────────────────
export {
  CachingJudge,
  createJudge,
  FIXTURES_FORMAT,
  FixtureJudge,
  isLiveJudge,
  JudgeFixturesSchema,
  LlmJudge,
  loadFixtures,
  verdictsToFixtures,
} from "./judge/index.ts";
export type { LoadedPropositions, LoadPropositionsOptions } from "./propositions/index.ts";
// ── Propositions ────────────────────────────────────────────────────────────────────────────────
export {
  loadPropositions,
  withPrecondition,
} from "./propositions/index.ts";
export type {
  AgentResult,
  DimensionResult,
  EnvironmentResult,
  EvalResult,
  EvaluatePersonasOptions,
  PersonaInputOptions,
  PropositionResult,
  ResumePersonasOptions,
  RunResult,
} from "./scorers/index.ts";
export {
  EVAL_RESULT_FORMAT,
  evaluatePersonas,
  loadEvalResult,
  renderMarkdown,
  renderTable,
  resumePersonaEvaluation,
} from "./scorers/index.ts";
// ── Sessions ────────────────────────────────────────────────────────────────────────────────────
export type {
  AgentScores,
  AnalyzeSessionOptions,
  Recommendation,
  Session,
  SessionAnalysis,
  SessionsAnalysis,
  ToolFinding,
  TurnResult,
} from "./sessions/index.ts";
export {
  analyzeSession,
  parseSession,
  SESSION_ANALYSIS_FORMAT,
  SESSION_FORMAT,
  SessionSchema,
} from "./sessions/index.ts";
export type { EvaluationRow, RunRow, Store } from "./store/index.ts";
// ── Store ───────────────────────────────────────────────────────────────────────────────────────
export {
  openStore,
  storeExists,
} from "./store/index.ts";
