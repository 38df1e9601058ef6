// The experiment runner on scripted agents and a scripted judge (test/experiments/scripted-experiment-model.ts):
// treatment versus control in pairs, the values in a stable order, the significance it finds (or does not),
// and a run stopped midway that resumes without running a finished environment again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InterruptedError } from "../../src/core/index.ts";
import {
  compareArms,
  type ExperimentProgressEvent,
  type ExperimentResultDocument,
  ExperimentResultSchema,
  runExperiment,
} from "../../src/experiments/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import {
  driftingAgentModel,
  experimentJudge,
  noisyAgentModel,
  people,
  tinyScenario,
  unit,
} from "./scripted-experiment-model.ts";

const temp = useTempDir();
let store: Store;
beforeAll(async () => {
  store = await openStore("memory://");
});
afterAll(async () => {
  await store.close();
});

describe("runExperiment", () => {
  it("finds the treatment's adherence significantly higher when the gate keeps drifting agents in character", async () => {
    const model = driftingAgentModel();
    const { document } = await runExperiment(tinyScenario(), {
      model,
      judge: experimentJudge(),
      population: { people: people(6) },
      store: "memory://",
    });
    expect(ExperimentResultSchema.safeParse(document).success).toBe(true);
    const { control, treatment } = document.arms;
    // One value per agent per environment (3 agents × 4 environments), one per environment for the rest.
    expect(control.metrics.adherence).toHaveLength(12);
    expect(treatment.metrics.adherence).toHaveLength(12);
    expect(Object.keys(control.metrics)).toEqual([
      "adherence",
      "consistency",
      "fluency",
      "convergence",
      "ideas_quantity",
      "task_completion",
    ]);
    expect(treatment.metrics.ideas_quantity).toHaveLength(4);
    const adherence = compareArms(control.metrics.adherence!, treatment.metrics.adherence!);
    expect(adherence.delta).toBeGreaterThan(1);
    expect(adherence.significant).toBe(true);
    // Only the treatment's gate asked for redrafts, and it corrected messages.
    expect(model.prompts.some((p) => p.prompt.includes("Send attempt"))).toBe(true);
    expect(document.environments.every((e) => e.arms.control.gate.checks === 0)).toBe(true);
    expect(document.environments.reduce((n, e) => n + e.arms.treatment.gate.corrected, 0)).toBeGreaterThan(0);
    // The rapporteur's ideas were extracted and counted.
    expect(document.environments[0]!.arms.control.extracted.length).toBe(
      document.environments[0]!.arms.control.environment.ideas_quantity,
    );
  });

  it("runs each pair on the same agents, seed and prompts: a treatment that changes nothing gives equal values", async () => {
    const prompts: Record<string, string[]> = { control: [], treatment: [] };
    const base = driftingAgentModel();
    const { document } = await runExperiment(
      // The gate judges every message but passes them all (threshold 0): it makes no difference.
      tinyScenario({ treatment: "{ gate_adherence_enabled: true, gate_adherence_threshold: 0 }" }),
      {
        model: ({ arm }) => {
          const wrapped = Object.create(base) as typeof base;
          wrapped.doGenerate = async (options) => {
            prompts[arm]!.push(JSON.stringify(options.prompt));
            return base.doGenerate(options);
          };
          return wrapped;
        },
        judge: experimentJudge(),
        population: { people: people(6) },
        store,
        environmentConcurrency: 3,
      },
    );
    for (const e of document.environments) {
      expect(e.arms.treatment.gate.checks).toBeGreaterThan(0);
      expect(e.arms.treatment.agents).toEqual(e.arms.control.agents);
      expect(e.arms.treatment.environment).toEqual(e.arms.control.environment);
    }
    expect(document.arms.treatment.metrics).toEqual(document.arms.control.metrics);
    expect(prompts.treatment!.sort()).toEqual(prompts.control!.sort());
    expect(document.environments.map((e) => [e.index, e.members, e.seed])).toEqual([
      [0, ["ana-a", "bruno-a", "carla-a"], 11],
      [1, ["dmitri-a", "efua-a", "farid-a"], 12],
      [2, ["ana-a", "bruno-a", "carla-a"], 13],
      [3, ["dmitri-a", "efua-a", "farid-a"], 14],
    ]);
  });

  it("finds no significant difference in most of 20 seeded repetitions when the model makes none", async () => {
    // Each agent has a level of its own; each arm draws its messages' noise independently (a model at a
    // temperature), from the same distribution. The treatment's gate passes everything.
    const scenario = tinyScenario({
      size: 12,
      environments: 4,
      treatment: "{ gate_adherence_enabled: true, gate_adherence_threshold: 0 }",
      dimensions: "[adherence]",
      taskCompletion: false,
    });
    const population = { people: people(12) };
    const level = (name: string) => 4 + Math.floor(unit("level", name) * 2);
    let significant = 0;
    for (let repetition = 1; repetition <= 20; repetition++) {
      const models = {
        control: noisyAgentModel(`rep${repetition}-control`, level),
        treatment: noisyAgentModel(`rep${repetition}-treatment`, level),
      };
      const { document } = await runExperiment(scenario, {
        model: ({ arm }) => models[arm],
        judge: experimentJudge(),
        population,
        seed: repetition,
        environmentConcurrency: 8,
      });
      const { control, treatment } = document.arms;
      expect(control.metrics.adherence).toHaveLength(12);
      if (compareArms(control.metrics.adherence!, treatment.metrics.adherence!).significant) significant++;
    }
    // α = 0.05: about 1 in 20 by chance; more than 3 would say the design or the test is biased.
    expect(significant).toBeLessThanOrEqual(3);
  });

  it("refuses a population smaller than the scenario's before anything runs", async () => {
    const model = driftingAgentModel();
    await expect(
      runExperiment(tinyScenario(), { model, judge: experimentJudge(), population: { people: people(4) } }),
    ).rejects.toThrow(
      /population: expected at least 6 people \(population.size of scenario tiny-brainstorm\), got 4/,
    );
    expect(model.prompts).toHaveLength(0);
  });

  it("gives the same document, to the byte, whatever the concurrency", async () => {
    // Each environment drafts differently, and the earlier ones answer slower: with 8 at once, they finish
    // in another order than they were planned in.
    const run = (environmentConcurrency: number) =>
      runExperiment(tinyScenario(), {
        model: ({ environment }) => {
          const base = driftingAgentModel(0.6, `environment ${environment}`);
          const wrapped = Object.create(base) as typeof base;
          wrapped.doGenerate = async (o) => {
            await new Promise((resolve) => setTimeout(resolve, (4 - environment) * 15));
            return base.doGenerate(o);
          };
          return wrapped;
        },
        judge: experimentJudge(),
        population: { people: people(6) },
        environmentConcurrency,
      });
    const [one, many] = await Promise.all([run(1), run(8)]);
    expect(JSON.stringify(many.document)).toBe(JSON.stringify(one.document));
  });

  it("resumes a stopped experiment without running a finished environment again, to the same document", async () => {
    const scenario = tinyScenario({ environments: 6 });
    const options = () => {
      const calls = new Map<string, number>();
      const base = driftingAgentModel();
      return {
        calls,
        model: ({ arm, environment }: { arm: string; environment: number }) => {
          const wrapped = Object.create(base) as typeof base;
          wrapped.doGenerate = async (o) => {
            calls.set(`${arm}:${environment}`, (calls.get(`${arm}:${environment}`) ?? 0) + 1);
            return base.doGenerate(o);
          };
          return wrapped;
        },
        judge: experimentJudge(),
        population: { people: people(6) },
        environmentConcurrency: 2,
      };
    };
    const uninterrupted = await runExperiment(scenario, { ...options(), store: "memory://" });

    const resumable = await openStore("memory://");
    try {
      const controller = new AbortController();
      const finished: string[] = [];
      const first = options();
      const stopped = runExperiment(scenario, {
        ...first,
        store: resumable,
        signal: controller.signal,
        onProgress: (event: ExperimentProgressEvent) => {
          if (event.type !== "environment" || event.phase !== "completed") return;
          finished.push(`${event.arm}:${event.index}`);
          if (finished.length === 3) controller.abort();
        },
      });
      await expect(stopped).rejects.toSatisfy((e) => InterruptedError.isInstance(e));
      expect(finished.length).toBeGreaterThanOrEqual(3);
      expect(finished.length).toBeLessThan(12);
      const [experiment] = await resumable.evaluations.list({ kind: "experiment" });
      expect(experiment!.status).toBe("interrupted");

      const second = options();
      const events: ExperimentProgressEvent[] = [];
      const resumed = await runExperiment(scenario, {
        ...second,
        store: resumable,
        onProgress: (event) => events.push(event),
      });
      expect(resumed.evaluation_id).toBe(experiment!.id);
      expect(resumed.reused).toBe(finished.length);
      for (const done of finished) expect(second.calls.get(done)).toBeUndefined();
      expect(second.calls.size).toBe(12 - finished.length);
      expect(events[0]).toMatchObject({ type: "started", reused: finished.length, resumed: true });
      expect(JSON.stringify(resumed.document)).toBe(JSON.stringify(uninterrupted.document));
      const stored = (await resumable.evaluations.result(resumed.evaluation_id)) as ExperimentResultDocument;
      expect(stored).toEqual(uninterrupted.document);
    } finally {
      await resumable.close();
    }
  });

  it("resumes from a store folder opened again, as after the process was killed", async () => {
    const scenario = tinyScenario({ environments: 2, dimensions: "[adherence]", taskCompletion: false });
    const options = {
      judge: experimentJudge(),
      population: { people: people(6) },
      environmentConcurrency: 1,
    };
    const folder = `${temp()}/store`;
    const controller = new AbortController();
    let first = await openStore(folder);
    try {
      await expect(
        runExperiment(scenario, {
          ...options,
          model: driftingAgentModel(),
          store: first,
          signal: controller.signal,
          onProgress: (e) => e.type === "environment" && e.phase === "completed" && controller.abort(),
        }),
      ).rejects.toSatisfy((e) => InterruptedError.isInstance(e));
    } finally {
      await first.close();
    }
    first = await openStore(folder);
    try {
      const model = driftingAgentModel();
      const resumed = await runExperiment(scenario, { ...options, model, store: first });
      expect(resumed.reused).toBe(1);
      const fresh = await runExperiment(scenario, { ...options, model: driftingAgentModel() });
      expect(JSON.stringify(resumed.document)).toBe(JSON.stringify(fresh.document));
      const rows = await first.evaluations.list({ kind: "experiment_environment" });
      expect(rows.filter((r) => r.status === "completed")).toHaveLength(4);
    } finally {
      await first.close();
    }
  });
});
