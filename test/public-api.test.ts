// The package's surface, pinned: a name added to or removed from `dramaturg` or `dramaturg/testing`
// fails here, so the public API changes only on purpose (update this list in the same change).
import { describe, expect, it } from "vitest";

const MAIN = [
  "ActionRejectedError",
  "AgentEvaluationConfigSchema",
  "CONVERSATION_RESULT_FORMAT",
  "CONVERSATION_TRIALS_FORMAT",
  "CachingJudge",
  "CassetteMissError",
  "ConversationJobSchema",
  "DEFAULT_AGENT_EVALUATION_CONFIG",
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
  "agentEvaluationConfig",
  "analyzeSession",
  "antiConvergenceIntervention",
  "baselineOf",
  "checkAgainstBaselines",
  "ciExitCode",
  "compareArms",
  "compareResultSets",
  "correctionStatistics",
  "createActionGate",
  "createJudge",
  "createPersonaAgent",
  "createWorld",
  "evaluatePersonas",
  "gateStatistics",
  "generatePopulation",
  "isLiveJudge",
  "loadConversationJob",
  "loadEvalResult",
  "loadExperimentResult",
  "loadFixtures",
  "loadPopulation",
  "loadPropositions",
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
  "priceExperiment",
  "readBaselineFolder",
  "renderCiJunit",
  "renderCiMarkdown",
  "renderMarkdown",
  "renderTable",
  "repetitionCheck",
  "resolveScenario",
  "resumePersonaEvaluation",
  "runConversation",
  "runConversationTrials",
  "runExperiment",
  "runSimulation",
  "runTable1",
  "scaleScenario",
  "serializeBaseline",
  "simulate",
  "simulateWithCorrections",
  "startWorker",
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

const SERVER = ["ApiError", "TOKEN_ENV", "checkHost", "createServerApp", "isLoopback", "startServer"];

describe("public API", () => {
  it("the main entry exports exactly the chosen names", async () => {
    expect(Object.keys(await import("../src/index.ts")).sort()).toEqual(MAIN);
  });

  it("dramaturg/testing exports exactly the test helpers", async () => {
    expect(Object.keys(await import("../src/testing/index.ts")).sort()).toEqual(TESTING);
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
});
