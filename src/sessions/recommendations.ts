// Recommendations from the seed's table, each naming the agent it is for and listing the findings behind
// it, plus one the table has no row for: an agent whose tool calls broke their schemas.
import type { ToolFinding } from "./tool-validation.ts";

export interface Recommendation {
  /** The agent it is for; absent for the whole ensemble. */
  agent_id?: string;
  /** What triggered it: a metric below its threshold, a detection rate, or tool findings. */
  condition: string;
  value: number;
  threshold: number;
  text: string;
  /** The findings behind it: tool findings and bad turns, as sentences. */
  findings: string[];
}

/** A metric below this gets a recommendation (the seed's 0.7). */
export const RECOMMENDATION_THRESHOLD = 0.7;
/** Corrections or re-asks on this share of the judged responses (or more) are "high". */
export const HIGH_DETECTION_RATE = 0.2;

interface RecommendInput {
  agents: Record<string, { tool_use: number | null; reasoning: number | null; handoff: number | null }>;
  coordination: number | null;
  conversation: {
    good_responses: number;
    bad_responses: number;
    rdm_detections: number;
    ccm_detections: number;
  };
  findings: readonly ToolFinding[];
  turns: readonly {
    turn_index: number;
    is_bad: boolean | null;
    detection_type: string;
    agent_id?: string;
    reason?: string;
  }[];
}

const describe = (f: ToolFinding) => `turn ${f.turn_index}: ${f.type} (${f.severity}) — ${f.message}`;

export function recommend({
  agents,
  coordination,
  conversation,
  findings,
  turns,
}: RecommendInput): Recommendation[] {
  const out: Recommendation[] = [];
  const low = (v: number | null): v is number => v !== null && v < RECOMMENDATION_THRESHOLD;
  const turnsOf = (agent: string | undefined, type?: string) =>
    turns
      .filter((t) => t.is_bad && (!agent || t.agent_id === agent) && (!type || t.detection_type === type))
      .map((t) => `turn ${t.turn_index}: ${t.detection_type}${t.reason ? ` — ${t.reason}` : ""}`);
  for (const [agent, s] of Object.entries(agents)) {
    const mine = findings.filter((f) => f.agent_id === agent && f.type !== "tool_error");
    if (low(s.tool_use))
      out.push({
        agent_id: agent,
        condition: "tool_use_score < 0.7",
        value: s.tool_use,
        threshold: RECOMMENDATION_THRESHOLD,
        text: `Consider improving tool selection logic for ${agent}`,
        findings: mine.map(describe),
      });
    else if (mine.length > 0)
      out.push({
        agent_id: agent,
        condition: "tool calls that break their schemas",
        value: mine.length,
        threshold: 0,
        text: `Check ${agent}'s tool calls against the tools' schemas before executing them`,
        findings: mine.map(describe),
      });
    if (low(s.handoff))
      out.push({
        agent_id: agent,
        condition: "handoff_score < 0.7",
        value: s.handoff,
        threshold: RECOMMENDATION_THRESHOLD,
        text: `Agent ${agent} should pass more context when delegating`,
        findings: turnsOf(agent),
      });
    if (low(s.reasoning))
      out.push({
        agent_id: agent,
        condition: "reasoning_score < 0.7",
        value: s.reasoning,
        threshold: RECOMMENDATION_THRESHOLD,
        text: `Agent ${agent}'s reasoning could be more structured`,
        findings: turnsOf(agent),
      });
  }
  if (low(coordination))
    out.push({
      condition: "coordination_score < 0.7",
      value: coordination,
      threshold: RECOMMENDATION_THRESHOLD,
      text: "Agents are not coordinating well - consider clearer role definitions",
      findings: turnsOf(undefined),
    });
  const judged = conversation.good_responses + conversation.bad_responses;
  const detections = [
    {
      type: "rdm",
      count: conversation.rdm_detections,
      text: "Users are frequently correcting responses - improve accuracy",
    },
    {
      type: "ccm",
      count: conversation.ccm_detections,
      text: "Users are re-asking questions - improve response completeness",
    },
  ];
  for (const { type, count, text } of detections) {
    const rate = judged > 0 ? count / judged : 0;
    if (count > 0 && rate >= HIGH_DETECTION_RATE)
      out.push({
        condition: `${type} detections ≥ ${HIGH_DETECTION_RATE * 100}% of responses`,
        value: rate,
        threshold: HIGH_DETECTION_RATE,
        text,
        findings: turnsOf(undefined, type),
      });
  }
  return out;
}
