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
  // The trajectory and its index, each as long as the transcript, are made when the first context is
  // built: the passes that only count or tally the plan build none, and so make neither.
  let made: { rendered: TrajectoryRenderer; position: Map<string, number> } | undefined;
  const trajectory = () => {
    if (!made) {
      const events = agentTrajectory(transcript, scope.agent.id);
      made = {
        rendered: new TrajectoryRenderer(events, { name: scope.agent.name }),
        position: new Map(events.map((e, i) => [e.message.id, i])),
      };
    }
    return made;
  };
  for (const message of scope.sampled) {
    yield* planTarget(shape, set, messageTarget(transcript, scope.agent, message), () => {
      const { rendered, position } = trajectory();
      return messageContext(scope.agent, rendered, position.get(message.id)!, message, set);
    });
  }
}
