// The package's `dramaturg/redteam` entry: drift turn by turn (forked probes along a conversation, stability
// per turn) and what it talks to. Apart from the main entry so that importing `dramaturg` does not load the
// probe suite and its schemas. test/public-api.test.ts pins this list.
export type {
  ChatMessage,
  ChatTarget,
  DriftOptions,
  DriftPartner,
  DriftPersona,
  DriftResult,
  Probe,
  RunStoredDriftOptions,
} from "../redteam/index.ts";
export {
  agentTarget,
  builtinProbes,
  DRIFT_FORMAT,
  DRIFT_PROBES_FORMAT,
  DriftProbesFileSchema,
  DriftResultSchema,
  languageModelTarget,
  loadProbeFile,
  runDrift,
  runStoredDrift,
  scriptedTarget,
  selfChatPartner,
  simulatedUserPartner,
  TargetUnavailableError,
} from "../redteam/index.ts";
