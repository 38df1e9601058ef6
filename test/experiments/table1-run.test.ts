// runTable1: the Table 1 experiments run one after another on one store and compared with the published
// table. Tiny scenarios under Table 1's ids stand in for the built-in four (which need the population factory),
// on the scripted agents and judge of test/experiments/scripted-experiment-model.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import {
  type ExperimentProgressEvent,
  runTable1,
  type Scenario,
  TABLE1_COMPARISON_FORMAT,
} from "../../src/experiments/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { driftingAgentModel, experimentJudge, people, tinyScenario } from "./scripted-experiment-model.ts";

let store: Store;
beforeAll(async () => {
  store = await openStore("memory://");
});
afterAll(async () => {
  await store.close();
});

const scenarios = (): Scenario[] => [
  { ...tinyScenario(), id: "brainstorming-average" },
  { ...tinyScenario({ dimensions: "[adherence, fluency]" }), id: "debate-controversial" },
];

describe("runTable1", () => {
  it("runs each experiment in turn on one store, names its progress, and compares the results with Table 1", async () => {
    const events: [string, ExperimentProgressEvent][] = [];
    const finished: string[] = [];
    const model = driftingAgentModel();
    const { runs, comparison } = await runTable1({
      scenarios: scenarios(),
      model,
      judge: experimentJudge(),
      population: { people: people(6) },
      store,
      onProgress: (id, event) => events.push([id, event]),
      onExperiment: (run) => {
        finished.push(run.document.scenario.id);
      },
    });
    expect(runs.map((r) => r.document.scenario.id)).toEqual([
      "brainstorming-average",
      "debate-controversial",
    ]);
    expect(finished).toEqual(["brainstorming-average", "debate-controversial"]);
    // The first experiment finishes before the second starts.
    const firstOfSecond = events.findIndex(([id]) => id === "debate-controversial");
    expect(events.slice(firstOfSecond).every(([id]) => id === "debate-controversial")).toBe(true);
    expect(events.filter(([, e]) => e.type === "finished").map(([id]) => id)).toEqual([
      "brainstorming-average",
      "debate-controversial",
    ]);
    expect(comparison.format).toBe(TABLE1_COMPARISON_FORMAT);
    expect(comparison.experiments.map((e) => e.id)).toEqual([
      "brainstorming-average",
      "debate-controversial",
    ]);
    expect(comparison.experiments[0]!.source).toBe(`experiment ${runs[0]!.evaluation_id.slice(0, 8)}`);
    expect(comparison.missing).toEqual(["brainstorming-difficult-full", "brainstorming-difficult-variety"]);
    // Our adherence cell of the first experiment is the difference of its two arms.
    const adherence = comparison.cells.find(
      (c) => c.experiment === "brainstorming-average" && c.metric === "adherence",
    );
    // The drifting agents, kept in character by the treatment's gate: adherence is up, and significantly.
    expect(adherence?.ours).toMatchObject({ name: "adherence", direction: "+", significant: true });

    // Run again on the same store: every environment is taken from it, and the documents and cells are the same.
    const calls = model.prompts.length;
    const again: ExperimentProgressEvent[] = [];
    const rerun = await runTable1({
      scenarios: scenarios(),
      model,
      judge: experimentJudge(),
      population: { people: people(6) },
      store,
      onProgress: (_, event) => again.push(event),
    });
    expect(model.prompts.length).toBe(calls);
    expect(again.filter((e) => e.type === "started").map((e) => e.type === "started" && e.reused)).toEqual([
      8, 8,
    ]);
    expect(rerun.runs.map((r) => r.document)).toEqual(runs.map((r) => r.document));
    expect(rerun.comparison.cells).toEqual(comparison.cells);
    expect(rerun.comparison.summary).toEqual(comparison.summary);
  });

  it("refuses a scenario that is not one of Table 1's, or one given twice, before anything runs", async () => {
    const model = driftingAgentModel();
    for (const list of [[tinyScenario()], [scenarios()[0]!, scenarios()[0]!]]) {
      const error = await runTable1({
        scenarios: list,
        model,
        judge: experimentJudge(),
        population: { people: people(6) },
        store,
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(InputError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/not an experiment of Table 1|given twice/);
    }
    expect(model.prompts).toHaveLength(0);
  });
});
