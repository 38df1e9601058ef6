// Several jobs' outcome as one exit code: a trial under the threshold 1, a job none of whose passes scored 3,
// a job that could not complete its own error's code (2 for bad input, 3 otherwise); the highest wins.
import { describe, expect, it } from "vitest";
import {
  CONVERSATION_TRIALS_FORMAT,
  type ConversationResult,
  type ConversationTrials,
  conversationJobsExitCode,
  unscoredJobs,
} from "../../src/conversations/index.ts";
import { InputError } from "../../src/core/index.ts";

/** A job's trials, each scored or (given a reason) not, with which passed the threshold. */
function trials(job: string, outcome: { unscored?: string; passed?: boolean[] } = {}): ConversationTrials {
  const trial = { job, passes: [], unscored: outcome.unscored } as unknown as ConversationResult;
  return {
    format: CONVERSATION_TRIALS_FORMAT,
    job,
    trials: [trial],
    scores: [outcome.unscored === undefined ? 0.8 : null],
    ...(outcome.passed ? { min_score: 0.7, passed: outcome.passed } : {}),
  };
}

describe("the exit code of conversation jobs", () => {
  it("is 0 when every job scored and, with a threshold, every trial reached it", () => {
    const slots = [trials("a.yml", { passed: [true] }), trials("b.yml", { passed: [true] })];
    expect(conversationJobsExitCode({ slots, failures: [] }, 0.7)).toBe(0);
  });

  it("is 1 when a trial is under the threshold, and only with a threshold", () => {
    const slots = [trials("a.yml", { passed: [true] }), trials("b.yml", { passed: [false] })];
    expect(conversationJobsExitCode({ slots, failures: [] }, 0.7)).toBe(1);
    expect(conversationJobsExitCode({ slots, failures: [] }, undefined)).toBe(0);
  });

  it("is 3 when a job could not be scored in any trial, whatever the threshold", () => {
    const slots = [trials("a.yml", { passed: [false] }), trials("dead.yml", { unscored: "agent_failed" })];
    expect(unscoredJobs(slots as ConversationTrials[]).map((j) => j.job)).toEqual(["dead.yml"]);
    expect(conversationJobsExitCode({ slots, failures: [] }, 0.7)).toBe(3);
  });

  it("is a failed job's own code: 2 for bad input, 3 for anything else", () => {
    const slots = [trials("a.yml"), undefined];
    const bad = { job: "b.yml", error: new InputError("no such cassette") };
    expect(conversationJobsExitCode({ slots, failures: [bad] }, undefined)).toBe(2);
    const lost = { job: "b.yml", error: new Error("socket hang up") };
    expect(conversationJobsExitCode({ slots, failures: [bad, lost] }, undefined)).toBe(3);
  });
});
