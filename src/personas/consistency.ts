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
  // The agent's first message has no history: it is its first action in transcript order, found without
  // building the actions. Those, their index and renderer (each as long as the agent's messages) are made
  // when the first context is built, so the passes that only count or tally the plan make none of them.
  const first = transcript.messages.find((m) => m.sender === scope.agent.id)?.id;
  let made: { rendered: TrajectoryRenderer; position: Map<string, number> } | undefined;
  const history = () => {
    if (!made) {
      const actions = agentTrajectory(transcript, scope.agent.id).filter((e) => e.kind === "action");
      made = {
        rendered: new TrajectoryRenderer(actions, { name: scope.agent.name }),
        position: new Map(actions.map((e, i) => [e.message.id, i])),
      };
    }
    return made;
  };
  for (const message of scope.sampled) {
    if (message.id === first) continue;
    yield* planTarget(shape, set, messageTarget(transcript, scope.agent, message), () => {
      const { rendered, position } = history();
      return historyContext(scope.agent, rendered, position.get(message.id)!, message, set);
    });
  }
}
