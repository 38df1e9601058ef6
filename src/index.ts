// The library: `import { … } from "dramaturg"`. A surface chosen on purpose — evaluate, resume and show
// persona evaluations; the formats and their schemas; judges; propositions; the store; baselines and
// the regression check; the error classes. Test helpers are in `dramaturg/testing`, Vitest matchers in
// `dramaturg/vitest`, the HTTP API (`createServerApp`, `startServer`) in `dramaturg/server`, so that
// importing the library never loads a web framework, experiments in `dramaturg/experiments` and queue
// workers in `dramaturg/queue`, whose schemas a plain import does not pay for; everything else (prompts, migrations, planners) is
// internal and may change.
// test/public-api.test.ts pins this list: a change to it is a change to the package's contract.

// ── Conversations ───────────────────────────────────────────────────────────────────────────────
export type {
  ConversationJob,
  ConversationResult,
  ConversationTrials,
  ConversationTrialsOptions,
  PassResult,
  RunConversationOptions,
  SimulatedUserCheck,
} from "./conversations/index.ts";
export {
  CONVERSATION_RESULT_FORMAT,
  CONVERSATION_TRIALS_FORMAT,
  ConversationJobSchema,
  loadConversationJob,
  runConversation,
  runConversationTrials,
} from "./conversations/index.ts";
export type {
  Agent,
  CorrectionLog,
  CorrectionLogEntry,
  CorrectionOutcome,
  CorrectionSettings,
  CorrectionSettingsPatch,
  CorrectionStatistics,
  CorrectionStatisticsOptions,
  ErrorReason,
  GateDimension,
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
  WorldCorrectionsSummary,
} from "./core/index.ts";
// ── Formats ─────────────────────────────────────────────────────────────────────────────────────
// ── Errors: catch by kind with `X.isInstance(error)` ────────────────────────────────────────────
export {
  /** Per-agent runtime-correction settings, everything off by default (the seed's `agent_evaluation_config`). */
  CorrectionSettingsSchema,
  /** Regeneration failure rate, failures per dimension, similarity failures, score means and spreads, original success rate. */
  correctionStatistics,
  /** The settings an agent gets when none are stored or written in the project file. */
  DEFAULT_CORRECTION_SETTINGS,
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
// ── Corrections ─────────────────────────────────────────────────────────────────────────────────
export type {
  ActionGate,
  ActionGateMiddlewareOptions,
  ActionGateOptions,
  AttemptStatistics,
  CorrectionLogSink,
  GateAttempt,
  GateCheckInput,
  GateCheckResult,
  GateFeedback,
  GateHistoryEntry,
  GateLogEntry,
  GatePropositionSet,
  GatePropositionSets,
  GateStatistics,
  Regenerate,
  RepetitionCheck,
  RepetitionCheckOptions,
  RunSimulationOptions,
  SimulateWithCorrectionsOptions,
  SimulationWithCorrectionsResult,
  StoredSimulation,
  WithActionGateOptions,
  WorldCorrections,
  WorldCorrectionsOptions,
} from "./corrections/index.ts";
export {
  /** Thrown by a gate with `continue_on_failure: false` when no attempt passed; the message must not be sent. */
  ActionRejectedError,
  /** The action gate as AI SDK middleware: `wrapLanguageModel({ model, middleware: actionGate({ agent, gate }) })`. */
  actionGate,
  /** Highest word-token Jaccard of a message against the agent's recent messages (the gate's similarity check). */
  actionSimilarity,
  /** The action gate: judges a tentative message on the enabled dimensions at once, regenerates with feedback, commits the best attempt. */
  createActionGate,
  /** Statistics over correction log entries: the stored rows' and, where the entries carry them, TinyTroupe's attempt-level counters. */
  gateStatistics,
  /** An in-memory correction log sink for a gate (`log`), with its `entries`. */
  memoryCorrectionLog,
  /** Repetition suppression's trigger: n-gram overlap of the last messages, the repeated phrases and the text to inject. */
  repetitionCheck,
  /**
   * Runs a world with its corrections and stores it as a `simulation` evaluation, whose id its gate checks
   * carry: the call behind `dramaturg simulate`.
   */
  runSimulation,
  /**
   * Runs a world with each agent's corrections on (stored > world file > dramaturg.yaml), the gate's logs
   * stored under the run id, the run itself not stored: the call behind `eval --synthetic`.
   */
  simulateWithCorrections,
  /** Wraps any `send(text)` so every text passes the action gate first. */
  withActionGate,
  /** The action gate and repetition suppression on a world's agents: `createWorld(file, { beforeCommit, beforeAct })`. */
  worldCorrections,
} from "./corrections/index.ts";
// ── Evaluate ────────────────────────────────────────────────────────────────────────────────────
export type {
  JudgeOption,
  JudgeSettings,
  ProgressEvent,
  ProgressListener,
} from "./engine/index.ts";
export type {
  CreateJudgeOptions,
  Judge,
  JudgeDescriptor,
  JudgeItem,
  JudgeRequest,
  JudgeResponse,
  RateLimit,
} from "./judge/index.ts";
// ── Judges ──────────────────────────────────────────────────────────────────────────────────────
export {
  CachingJudge,
  CassetteMissError,
  createJudge,
  FIXTURES_FORMAT,
  FixtureJudge,
  isLiveJudge,
  JudgeFixturesSchema,
  LlmJudge,
  loadFixtures,
  verdictsToFixtures,
} from "./judge/index.ts";
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
} from "./personas/index.ts";
export {
  EVAL_RESULT_FORMAT,
  evaluatePersonas,
  loadEvalResult,
  renderMarkdown,
  renderTable,
  resumePersonaEvaluation,
} from "./personas/index.ts";
// The propositions a conversation's simulated user is checked on: the built-in set, or a file of one's own.
export type {
  LoadedPropositions,
  LoadPropositionsOptions,
  SimulatedUserPropositionSet,
} from "./propositions/index.ts";
// ── Propositions ────────────────────────────────────────────────────────────────────────────────
export {
  loadPropositions,
  loadSimulatedUserSet,
  withPrecondition,
} from "./propositions/index.ts";
export type { Baseline, CheckRule, CiReport, Measurement, MeasurementInput } from "./regression/index.ts";
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
} from "./regression/index.ts";
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
// ── Simulation ──────────────────────────────────────────────────────────────────────────────────
// Synthetic mode: persona agents (persona as system prompt, own trajectory as memory, a send_message
// tool), the step-based world of `dramaturg.world/v1` files (interventions, facilitator prompts, then agents
// in parallel or seeded sequential_random order), interventions with the fluent precondition API, and a
// stored simulation read back. A run with corrections is `runSimulation` or `simulateWithCorrections` above.
export type {
  BeforeAct,
  BeforeCommit,
  BeforeCommitContext,
  CreateWorldOptions,
  PersonaAgent,
  PersonaAgentOptions,
  RunWorldOptions,
  SimulationResult,
  SimulationResultDocument,
  World,
  WorldFile,
  WorldRunResult,
  WorldStats,
} from "./sim/index.ts";
export {
  /** Fires when an agent's corrections enable it and the judge sees it echoing the others; nudges in character. */
  antiConvergenceIntervention,
  /** An LLM persona agent on an AI SDK model. */
  createPersonaAgent,
  /** A step-based world from a parsed world file; `world.run()` returns a `dramaturg.transcript/v1`. */
  createWorld,
  /** Preconditions (functional, textual, propositional; ANDed) and an effect, checked once per step. */
  Intervention,
  /** One intervention per target, configured together (`InterventionBatch.createForEach(agents)`). */
  InterventionBatch,
  /** A stored simulation's result document (`dramaturg.simulation-result/v1`) by id or its first 8+ characters. */
  loadSimulationResult,
  /** Reads and checks a world file; mistakes are InputErrors with file:line:col. */
  loadWorldFile,
  /**
   * The world's loop without corrections: a world file and a model (or spec) in, its transcript out; each
   * agent's world-file settings over the defaults, no store, no action gate unless its hooks are given.
   */
  runWorld,
  /** The format of a stored simulation's result document. */
  SIMULATION_RESULT_FORMAT,
  /** Fires when an agent's ideas stagnate after `variety_message_threshold` messages. */
  varietyIntervention,
  WORLD_FORMAT,
  WorldFileSchema,
} from "./sim/index.ts";
export type {
  EvaluationRow,
  ProjectAgentConfigs,
  ResolvedAgentConfig,
  RunRow,
  Store,
  StoredAgentConfig,
} from "./store/index.ts";
// ── Store ───────────────────────────────────────────────────────────────────────────────────────
export {
  /** The settings a gate check of an agent uses: stored row > project file (`corrections`) > defaults. */
  agentCorrectionSettings,
  openStore,
  storeExists,
} from "./store/index.ts";

// ── Deprecated names, kept for one release ──────────────────────────────────────────────────────
import {
  type CorrectionSettings,
  type CorrectionSettingsPatch,
  CorrectionSettingsSchema,
  DEFAULT_CORRECTION_SETTINGS,
} from "./core/index.ts";
import { type RunWorldOptions, runWorld } from "./sim/index.ts";
import { agentCorrectionSettings } from "./store/index.ts";

/** @deprecated use CorrectionSettings */
export type AgentEvaluationConfig = CorrectionSettings;
/** @deprecated use CorrectionSettingsPatch */
export type AgentEvaluationConfigPatch = CorrectionSettingsPatch;
/** @deprecated use CorrectionSettingsSchema */
export const AgentEvaluationConfigSchema = CorrectionSettingsSchema;
/** @deprecated use DEFAULT_CORRECTION_SETTINGS */
export const DEFAULT_AGENT_EVALUATION_CONFIG = DEFAULT_CORRECTION_SETTINGS;
/** @deprecated use agentCorrectionSettings */
export const agentEvaluationConfig = agentCorrectionSettings;
/** @deprecated use runWorld (the world's loop without corrections), or simulateWithCorrections for a run with them */
export const simulate = runWorld;
/** @deprecated use RunWorldOptions */
export type SimulateOptions = RunWorldOptions;
