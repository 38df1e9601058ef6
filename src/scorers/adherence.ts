// Adherence: each sampled message of the agent against each proposition, persona included, with the
// agent's trajectory window up to that message as context.

import type { Transcript } from "../core/index.ts";
import { agentTrajectory, TrajectoryRenderer } from "../core/index.ts";
import { messageContext, messageTarget } from "./context.ts";
import type { AgentScope, PropositionLookup } from "./plan-input.ts";
import { type PlanEntry, type PlanShape, planTarget } from "./planner.ts";

export function* planAdherence(
  shape: PlanShape,
  transcript: Transcript,
  scope: AgentScope,
  lookup: PropositionLookup,
): Generator<PlanEntry> {
  const set = lookup("adherence", scope.agent.id);
  if (!set) return;
  const trajectory = agentTrajectory(transcript, scope.agent.id);
  const position = new Map(trajectory.map((e, i) => [e.message.id, i]));
  const rendered = new TrajectoryRenderer(trajectory, { name: scope.agent.name });
  for (const message of scope.sampled) {
    const upTo = position.get(message.id)!;
    yield* planTarget(shape, set, messageTarget(transcript, scope.agent, message), () =>
      messageContext(scope.agent, rendered, upTo, message, set),
    );
  }
}
