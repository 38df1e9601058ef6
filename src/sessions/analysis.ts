// A session analysis: the seed's API response (overall, coordination and intent-drift scores, per-agent
// scores, turn results, conversation counts) plus the tool findings, latency and cost. Built by one pure
// function from the session, its tool validation and whatever the judge gave (nothing with `--judge none`).

import type { SessionTrajectoryMatch } from "./expected-calls.ts";
import {
  AGENT_WEIGHTS,
  type LeftOutReason,
  type MetricValue,
  meanMetric,
  OVERALL_WEIGHTS,
  reported,
  type WeightedScore,
  weightedScore,
} from "./formulas.ts";
import { type SessionLatency, sessionLatency } from "./latency.ts";
import { type Recommendation, recommend } from "./recommendations.ts";
import type { AgentInteraction, Session } from "./session-format.ts";
import type { ToolFinding, ToolValidation } from "./tool-validation.ts";

export const SESSION_ANALYSIS_FORMAT = "dramaturg.session-analysis/v1";

export type DetectionType = "rdm" | "ccm" | "hallucination" | "llm_judge" | "none";

/** What the judge said of one interaction (0–1 each), or why a metric has no value. */
export interface InteractionMetrics {
  tool_use: MetricValue;
  reasoning: MetricValue;
  handoff: MetricValue;
  response_quality: MetricValue;
}

/** A turn's bad-response detection: `is_bad` null when it could not be judged. */
export interface TurnDetection {
  is_bad: boolean | null;
  detection_type: DetectionType;
  confidence: number;
  /** The agent whose output the problem is attributed to. */
  agent_id?: string;
  reason?: string;
}

/** The judged parts of an analysis; absent with `--judge none`. */
export interface JudgedSession {
  /** By turn, then interaction, in session order. */
  interactions: InteractionMetrics[][];
  turns: TurnDetection[];
  coordination: MetricValue;
  intent_drift: MetricValue;
  task_completion: boolean | null;
  /** Judge verdicts that failed (each leaves its metric null). */
  errored: number;
}

export interface AgentScores {
  overall: number | null;
  tool_use: number | null;
  reasoning: number | null;
  handoff: number | null;
  response_quality: number | null;
  interactions_count: number;
  issues: string[];
  recommendations: string[];
  /** Metrics the overall left out, and why; the weights it used instead. */
  left_out: WeightedScore["left_out"];
  weights: Record<string, number>;
}

export interface TurnResult {
  turn_index: number;
  is_bad: boolean | null;
  detection_type: DetectionType;
  confidence: number;
  agent_id?: string;
  reason?: string;
  interactions: {
    agent_id: string;
    score: number | null;
    tool_use: number | null;
    reasoning: number | null;
    handoff: number | null;
    response_quality: number | null;
  }[];
}

export interface SessionAnalysis {
  format: typeof SESSION_ANALYSIS_FORMAT;
  session_id: string | null;
  task_id: string | null;
  overall_score: number | null;
  coordination_score: number | null;
  intent_drift_score: number | null;
  task_completion: boolean | null;
  /** How the overall score was made: the weights used and the parts left out. */
  overall: { weights: Record<string, number>; left_out: WeightedScore["left_out"] };
  per_agent_scores: Record<string, AgentScores>;
  turn_results: TurnResult[];
  conversation: {
    total_responses: number;
    good_responses: number;
    bad_responses: number;
    /** Turns whose detection could not be judged. */
    unknown_responses: number;
    ccm_detections: number;
    rdm_detections: number;
    hallucination_detections: number;
    llm_judge_detections: number;
  };
  tool_validation: ToolFinding[];
  tool_calls: { total: number; with_findings: number; unchecked: number };
  /** The calls made against the calls expected (`--expect`); absent when nothing was expected of the session. */
  trajectory_match?: SessionTrajectoryMatch;
  recommendations: Recommendation[];
  latency: SessionLatency;
  /** The agents' cost (from the session), apart from the judge's: the run's, in the result's `judge`. */
  cost: { agents: number | null };
  judge: { spec: string; errored: number };
}

/** Which judged metrics apply to an interaction: tool use with calls, reasoning with thoughts, handoff with one. */
export function applicableMetrics(x: AgentInteraction): Record<keyof InteractionMetrics, boolean> {
  return {
    tool_use: x.agent_steps.some((s) => s.tool_call),
    reasoning: x.agent_steps.some((s) => s.thought?.trim()),
    handoff: x.agent_steps.some((s) => s.handoff),
    response_quality: true,
  };
}

const NOT_APPLICABLE: MetricValue = { missing: "not_applicable" };

/** Metrics as they stand without a judge: each that applies is "not judged". */
function unjudged(x: AgentInteraction): InteractionMetrics {
  const applies = applicableMetrics(x);
  const value = (k: keyof InteractionMetrics): MetricValue =>
    applies[k] ? { missing: "not_judged" as LeftOutReason } : NOT_APPLICABLE;
  return {
    tool_use: value("tool_use"),
    reasoning: value("reasoning"),
    handoff: value("handoff"),
    response_quality: value("response_quality"),
  };
}

const FINDING_LABEL: Record<ToolFinding["type"], string> = {
  unauthorized_tool: "Unauthorized tool",
  hallucinated_parameter: "Tool parameter hallucination",
  missing_required_parameter: "Missing required tool parameter",
  invalid_parameter_type: "Invalid tool parameter",
  tool_error: "Tool failure",
};

const DETECTION_LABEL: Record<Exclude<DetectionType, "none">, string> = {
  rdm: "User corrected the response",
  ccm: "User re-asked the question",
  hallucination: "Hallucination",
  llm_judge: "Problematic response",
};

export interface BuildAnalysisOptions {
  validation: ToolValidation;
  judged?: JudgedSession;
  /** The judge's spec (`none` without one). */
  judge?: { spec: string };
  /** The session's calls matched against those expected of it. */
  trajectory?: SessionTrajectoryMatch;
}

/** The analysis of a session from its tool validation and the judge's metrics (if any). Pure. */
export function buildAnalysis(
  session: Session,
  { validation, judged, judge, trajectory }: BuildAnalysisOptions,
): SessionAnalysis {
  const metrics = session.turns.map((turn, t) =>
    turn.agent_interactions.map((x, i) => judged?.interactions[t]?.[i] ?? unjudged(x)),
  );
  const detections = session.turns.map(
    (_, t): TurnDetection => judged?.turns[t] ?? { is_bad: null, detection_type: "none", confidence: 0 },
  );

  // Per agent: each metric's mean over the agent's interactions, then the seed's weighted formula.
  const per_agent_scores: Record<string, AgentScores> = {};
  for (const agent of session.agents) {
    const mine: InteractionMetrics[] = [];
    session.turns.forEach((turn, t) => {
      turn.agent_interactions.forEach((x, i) => {
        if (x.agent_id === agent.id) mine.push(metrics[t]![i]!);
      });
    });
    const values = {
      tool_use: meanMetric(mine.map((m) => m.tool_use)),
      reasoning: meanMetric(mine.map((m) => m.reasoning)),
      handoff: meanMetric(mine.map((m) => m.handoff)),
      response_quality: meanMetric(mine.map((m) => m.response_quality)),
    };
    const score = weightedScore(AGENT_WEIGHTS, values);
    const issues = [
      ...validation.findings
        .filter((f) => f.agent_id === agent.id)
        .map(
          (f) =>
            `${FINDING_LABEL[f.type]} in turn ${f.turn_index} (${f.tool_name}${f.parameters.length ? `: ${f.parameters.join(", ")}` : ""})`,
        ),
      ...detections.flatMap((d, t) =>
        d.is_bad && d.agent_id === agent.id && d.detection_type !== "none"
          ? [`${DETECTION_LABEL[d.detection_type]} in turn ${session.turns[t]!.turn_index}`]
          : [],
      ),
    ];
    per_agent_scores[agent.id] = {
      overall: score.value,
      tool_use: reported(values.tool_use),
      reasoning: reported(values.reasoning),
      handoff: reported(values.handoff),
      response_quality: reported(values.response_quality),
      interactions_count: mine.length,
      issues,
      recommendations: [],
      left_out: score.left_out,
      weights: score.weights,
    };
  }

  const turn_results = session.turns.map((turn, t): TurnResult => {
    const d = detections[t]!;
    return {
      turn_index: turn.turn_index,
      is_bad: d.is_bad,
      detection_type: d.detection_type,
      confidence: d.confidence,
      ...(d.agent_id ? { agent_id: d.agent_id } : {}),
      ...(d.reason ? { reason: d.reason } : {}),
      interactions: turn.agent_interactions.map((x, i) => {
        const m = metrics[t]![i]!;
        return {
          agent_id: x.agent_id,
          score: weightedScore(AGENT_WEIGHTS, m).value,
          tool_use: reported(m.tool_use),
          reasoning: reported(m.reasoning),
          handoff: reported(m.handoff),
          response_quality: reported(m.response_quality),
        };
      }),
    };
  });

  const count = (type: DetectionType) =>
    detections.filter((d) => d.is_bad && d.detection_type === type).length;
  const good = detections.filter((d) => d.is_bad === false).length;
  const bad = detections.filter((d) => d.is_bad === true).length;
  const conversation = {
    total_responses: session.turns.length,
    good_responses: good,
    bad_responses: bad,
    unknown_responses: session.turns.length - good - bad,
    ccm_detections: count("ccm"),
    rdm_detections: count("rdm"),
    hallucination_detections: count("hallucination"),
    llm_judge_detections: count("llm_judge"),
  };

  // The session's parts: turn quality, and tool use and reasoning over every interaction they apply to.
  const all = metrics.flat();
  const conversationScore: MetricValue =
    good + bad > 0
      ? good / (good + bad)
      : { missing: session.turns.length === 0 ? "not_applicable" : judged ? "errored" : "not_judged" };
  const drift = judged?.intent_drift ?? { missing: "not_judged" as LeftOutReason };
  const coordination: MetricValue =
    judged?.coordination ?? (session.agents.length > 1 ? { missing: "not_judged" } : NOT_APPLICABLE);
  const overall = weightedScore(OVERALL_WEIGHTS, {
    conversation_score: conversationScore,
    tool_use_score: meanMetric(all.map((m) => m.tool_use)),
    coordination_score: coordination,
    reasoning_score: meanMetric(all.map((m) => m.reasoning)),
    staying_on_task: typeof drift === "number" ? 1 - drift : drift,
  });

  const recommendations = recommend({
    agents: per_agent_scores,
    coordination: reported(coordination),
    conversation,
    findings: validation.findings,
    turns: turn_results,
  });
  for (const r of recommendations)
    if (r.agent_id && per_agent_scores[r.agent_id])
      per_agent_scores[r.agent_id]!.recommendations.push(r.text);

  const agentCost = session.turns
    .flatMap((t) => t.agent_interactions.map((x) => x.cost))
    .filter((c): c is number => c !== undefined);
  return {
    format: SESSION_ANALYSIS_FORMAT,
    session_id: session.id ?? null,
    task_id: session.task_id ?? null,
    overall_score: overall.value,
    coordination_score: reported(coordination),
    intent_drift_score: reported(drift),
    task_completion: judged?.task_completion ?? session.success ?? null,
    overall: { weights: overall.weights, left_out: overall.left_out },
    per_agent_scores,
    turn_results,
    conversation,
    tool_validation: validation.findings,
    tool_calls: {
      total: validation.calls.length,
      with_findings: validation.calls.filter((c) => c.findings.some((f) => f.type !== "tool_error")).length,
      unchecked: validation.unchecked_calls,
    },
    ...(trajectory ? { trajectory_match: trajectory } : {}),
    recommendations,
    latency: sessionLatency(session),
    cost: { agents: session.total_cost ?? (agentCost.length ? agentCost.reduce((a, b) => a + b, 0) : null) },
    judge: { spec: judge?.spec ?? "none", errored: judged?.errored ?? 0 },
  };
}
