// An experiment's judge calls are the requests its provider received, those the action gate abandoned at its
// deadline included: a judge that keeps failing is retried, and each retry is billed though no answer comes.
import { describe, expect, it } from "vitest";
import { runExperiment } from "../../src/experiments/index.ts";
import { startFakeOpenAIServer } from "../../src/testing/index.ts";
import { driftingAgentModel, people, tinyScenario } from "./scripted-experiment-model.ts";

/** A gate request about Ana: its trajectory is the one before her message under evaluation (judge-dimension.ts). */
const isGateRequest = (request: { messages: unknown }) => {
  const text = JSON.stringify(request.messages);
  return text.includes('title=\\"Ana') && text.includes("before the message under evaluation");
};

describe("an experiment's judge calls", () => {
  it("count every request the provider received when the gate gives up on a failing judge at its deadline", async () => {
    // Server errors for the gate's requests about one agent for a while: retried with backoff (the first
    // retry after 250–500 ms) until the gate's deadline (600 ms) passes them unjudged; later ones answered.
    let failingUntil: number | undefined;
    let failed = 0;
    const judge = await startFakeOpenAIServer({
      faults: (_, request) => {
        if (!isGateRequest(request)) return undefined;
        failingUntil ??= Date.now() + 600;
        if (Date.now() >= failingUntil) return undefined;
        failed++;
        return { type: "500" };
      },
    });
    try {
      const { document } = await runExperiment(
        tinyScenario({ size: 3, environments: 2, dimensions: "[adherence]", taskCompletion: false }),
        {
          model: driftingAgentModel(),
          judge: "openai-compatible:judge",
          judgeSettings: { baseUrl: judge.url },
          population: { people: people(3) },
          store: "memory://",
          gateTimeoutMs: 600,
        },
      );
      const { control, treatment } = document.arms;
      expect(treatment.gate_unjudged).toBeGreaterThan(0);
      // Sent and billed, though the gate gave up on them: the retries before the deadline as well.
      expect(failed).toBeGreaterThan(treatment.gate_unjudged);
      expect(control.calls.judge + treatment.calls.judge).toBe(judge.stats.calls);
    } finally {
      await judge.close();
    }
  });
});
