import { afterEach, describe, expect, it, vi } from "vitest";
import { InputError } from "../../src/core/index.ts";
import {
  ActionRejectedError,
  createActionGate,
  type GateFeedback,
  memoryCorrectionLog,
} from "../../src/corrections/index.ts";
import type { Judge, JudgeRequest } from "../../src/judge/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";
import { ALL_SETS, drift, driftJudge, heldJudge, marta } from "./gate-fixtures.ts";

const ALL_ON = {
  gate_adherence_enabled: true,
  gate_consistency_enabled: true,
  gate_fluency_enabled: true,
  gate_suitability_enabled: true,
};

/** A regenerate that answers each retry with the next scripted text and keeps the feedback it got. */
function scriptedRegenerate(texts: readonly string[]) {
  const feedback: GateFeedback[] = [];
  const regenerate = vi.fn(async (f: GateFeedback, attempt: number) => {
    feedback.push(f);
    return texts[attempt - 2]!;
  });
  return { feedback, regenerate };
}

function recordingJudge(judge: Judge): Judge & { requests: JudgeRequest[] } {
  const requests: JudgeRequest[] = [];
  return {
    descriptor: judge.descriptor,
    requests,
    judge(request, options) {
      requests.push(request);
      return judge.judge(request, options);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the drift scenario", () => {
  it("catches the drifting message and commits the best attempt when none passes", async () => {
    const sink = memoryCorrectionLog();
    const gate = createActionGate({
      judge: driftJudge(),
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
      log: sink.log,
    });
    const { regenerate } = scriptedRegenerate(drift.retries);
    const result = await gate.check({
      agent: marta,
      tentativeText: drift.drift,
      history: drift.history,
      regenerate,
    });
    expect(result.attempts.map((a) => a.dimensions[0]!.score)).toEqual([1, 4, 6]);
    expect(result.outcome).toBe("forced_through");
    expect(result.text).toBe(drift.retries[1]);
    expect(sink.entries).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({
      agent_id: "marta",
      original_text: drift.drift,
      corrected_text: drift.retries[1],
      attempt_number: 3,
      total_score: 6,
      outcome: "forced_through",
    });
  });

  it("counts every attempt's judge calls in the check's entry, as the judge reported them", async () => {
    const scripted = driftJudge();
    // Each answer took a retry at the provider: two calls billed per request.
    const judge: Judge = {
      descriptor: scripted.descriptor,
      judge: async (request, options) => ({ ...(await scripted.judge(request, options)), calls: 2 }),
    };
    const sink = memoryCorrectionLog();
    const gate = createActionGate({
      judge,
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
      log: sink.log,
    });
    const { regenerate } = scriptedRegenerate(drift.retries);
    const result = await gate.check({
      agent: marta,
      tentativeText: drift.drift,
      history: drift.history,
      regenerate,
    });
    expect(result.attempts).toHaveLength(3);
    expect(sink.entries[0]!.judge_calls).toBe(6);
  });

  it("gives each retry every earlier failed attempt with its scores, reasoning and recommendations", async () => {
    const gate = createActionGate({
      judge: driftJudge(),
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
    });
    const { feedback, regenerate } = scriptedRegenerate(drift.retries);
    await gate.check({ agent: marta, tentativeText: drift.drift, history: drift.history, regenerate });
    expect(feedback.map((f) => f.attempt)).toEqual([2, 3]);
    const last = feedback[1]!.text;
    expect(last).toContain(drift.drift);
    expect(last).toContain(drift.retries[0]);
    expect(last).toMatch(/Score 1 out of 9 \(needed 7\)/);
    expect(last).toMatch(/Score 4 out of 9 \(needed 7\)/);
    expect(last).toContain('hand-written: adherence of "Great question! As a…"');
    expect(last).toContain("Recommendation for adherence: speak as Marta Ilves would.");
    expect(feedback[1]!.failed).toHaveLength(2);
  });

  it("escalates the call for radical change with each failed attempt", async () => {
    const gate = createActionGate({
      judge: driftJudge(new Map([[drift.drift, 1]])),
      config: { gate_adherence_enabled: true, max_correction_attempts: 3 },
      propositions: ALL_SETS,
    });
    const { feedback, regenerate } = scriptedRegenerate([drift.drift, drift.drift, drift.drift]);
    await gate.check({ agent: marta, tentativeText: drift.drift, regenerate });
    const [first, second, third] = feedback.map((f) => f.text);
    expect(first).toContain("MORE RADICAL");
    expect(first).not.toContain("attempts have failed");
    expect(second).toContain("2 attempts have failed. Be MORE RADICAL than last time");
    expect(third).toContain("3 attempts have failed. Be FAR MORE RADICAL");
  });

  it("commits a regenerated text that passes as corrected", async () => {
    const sink = memoryCorrectionLog();
    const gate = createActionGate({
      judge: driftJudge(new Map([[drift.drift, 1]])),
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
      log: sink.log,
    });
    const { regenerate } = scriptedRegenerate(drift.retries);
    const result = await gate.check({
      agent: marta,
      tentativeText: drift.drift,
      history: drift.history,
      regenerate,
    });
    expect(result).toMatchObject({ outcome: "corrected", text: drift.retries[0] });
    expect(regenerate).toHaveBeenCalledTimes(1);
    expect(sink.entries[0]).toMatchObject({
      outcome: "corrected",
      attempt_number: 2,
      corrected_text: drift.retries[0],
    });
  });

  it("commits the drift unchanged when the gate is off, without judging or logging", async () => {
    const judge = recordingJudge(driftJudge());
    const sink = memoryCorrectionLog();
    const gate = createActionGate({ judge, log: sink.log });
    const { regenerate } = scriptedRegenerate(drift.retries);
    const result = await gate.check({
      agent: marta,
      tentativeText: drift.drift,
      history: drift.history,
      regenerate,
    });
    expect(gate.enabled).toBe(false);
    expect(result).toMatchObject({ text: drift.drift, outcome: "passed", entry: null });
    expect(judge.requests).toHaveLength(0);
    expect(regenerate).not.toHaveBeenCalled();
    expect(sink.entries).toHaveLength(0);
  });
});

describe("outcomes", () => {
  it("a message that passes every check first time is passed, with one judge request per dimension", async () => {
    const judge = recordingJudge(driftJudge());
    const sink = memoryCorrectionLog();
    const gate = createActionGate({ judge, config: ALL_ON, propositions: ALL_SETS, log: sink.log });
    const result = await gate.check({
      agent: marta,
      tentativeText: "Seal goes tonight.",
      history: drift.history,
    });
    expect(result.outcome).toBe("passed");
    expect(judge.requests.map((r) => r.items[0]!.key.dimension).sort()).toEqual([
      "adherence",
      "consistency",
      "fluency",
      "suitability",
    ]);
    expect(sink.entries[0]).toMatchObject({
      outcome: "passed",
      attempt_number: 1,
      corrected_text: null,
      total_score: 32,
    });
    expect(Object.keys(sink.entries[0]!.dimension_scores)).toEqual([
      "adherence",
      "consistency",
      "fluency",
      "suitability",
    ]);
  });

  it("a retry that passes with the original words unchanged is passed_after_retry", async () => {
    let calls = 0;
    const noisy = scriptedJudge(() => ({ score: calls++ === 0 ? 3 : 8 }));
    const gate = createActionGate({
      judge: noisy,
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
    });
    const result = await gate.check({
      agent: marta,
      tentativeText: "Pump seal.",
      regenerate: () => "Pump seal.",
    });
    expect(result).toMatchObject({ outcome: "passed_after_retry", text: "Pump seal." });
    expect(result.entry).toMatchObject({ corrected_text: null, attempt_number: 2 });
  });

  it("without a regenerate function a failing message is forced through after one attempt", async () => {
    const gate = createActionGate({
      judge: driftJudge(),
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
    });
    const result = await gate.check({ agent: marta, tentativeText: drift.drift });
    expect(result.attempts).toHaveLength(1);
    expect(result).toMatchObject({ outcome: "forced_through", text: drift.drift });
  });

  it("with continue_on_failure off, a message failing every attempt is rejected", async () => {
    const gate = createActionGate({
      judge: driftJudge(),
      config: { gate_adherence_enabled: true, continue_on_failure: false },
      propositions: ALL_SETS,
    });
    const error = await gate
      .check({ agent: marta, tentativeText: drift.drift, regenerate: () => drift.drift })
      .catch((e: unknown) => e);
    expect(ActionRejectedError.isInstance(error)).toBe(true);
    expect((error as ActionRejectedError).attempts).toHaveLength(3);
  });

  it("logs a rejected message as rejected, with its best attempt's scores and no corrected text", async () => {
    const { entries, log } = memoryCorrectionLog();
    const gate = createActionGate({
      judge: driftJudge(),
      config: { gate_adherence_enabled: true, continue_on_failure: false },
      propositions: ALL_SETS,
      log,
    });
    const error = await gate
      .check({ agent: marta, tentativeText: drift.drift, regenerate: (_, n) => drift.retries[n - 2]! })
      .catch((e: unknown) => e);
    expect(ActionRejectedError.isInstance(error)).toBe(true);
    // The drift scores 1, the first retry 4, the second 6, under the threshold 7 (gate-fixtures.ts): the best is attempt 3.
    expect(entries).toEqual([(error as ActionRejectedError).entry]);
    expect(entries[0]).toMatchObject({
      outcome: "rejected",
      original_text: drift.drift,
      corrected_text: null,
      attempt_number: 3,
      dimension_scores: { adherence: { passed: false } },
    });
  });

  it("a setting out of range is an InputError naming it", () => {
    let error: unknown;
    try {
      createActionGate({ config: { gate_fluency_threshold: 12 } });
    } catch (e) {
      error = e;
    }
    expect(InputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/gate_fluency_threshold/);
  });

  it("an enabled dimension without a judge is an InputError", () => {
    expect(() => createActionGate({ config: { gate_fluency_enabled: true } })).toThrow(/needs a judge/);
  });
});

describe("judging", () => {
  it("starts every enabled dimension's request before any judge answers", async () => {
    const judge = heldJudge();
    const gate = createActionGate({ judge, config: ALL_ON, propositions: ALL_SETS });
    const checking = gate.check({ agent: marta, tentativeText: drift.retries[1], history: drift.history });
    await vi.waitFor(() => expect(judge.requests).toHaveLength(4));
    judge.release();
    expect((await checking).outcome).toBe("passed");
  });

  it("passes consistency with 9 and no judge call when the agent has no earlier message", async () => {
    const judge = recordingJudge(driftJudge());
    const gate = createActionGate({
      judge,
      config: { gate_consistency_enabled: true },
      propositions: ALL_SETS,
    });
    const result = await gate.check({
      agent: marta,
      tentativeText: "Hello.",
      history: [{ from: "Bob", text: "Hi" }],
    });
    expect(result.committed.dimensions[0]).toMatchObject({
      dimension: "consistency",
      score: 9,
      passed: true,
    });
    expect(judge.requests).toHaveLength(0);
  });

  it("shows the persona to adherence and suitability only, and the message in its own block", async () => {
    const judge = recordingJudge(driftJudge());
    const gate = createActionGate({ judge, config: ALL_ON, propositions: ALL_SETS });
    await gate.check({ agent: marta, tentativeText: drift.retries[1], history: drift.history });
    const byDimension = new Map(judge.requests.map((r) => [r.items[0]!.key.dimension, r.context]));
    expect(byDimension.get("adherence")!.persona?.text).toContain("chief engineer");
    expect(byDimension.get("suitability")!.persona).toBeDefined();
    expect(byDimension.get("consistency")!.persona).toBeUndefined();
    expect(byDimension.get("fluency")!.persona).toBeUndefined();
    expect(byDimension.get("adherence")!.action).toEqual({ name: "Marta Ilves", text: drift.retries[1] });
  });

  it("gives consistency the agent's own messages and adherence the stimuli too", async () => {
    const judge = recordingJudge(driftJudge());
    const gate = createActionGate({ judge, config: ALL_ON, propositions: ALL_SETS });
    await gate.check({ agent: marta, tentativeText: drift.retries[1], history: drift.history });
    const byDimension = new Map(judge.requests.map((r) => [r.items[0]!.key.dimension, r.context]));
    expect(byDimension.get("consistency")!.trajectory.text).toBe(
      [
        "#1 Marta Ilves acts: [TALK] Coolant pump. Seal's worn. I'll swap it at the next watch.",
        "#2 Marta Ilves acts: [TALK] No. Two more days like this and the bearing goes. Then we drift.",
      ].join("\n"),
    );
    expect(byDimension.get("adherence")!.trajectory.text).toContain(
      "#1 --> Marta Ilves: [CONVERSATION] Bob: The port engine is running hot again. What do we do?",
    );
  });

  it("windows a long history to the first 5 and last 10 events", async () => {
    const judge = recordingJudge(driftJudge());
    const gate = createActionGate({
      judge,
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
    });
    const history = Array.from({ length: 30 }, (_, i) => ({ text: `message ${i + 1}` }));
    await gate.check({ agent: marta, tentativeText: "Next.", history });
    const lines = judge.requests[0]!.context.trajectory.text.split("\n");
    expect(lines).toHaveLength(16);
    expect(lines[4]).toBe("#5 Marta Ilves acts: [TALK] message 5");
    expect(lines[5]).toBe("(… 15 events omitted …)");
    expect(lines[6]).toBe("#21 Marta Ilves acts: [TALK] message 21");
  });

  it("uses the built-in sets when none are given", async () => {
    const judge = recordingJudge(scriptedJudge(() => ({ score: 8 })));
    const gate = createActionGate({ judge, config: ALL_ON });
    const result = await gate.check({
      agent: marta,
      tentativeText: drift.retries[1],
      history: drift.history,
    });
    const ids = judge.requests.flatMap((r) => r.items.map((i) => i.key.proposition_id));
    expect(ids).toContain("persona-traits");
    expect(ids).toContain("fits-situation");
    // Inverted propositions flip the judge's 8 into 1, so every dimension with one scores below 8.
    expect(result.committed.dimensions.find((d) => d.dimension === "suitability")!.score).toBe(4.5);
  });
});

describe("similarity", () => {
  it("fails a message nearly the same as a recent one and commits a passing retry", async () => {
    const gate = createActionGate({ config: { gate_similarity_enabled: true } });
    const repeat = drift.history[3]!.text;
    const result = await gate.check({
      agent: marta,
      tentativeText: repeat,
      history: drift.history,
      regenerate: (feedback) => {
        expect(feedback.text).toMatch(
          /nearly the same as one of your recent messages: similarity 1 \(at most 0.6\)/,
        );
        return drift.retries[1];
      },
    });
    expect(result.attempts[0]).toMatchObject({ similarity: 1, similarityPassed: false });
    expect(result).toMatchObject({ outcome: "corrected", text: drift.retries[1] });
  });

  it("prefers an attempt that passed similarity over a higher-scoring repeat", async () => {
    const repeat = drift.history[3]!.text;
    const judge = driftJudge(
      new Map([
        [repeat, 6],
        [drift.drift, 2],
      ]),
    );
    const gate = createActionGate({
      judge,
      config: { gate_adherence_enabled: true, gate_similarity_enabled: true, max_correction_attempts: 1 },
      propositions: ALL_SETS,
    });
    const result = await gate.check({
      agent: marta,
      tentativeText: repeat,
      history: drift.history,
      regenerate: () => drift.drift,
    });
    expect(result).toMatchObject({ outcome: "forced_through", text: drift.drift });
    expect(result.entry!.total_score).toBe(2);
  });
});

describe("fail-open", () => {
  it("a judge that never answers passes the dimension as timeout_pass_through, and the log says so", async () => {
    const judge = heldJudge();
    const sink = memoryCorrectionLog();
    const gate = createActionGate({
      judge,
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
      timeoutMs: 30,
      log: sink.log,
    });
    const started = performance.now();
    const result = await gate.check({ agent: marta, tentativeText: drift.drift });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(result.outcome).toBe("timeout_pass_through");
    expect(judge.signals[0]!.aborted).toBe(true);
    expect(sink.entries[0]!.dimension_scores.adherence).toMatchObject({
      score: null,
      passed: true,
      timed_out: true,
    });
    expect(sink.entries[0]!.dimension_scores.adherence!.reasoning).toMatch(/did not answer within 30 ms/);
    // The request reached the judge and is billed, though its answer never came.
    expect(judge.requests).toHaveLength(1);
    expect(sink.entries[0]!.judge_calls).toBe(1);
  });

  it("waits 5 s for a judge by default, and no longer", async () => {
    vi.useFakeTimers();
    const judge = heldJudge();
    const gate = createActionGate({
      judge,
      config: { gate_adherence_enabled: true },
      propositions: ALL_SETS,
    });
    let outcome: string | undefined;
    const checking = gate.check({ agent: marta, tentativeText: drift.drift }).then((r) => {
      outcome = r.outcome;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await checking;
    expect(outcome).toBe("timeout_pass_through");
  });

  it("a judge that fails passes the dimension as errored, not as a score", async () => {
    const failing: Judge = {
      descriptor: { provider: "fixtures", model: "failing", prompt_version: "fixtures" },
      judge: () => Promise.reject(new Error("connection refused")),
    };
    const gate = createActionGate({
      judge: failing,
      config: { gate_fluency_enabled: true },
      propositions: ALL_SETS,
    });
    const result = await gate.check({ agent: marta, tentativeText: "Pump.", history: drift.history });
    expect(result.outcome).toBe("timeout_pass_through");
    expect(result.entry!.dimension_scores.fluency).toMatchObject({
      score: null,
      passed: true,
      errored: true,
    });
    expect(result.entry!.dimension_scores.fluency!.reasoning).toMatch(/connection refused/);
  });
});
