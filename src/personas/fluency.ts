// Fluency: the agent's recent messages judged once per proposition, with n-gram overlap statistics
// as supplementary evidence (persona excluded by default).
import {
  agentTrajectory,
  type PropositionSet,
  type TrajectoryEvent,
  type Transcript,
} from "../core/index.ts";
import { fluencyStatistics, renderFluencyEvidence } from "../text/index.ts";
import { recentMessagesContext, targetVariables } from "./context.ts";
import type { AgentScope, PropositionLookup } from "./plan-input.ts";
import { type PlanEntry, type PlanShape, planTarget } from "./planner.ts";

/** What fluency judges of an agent: its set, its actions in scope and the evidence; undefined when not planned. */
function fluencyScope(
  transcript: Transcript,
  scope: AgentScope,
  lookup: PropositionLookup,
): { set: PropositionSet; actions: TrajectoryEvent[] } | undefined {
  const set = lookup("fluency", scope.agent.id);
  if (!set || scope.messages.length === 0) return undefined;
  const inScope = new Set(scope.messages.map((m) => m.id));
  const actions = agentTrajectory(transcript, scope.agent.id).filter(
    (e) => e.kind === "action" && inScope.has(e.message.id),
  );
  return { set, actions };
}

/** The evidence text fluency gives the judge (and the report), or undefined when it is not planned. */
export function fluencyEvidence(
  transcript: Transcript,
  scope: AgentScope,
  lookup: PropositionLookup,
): string | undefined {
  const planned = fluencyScope(transcript, scope, lookup);
  if (!planned) return undefined;
  // The statistics cover the same recent messages the judge sees.
  const recent = planned.actions.slice(Math.max(0, planned.actions.length - planned.set.last_n));
  return renderFluencyEvidence(fluencyStatistics(recent.map((e) => e.message.text)));
}

/** `evidence` is {@link fluencyEvidence}'s text for this agent. */
export function* planFluency(
  shape: PlanShape,
  transcript: Transcript,
  scope: AgentScope,
  lookup: PropositionLookup,
  evidence: string,
): Generator<PlanEntry> {
  const planned = fluencyScope(transcript, scope, lookup);
  if (!planned) return;
  const { set, actions } = planned;
  yield* planTarget(
    shape,
    set,
    { agentId: scope.agent.id, variables: targetVariables(transcript, { agent: scope.agent }) },
    () => recentMessagesContext(scope.agent, actions, set, evidence),
  );
}
