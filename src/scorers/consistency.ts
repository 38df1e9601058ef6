// Consistency: each sampled message that has earlier messages of the same agent, judged against that
// history (persona excluded by default). A first message has nothing to be consistent with.
import { agentTrajectory, TrajectoryRenderer, type Transcript } from "../core/index.ts";
import { historyContext, messageTarget } from "./context.ts";
import type { AgentScope, PropositionLookup } from "./plan-input.ts";
import { type PlanEntry, type PlanShape, planTarget } from "./planner.ts";

export function* planConsistency(
  shape: PlanShape,
  transcript: Transcript,
  scope: AgentScope,
  lookup: PropositionLookup,
): Generator<PlanEntry> {
  const set = lookup("consistency", scope.agent.id);
  if (!set) return;
  const actions = agentTrajectory(transcript, scope.agent.id).filter((e) => e.kind === "action");
  const position = new Map(actions.map((e, i) => [e.message.id, i]));
  const rendered = new TrajectoryRenderer(actions, { name: scope.agent.name });
  for (const message of scope.sampled) {
    const index = position.get(message.id)!;
    if (index === 0) continue;
    yield* planTarget(shape, set, messageTarget(transcript, scope.agent, message), () =>
      historyContext(scope.agent, rendered, index, message, set),
    );
  }
}
