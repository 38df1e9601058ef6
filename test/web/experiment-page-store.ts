// The demo experiment (`npm run demo:experiment`) in a store, for the experiment pages' tests: six people in
// two environments a arm, hand-written scripted doubles for the agents' model and the judge (see
// test/experiments/scripted-experiment-model.ts), and one agent of the store's own beside them.
import { runExperiment } from "../../src/experiments/index.ts";
import type { Store } from "../../src/store/index.ts";
import {
  driftingAgentModel,
  experimentJudge,
  people,
  tinyScenario,
} from "../experiments/scripted-experiment-model.ts";

/** The agent that took part in no experiment. */
export const OWN_AGENT = { id: "own-agent", name: "Own Agent", persona: { name: "Own Agent" } };

export async function buildExperimentStore(store: Store): Promise<{ experimentId: string }> {
  const run = await runExperiment(tinyScenario(), {
    model: driftingAgentModel(),
    modelName: "scripted (hand-written): drafts break character 60% of the time",
    judge: experimentJudge(),
    population: { people: people(6) },
    store,
  });
  await store.agents.upsert(OWN_AGENT);
  return { experimentId: run.evaluation_id };
}
