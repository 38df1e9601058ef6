// Repeated trials of a job: each a full run with its own seed and its own verdicts (the trial number is in
// every verdict key), scored against a threshold into pass^k. The scorer here is scripted by trial.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConversationJob,
  conversationScore,
  greetingOf,
  loadConversationJob,
  runConversationTrials,
} from "../../src/conversations/index.ts";
import { InputError } from "../../src/core/index.ts";
import { type FakeOpenAIServer, scriptedJudge, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { scriptedTextModel } from "./scripted-model.ts";

let agent: FakeOpenAIServer;

beforeAll(async () => {
  agent = await startFakeOpenAIServer({ respond: () => "Done." });
});
afterAll(() => agent.close());

function job(): ConversationJob {
  const loaded = loadConversationJob(
    fileURLToPath(new URL("../fixtures/conversations/seed-example.yml", import.meta.url)),
  );
  return {
    ...loaded,
    seeds: [],
    setup: [],
    target: { ...loaded.target, url: agent.url, stateUrl: undefined },
    assertions: [],
  };
}

/** A user who signs off at once, in every pass of every trial. */
const user = () => scriptedTextModel("So Long, and Thanks for All the Fish");

/**
 * Trial 2's agent is judged badly; the others well: which trials pass depends on the verdict key's trial.
 * The simulated user is judged well in every trial (its checks are the `simulated_user` dimension).
 */
const byTrial = scriptedJudge((item) => ({
  score: item.key.trial === 2 && item.key.dimension === "conversation" ? 0 : 9,
}));

describe("runConversationTrials", () => {
  it("gives each trial its own verdicts and reports pass^k against the threshold", async () => {
    const result = await runConversationTrials(job(), {
      userModel: user(),
      judge: byTrial,
      passes: "without",
      trials: 3,
      minScore: 0.5,
    });
    expect(result.format).toBe("dramaturg.conversation-trials/v1");
    expect(result.scores).toEqual(result.trials.map(conversationScore));
    expect(result.passed).toEqual([true, false, true]);
    // τ-bench: C(2,1)/C(3,1), C(2,2)/C(3,2), C(2,3)/C(3,3).
    expect(result.pass_k).toEqual({ "1": 2 / 3, "2": 1 / 3, "3": 0 });
  });

  it("trial k greets with seed + k − 1", async () => {
    const { trials } = await runConversationTrials(job(), {
      userModel: user(),
      judge: byTrial,
      passes: "without",
      trials: 3,
      seed: 5,
    });
    const expected = [5, 6, 7].map((seed) => greetingOf(job(), seed));
    // The seeds give different greetings, so the test tells the seeds apart.
    expect(new Set(expected).size).toBeGreaterThan(1);
    expect(trials.map((t) => t.passes[0]!.transcript.turns[0]!.content)).toEqual(expected);
  });

  it("without a threshold there is no pass^k", async () => {
    const result = await runConversationTrials(job(), {
      userModel: user(),
      judge: byTrial,
      passes: "without",
      trials: 2,
    });
    expect(result.trials).toHaveLength(2);
    expect(result.pass_k).toBeUndefined();
  });

  it("a trial count that is not a whole number of 1 or more is an InputError", async () => {
    await expect(
      runConversationTrials(job(), { userModel: user(), judge: byTrial, trials: 0 }),
    ).rejects.toSatisfy(InputError.isInstance);
  });
});
