// The package's surface, pinned: a name added to or removed from `dramaturg` or `dramaturg/testing`
// fails here, so the public API changes only on purpose (update this list in the same change).
import { describe, expect, expectTypeOf, it } from "vitest";
import type * as Main from "../src/index.ts";

const MAIN = [
  "ActionRejectedError",
  "AgentEvaluationConfigSchema",
  "CONVERSATION_RESULT_FORMAT",
  "CONVERSATION_TRIALS_FORMAT",
  "CachingJudge",
  "CassetteMissError",
  "ConversationJobSchema",
  "CorrectionSettingsSchema",
  "DEFAULT_AGENT_EVALUATION_CONFIG",
  "DEFAULT_CORRECTION_SETTINGS",
  "DramaturgError",
  "EVAL_RESULT_FORMAT",
  "FIXTURES_FORMAT",
  "FixtureJudge",
  "InputError",
  "Intervention",
  "InterventionBatch",
  "JudgeError",
  "JudgeFixturesSchema",
  "LlmJudge",
  "MissingVerdictError",
  "PERSONA_DIMENSIONS",
  "PropositionFileSchema",
  "SESSION_ANALYSIS_FORMAT",
  "SESSION_FORMAT",
  "SIMULATION_RESULT_FORMAT",
  "SessionSchema",
  "StoreError",
  "TRANSCRIPT_FORMAT",
  "TranscriptSchema",
  "WORLD_FORMAT",
  "WorldFileSchema",
  "actionGate",
  "actionSimilarity",
  "agentCorrectionSettings",
  "agentEvaluationConfig",
  "analyzeSession",
  "antiConvergenceIntervention",
  "baselineOf",
  "checkAgainstBaselines",
  "ciExitCode",
  "correctionStatistics",
  "createActionGate",
  "createJudge",
  "createPersonaAgent",
  "createWorld",
  "evaluatePersonas",
  "gateStatistics",
  "isLiveJudge",
  "loadConversationJob",
  "loadEvalResult",
  "loadFixtures",
  "loadPropositions",
  "loadSimulatedUserSet",
  "loadSimulationResult",
  "loadWorldFile",
  "measurementOf",
  "memoryCorrectionLog",
  "openStore",
  "parseJudgeSpec",
  "parseSession",
  "parseStoreLocation",
  "parseTranscript",
  "parseTranscriptValue",
  "readBaselineFolder",
  "renderCiJunit",
  "renderCiMarkdown",
  "renderMarkdown",
  "renderTable",
  "repetitionCheck",
  "resumePersonaEvaluation",
  "runConversation",
  "runConversationTrials",
  "runSimulation",
  "runWorld",
  "serializeBaseline",
  "simulate",
  "simulateWithCorrections",
  "storeExists",
  "varietyIntervention",
  "verdictsToFixtures",
  "withActionGate",
  "withPrecondition",
  "worldCorrections",
];

const TESTING = [
  "claimIds",
  "defaultResponder",
  "fixtureJudge",
  "hashScore",
  "killAfterCalls",
  "messageText",
  "scriptedJudge",
  "startFakeOpenAIServer",
  "syntheticTranscript",
];

const EXPERIMENTS = [
  "compareArms",
  "compareResultSets",
  "generatePopulation",
  "loadExperimentResult",
  "loadPopulation",
  "priceExperiment",
  "resolveScenario",
  "runExperiment",
  "runTable1",
  "scaleScenario",
];

const CALIBRATION = [
  "CALIBRATION_FORMAT",
  "LABELS_JSON_SCHEMAS",
  "LabelSchema",
  "agreement",
  "calibrate",
  "modelFamily",
  "readLabels",
];

const REDTEAM = [
  "DRIFT_FORMAT",
  "DRIFT_PROBES_FORMAT",
  "DriftProbesFileSchema",
  "DriftResultSchema",
  "REDTEAM_FORMAT",
  "RedteamResultSchema",
  "STRATEGIES",
  "TargetUnavailableError",
  "agentTarget",
  "builtinProbes",
  "gatedTarget",
  "isRefusal",
  "kaplanMeier",
  "languageModelTarget",
  "loadProbeFile",
  "modelAttacker",
  "runDrift",
  "runRedteam",
  "runStoredDrift",
  "runStoredRedteam",
  "scriptedAttacker",
  "scriptedTarget",
  "selfChatPartner",
  "simulatedUserPartner",
];

const QUEUE = ["onlineStatus", "runOnlineRuleNow", "scheduleOnlineRules", "startWorker"];

const SERVER = [
  "ApiError",
  "TOKEN_ENV",
  "checkHost",
  "createServerApp",
  "isLoopback",
  "startServer",
  "staticReport",
];

describe("public API", () => {
  it("the main entry exports exactly the chosen names", async () => {
    expect(Object.keys(await import("../src/index.ts")).sort()).toEqual(MAIN);
  });

  it("dramaturg/testing exports exactly the test helpers", async () => {
    expect(Object.keys(await import("../src/testing/index.ts")).sort()).toEqual(TESTING);
  });

  it("dramaturg/experiments exports the experiment runner and its statistics, which the main entry leaves out", async () => {
    expect(Object.keys(await import("../src/entries/experiments.ts")).sort()).toEqual(EXPERIMENTS);
    expect(await import("../src/index.ts")).not.toHaveProperty("runExperiment");
  });

  it("dramaturg/calibration exports calibration against human labels, which the main entry leaves out", async () => {
    expect(Object.keys(await import("../src/entries/calibration.ts")).sort()).toEqual(CALIBRATION);
    expect(await import("../src/index.ts")).not.toHaveProperty("calibrate");
  });

  it("dramaturg/queue exports the worker and the online rules, which the main entry leaves out", async () => {
    expect(Object.keys(await import("../src/entries/queue.ts")).sort()).toEqual(QUEUE);
    expect(await import("../src/index.ts")).not.toHaveProperty("startWorker");
  });

  it("dramaturg/redteam exports the red team and drift turn by turn, which the main entry leaves out", async () => {
    expect(Object.keys(await import("../src/entries/redteam.ts")).sort()).toEqual(REDTEAM);
    expect(await import("../src/index.ts")).not.toHaveProperty("runDrift");
    expect(await import("../src/index.ts")).not.toHaveProperty("runRedteam");
  });

  it("dramaturg/server exports the HTTP app and its start (kept off the main entry: Hono loads only for it)", async () => {
    expect(Object.keys(await import("../src/server/index.ts")).sort()).toEqual(SERVER);
    const main = await import("../src/index.ts");
    expect(main).not.toHaveProperty("createServerApp");
  });

  it("internals stay out of the main entry", async () => {
    const main = await import("../src/index.ts");
    for (const internal of [
      "MIGRATIONS",
      "PROMPT_VERSION",
      "planPersonaEvaluation",
      "executePlan",
      "startFakeOpenAIServer",
    ])
      expect(main).not.toHaveProperty(internal);
  });

  it("each deprecated name is its replacement, for one release", async () => {
    const main = await import("../src/index.ts");
    expect(main.AgentEvaluationConfigSchema).toBe(main.CorrectionSettingsSchema);
    expect(main.DEFAULT_AGENT_EVALUATION_CONFIG).toBe(main.DEFAULT_CORRECTION_SETTINGS);
    expect(main.agentEvaluationConfig).toBe(main.agentCorrectionSettings);
    expect(main.simulate).toBe(main.runWorld);
    expectTypeOf<Main.AgentEvaluationConfig>().toEqualTypeOf<Main.CorrectionSettings>();
    expectTypeOf<Main.AgentEvaluationConfigPatch>().toEqualTypeOf<Main.CorrectionSettingsPatch>();
    expectTypeOf<Main.SimulateOptions>().toEqualTypeOf<Main.RunWorldOptions>();
  });
});
