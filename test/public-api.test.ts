// The package's surface, pinned: a name added to or removed from `dramaturg` or `dramaturg/testing`
// fails here, so the public API changes only on purpose (update this list in the same change).
import { describe, expect, it } from "vitest";

const MAIN = [
  "CONVERSATION_RESULT_FORMAT",
  "CachingJudge",
  "ConversationJobSchema",
  "DramaturgError",
  "EVAL_RESULT_FORMAT",
  "FIXTURES_FORMAT",
  "FixtureJudge",
  "InputError",
  "JudgeError",
  "JudgeFixturesSchema",
  "LlmJudge",
  "MissingVerdictError",
  "PERSONA_DIMENSIONS",
  "PropositionFileSchema",
  "SESSION_ANALYSIS_FORMAT",
  "SESSION_FORMAT",
  "SessionSchema",
  "StoreError",
  "TRANSCRIPT_FORMAT",
  "TranscriptSchema",
  "analyzeSession",
  "baselineOf",
  "checkAgainstBaselines",
  "ciExitCode",
  "createJudge",
  "evaluatePersonas",
  "isLiveJudge",
  "loadConversationJob",
  "loadEvalResult",
  "loadFixtures",
  "loadPropositions",
  "measurementOf",
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
  "resumePersonaEvaluation",
  "runConversation",
  "serializeBaseline",
  "storeExists",
  "verdictsToFixtures",
  "withPrecondition",
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

describe("public API", () => {
  it("the main entry exports exactly the chosen names", async () => {
    expect(Object.keys(await import("../src/index.ts")).sort()).toEqual(MAIN);
  });

  it("dramaturg/testing exports exactly the test helpers", async () => {
    expect(Object.keys(await import("../src/testing/index.ts")).sort()).toEqual(TESTING);
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
