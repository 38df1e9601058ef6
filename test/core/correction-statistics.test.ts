// TinyTroupe's gate statistics over correction logs (hand-written logs, as the gate would write them).
import { expect, test } from "vitest";
import { type CorrectionLogEntry, correctionStatistics } from "../../src/core/index.ts";

function log(overrides: Partial<CorrectionLogEntry> = {}): CorrectionLogEntry {
  return {
    agent_id: "marta",
    original_text: "Garlic, always garlic.",
    dimension_scores: {},
    attempt_number: 1,
    outcome: "passed",
    ...overrides,
  };
}

const judged = (score: number | null, passed: boolean, extra: object = {}) => ({
  score,
  reasoning: "hand-written",
  passed,
  ...extra,
});

test("no logs give zero counts and no rates, means or spreads", () => {
  const s = correctionStatistics([]);
  expect(s).toMatchObject({ checks: 0, original_success_rate: null, regeneration_failure_rate: null });
  expect(s.dimensions.adherence).toEqual({
    n: 0,
    mean: null,
    sd: null,
    failures: 0,
    timeouts: 0,
    errored: 0,
  });
  expect(s.total_score).toEqual({ n: 0, mean: null, sd: null });
});

test("the original success rate is the share of checks whose first attempt passed", () => {
  const s = correctionStatistics([
    log(),
    log(),
    log({ outcome: "passed_after_retry", attempt_number: 2 }),
    log({ outcome: "forced_through" }),
  ]);
  expect(s.original_successes).toBe(2);
  expect(s.original_success_rate).toBe(0.5);
});

test("the regeneration failure rate is the share of checks whose first attempt failed", () => {
  const s = correctionStatistics([
    log(),
    log({ outcome: "corrected", attempt_number: 2 }),
    log({ outcome: "forced_through", attempt_number: 1 }),
    log({ outcome: "passed" }),
  ]);
  expect(s.first_attempt_failures).toBe(2);
  expect(s.regeneration_failure_rate).toBe(0.5);
});

test("a first attempt that passed only because a judge timed out did not fail; a later one did", () => {
  const s = correctionStatistics([
    log({ outcome: "timeout_pass_through", attempt_number: 1 }),
    log({ outcome: "timeout_pass_through", attempt_number: 2 }),
  ]);
  expect(s.first_attempt_failures).toBe(1);
  expect(s.original_successes).toBe(0);
  expect(s.outcomes.timeout_pass_through).toBe(2);
});

test("failures, timeouts and errors are counted per dimension", () => {
  const s = correctionStatistics([
    log({
      outcome: "forced_through",
      dimension_scores: { adherence: judged(4, false), fluency: judged(8, true) },
    }),
    log({
      dimension_scores: {
        adherence: judged(null, true, { timed_out: true }),
        fluency: judged(null, true, { errored: true }),
      },
    }),
  ]);
  expect(s.dimensions.adherence).toMatchObject({ failures: 1, timeouts: 1, errored: 0, n: 1 });
  expect(s.dimensions.fluency).toMatchObject({ failures: 0, timeouts: 0, errored: 1, n: 1 });
  expect(s.dimensions.suitability.n).toBe(0);
});

test("scores have a mean and a sample standard deviation per dimension, leaving out missing scores", () => {
  const s = correctionStatistics([
    log({ dimension_scores: { fluency: judged(6, false) } }),
    log({ dimension_scores: { fluency: judged(8, true) } }),
    log({ dimension_scores: { fluency: judged(null, true, { timed_out: true }) } }),
  ]);
  expect(s.dimensions.fluency.n).toBe(2);
  expect(s.dimensions.fluency.mean).toBe(7);
  expect(s.dimensions.fluency.sd).toBeCloseTo(Math.SQRT2, 12);
});

test("one score has a mean but no spread", () => {
  const s = correctionStatistics([log({ total_score: 15 })]);
  expect(s.total_score).toEqual({ n: 1, mean: 15, sd: null });
});

test("a similarity at or above the threshold is a similarity failure", () => {
  const logs = [
    log({ similarity_score: 0.6 }),
    log({ similarity_score: 0.59 }),
    log({ similarity_score: null }),
  ];
  expect(correctionStatistics(logs).similarity).toMatchObject({ n: 2, failures: 1 });
  expect(correctionStatistics(logs, { maxActionSimilarity: 0.5 }).similarity.failures).toBe(2);
});

test("each agent's similarity is held to its own threshold", () => {
  const logs = [
    log({ agent_id: "strict", similarity_score: 0.4 }),
    log({ agent_id: "loose", similarity_score: 0.4 }),
  ];
  const s = correctionStatistics(logs, { maxActionSimilarity: (agent) => (agent === "strict" ? 0.3 : 0.9) });
  expect(s.similarity.failures).toBe(1);
});

test("token usage is summed over the checks that report it", () => {
  const s = correctionStatistics([
    log({ token_usage: { input_tokens: 100, output_tokens: 10 } }),
    log({ token_usage: { input_tokens: 50, output_tokens: 5 } }),
    log(),
  ]);
  expect(s.token_usage).toEqual({ input_tokens: 150, output_tokens: 15 });
});
