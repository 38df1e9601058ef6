// Fluency: the agent's recent messages judged once per proposition, with n-gram overlap statistics
// as supplementary evidence (persona excluded by default).
import { agentTrajectory, type Transcript } from "../core/index.ts";
import { fluencyStatistics, renderFluencyEvidence } from "../text/index.ts";
import { recentMessagesContext, targetVariables } from "./context.ts";
import type { AgentScope, PropositionLookup } from "./plan-input.ts";
import { type PlanSink, planTarget } from "./planner.ts";

/** Returns the evidence text it gave the judge (for the report), or undefined when not planned. */
export function planFluency(
  sink: PlanSink,
  transcript: Transcript,
  scope: AgentScope,
  lookup: PropositionLookup,
): string | undefined {
  const set = lookup("fluency", scope.agent.id);
  if (!set || scope.messages.length === 0) return undefined;
  const inScope = new Set(scope.messages.map((m) => m.id));
  const actions = agentTrajectory(transcript, scope.agent.id).filter(
    (e) => e.kind === "action" && inScope.has(e.message.id),
  );
  // The statistics cover the same recent messages the judge sees.
  const recent = actions.slice(Math.max(0, actions.length - set.last_n));
  const evidence = renderFluencyEvidence(fluencyStatistics(recent.map((e) => e.message.text)));
  planTarget(
    sink,
    set,
    { agentId: scope.agent.id, variables: targetVariables(transcript, { agent: scope.agent }) },
    () => recentMessagesContext(scope.agent, actions, set, evidence),
  );
  return evidence;
}
