// The seed's formulas, computed by hand: what applies is weighted, what does not is left out and the
// remaining weights renormalised; pass^k is τ-bench's estimator.
import { describe, expect, it } from "vitest";
import {
  buildAnalysis,
  type InteractionMetrics,
  type JudgedSession,
  parseSession,
  passK,
  validateToolCalls,
  weightedScore,
} from "../../src/sessions/index.ts";

const NA = { missing: "not_applicable" } as const;

describe("session score formulas", () => {
  it("renormalises the weights over the metrics that apply and says which were left out", () => {
    const s = weightedScore(
      { tool_use: 0.35, reasoning: 0.25, handoff: 0.2, response_quality: 0.2 },
      { tool_use: 0.5, reasoning: NA, handoff: { missing: "errored" }, response_quality: 1 },
    );
    // (0.35 × 0.5 + 0.2 × 1) / (0.35 + 0.2)
    expect(s.value).toBeCloseTo(0.375 / 0.55, 12);
    expect(s.weights).toEqual({ tool_use: 0.35 / 0.55, response_quality: 0.2 / 0.55 });
    expect(s.left_out).toEqual([
      { metric: "reasoning", reason: "not_applicable" },
      { metric: "handoff", reason: "errored" },
    ]);
  });

  it("gives no score (null) when nothing applies, never a default", () => {
    expect(weightedScore({ a: 1 }, { a: NA }).value).toBeNull();
  });

  it("pass^k is the mean over tasks of C(c, k) / C(n, k)", () => {
    const runs = [
      ...[true, true, false, false].map((success) => ({ task_id: "a", success })),
      ...[true, true, true, true].map((success) => ({ task_id: "b", success })),
    ];
    const { pass_k, tasks, runs_per_task } = passK(runs);
    expect([tasks, runs_per_task]).toEqual([2, 4]);
    // task a: C(2,k)/C(4,k) = 1/2, 1/6, 0, 0; task b: 1 for every k.
    expect(pass_k["1"]).toBeCloseTo((0.5 + 1) / 2, 12);
    expect(pass_k["2"]).toBeCloseTo((1 / 6 + 1) / 2, 12);
    expect(pass_k["3"]).toBeCloseTo(0.5, 12);
    expect(pass_k["4"]).toBeCloseTo(0.5, 12);
  });

  it("per-agent and overall scores from given metrics equal the seed's formulas by hand", () => {
    const session = parseSession({
      agents: [
        {
          id: "planner",
          tools_available: [{ name: "look", parameters_schema: { type: "object", properties: {} } }],
        },
        { id: "executor" },
      ],
      turns: [
        {
          user_message: "one",
          agent_interactions: [
            {
              agent_id: "planner",
              agent_steps: [
                { thought: "plan" },
                { tool_call: { tool_name: "look" } },
                { handoff: { to: "executor" } },
              ],
            },
            { agent_id: "executor", output: "done" },
          ],
        },
        { user_message: "two", agent_interactions: [{ agent_id: "executor", output: "again" }] },
      ],
    });
    const m = (
      tool_use: number | null,
      reasoning: number | null,
      handoff: number | null,
      response_quality: number,
    ): InteractionMetrics => ({
      tool_use: tool_use ?? NA,
      reasoning: reasoning ?? NA,
      handoff: handoff ?? NA,
      response_quality,
    });
    const judged: JudgedSession = {
      interactions: [[m(0.8, 0.6, 0.9, 1), m(null, null, null, 0.7)], [m(null, null, null, 0.5)]],
      turns: [
        { is_bad: false, detection_type: "none", confidence: 0.9 },
        {
          is_bad: true,
          detection_type: "rdm",
          confidence: 0.8,
          agent_id: "executor",
          reason: "user said it was wrong",
        },
      ],
      coordination: 0.75,
      intent_drift: 0.2,
      task_completion: true,
      errored: 0,
    };
    const a = buildAnalysis(session, { validation: validateToolCalls(session), judged });
    // planner: 0.35·0.8 + 0.25·0.6 + 0.2·0.9 + 0.2·1 (all apply)
    expect(a.per_agent_scores.planner!.overall).toBeCloseTo(0.28 + 0.15 + 0.18 + 0.2, 12);
    // executor: response quality only, the mean of 0.7 and 0.5
    expect(a.per_agent_scores.executor!.overall).toBeCloseTo(0.6, 12);
    expect(a.per_agent_scores.executor!.left_out.map((l) => l.metric)).toEqual([
      "tool_use",
      "reasoning",
      "handoff",
    ]);
    expect(a.per_agent_scores.executor!.issues).toEqual(["User corrected the response in turn 1"]);
    // overall: conversation 1/2 (0.30), tool use 0.8 (0.25), coordination 0.75 (0.20), reasoning 0.6 (0.15), 1 − 0.2 (0.10)
    expect(a.overall_score).toBeCloseTo(0.3 * 0.5 + 0.25 * 0.8 + 0.2 * 0.75 + 0.15 * 0.6 + 0.1 * 0.8, 12);
    expect(a.conversation).toMatchObject({
      total_responses: 2,
      good_responses: 1,
      bad_responses: 1,
      rdm_detections: 1,
    });
    expect(a.turn_results[0]!.interactions[1]).toMatchObject({ agent_id: "executor", score: 0.7 });
    // One correction in two judged responses is "high": the seed's recommendation, with the turn behind it.
    expect(a.recommendations.map((r) => [r.text, r.findings])).toContainEqual([
      "Users are frequently correcting responses - improve accuracy",
      ["turn 1: rdm — user said it was wrong"],
    ]);
  });

  it("without a judge the judged metrics are null and the overall says they were not judged", () => {
    const session = parseSession({
      agents: [{ id: "a" }],
      turns: [{ user_message: "hi", agent_interactions: [{ agent_id: "a", output: "hello" }] }],
    });
    const a = buildAnalysis(session, { validation: validateToolCalls(session) });
    expect(a.overall_score).toBeNull();
    expect(a.per_agent_scores.a!.response_quality).toBeNull();
    expect(a.overall.left_out).toContainEqual({ metric: "tool_use_score", reason: "not_applicable" });
    expect(a.overall.left_out).toContainEqual({ metric: "conversation_score", reason: "not_judged" });
    expect(a.judge).toEqual({ spec: "none", errored: 0 });
  });
});
