import { describe, expect, it } from "vitest";
import {
  createActionGate,
  type GateLogEntry,
  gateStatistics,
  memoryCorrectionLog,
} from "../../src/corrections/index.ts";
import { ALL_SETS, drift, driftJudge, marta } from "./gate-fixtures.ts";

/** Three checks through a real gate: one passes, one is corrected on the first retry, one is forced through. */
async function threeChecks(): Promise<GateLogEntry[]> {
  const sink = memoryCorrectionLog();
  const gate = createActionGate({
    judge: driftJudge(),
    config: { gate_adherence_enabled: true, gate_similarity_enabled: true },
    propositions: ALL_SETS,
    log: sink.log,
  });
  await gate.check({ agent: marta, tentativeText: "Seal goes tonight." });
  await gate.check({ agent: marta, tentativeText: drift.drift, regenerate: () => "Port runs hot." });
  await gate.check({
    agent: marta,
    tentativeText: drift.drift,
    regenerate: (_f, attempt) => drift.retries[attempt - 2]!,
  });
  return sink.entries;
}

describe("gateStatistics", () => {
  it("gives the row-level statistics shared with the store", async () => {
    const stats = gateStatistics(await threeChecks());
    expect(stats).toMatchObject({
      checks: 3,
      outcomes: { passed: 1, corrected: 1, forced_through: 1 },
      original_successes: 1,
      forced_through: 1,
    });
  });

  it("counts generations and TinyTroupe's regeneration failure rate from every attempt", async () => {
    const { attempts } = gateStatistics(await threeChecks());
    // Regenerations: 1 (passed) + 2 (both failed).
    expect(attempts).toMatchObject({
      checks: 3,
      generations: 6,
      regeneration_attempts: 3,
      regeneration_failures: 2,
      original_successes: 1,
    });
    expect(attempts!.regeneration_failure_rate).toBeCloseTo(2 / 3);
    expect(attempts!.original_success_rate).toBeCloseTo(1 / 6);
  });

  it("counts failures per dimension, similarity failures, and the mean and spread of scores over attempts", async () => {
    const { attempts } = gateStatistics(await threeChecks());
    expect(attempts!.failures_per_dimension).toEqual({
      adherence: 4,
      consistency: 0,
      fluency: 0,
      suitability: 0,
    });
    expect(attempts!.similarity_failures).toBe(0);
    // Adherence scores: 8, 1, 8, 1, 4, 6.
    expect(attempts!.scores.adherence.n).toBe(6);
    expect(attempts!.scores.adherence.mean).toBeCloseTo(28 / 6);
    expect(attempts!.scores.adherence.sd).toBeCloseTo(3.204, 3);
    expect(attempts!.scores.fluency).toEqual({ n: 0, mean: null, sd: null });
    expect(attempts!.regeneration_scores).toMatchObject({ n: 2, mean: 5 });
  });

  it("has no attempt-level statistics for stored rows, which keep only the committed attempt", () => {
    const stats = gateStatistics([
      {
        agent_id: "marta",
        original_text: "a",
        corrected_text: "b",
        dimension_scores: { fluency: { score: 8, reasoning: "", passed: true } },
        attempt_number: 3,
        outcome: "corrected",
      },
    ]);
    expect(stats.attempts).toBeNull();
    expect(stats.checks).toBe(1);
  });
});
