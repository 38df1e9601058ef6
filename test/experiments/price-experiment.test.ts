// priceExperiment: an experiment priced before it runs — per arm, the agents' and the judge's calls, tokens and
// cost from the prompts a run sends — with no model and no store. Checked against a run of the scripted doubles
// (test/experiments/scripted-experiment-model.ts) for the agents' calls.
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import {
  listBuiltinScenarios,
  loadBuiltinScenario,
  priceExperiment,
  renderExperimentPrices,
  runExperiment,
} from "../../src/experiments/index.ts";
import { driftingAgentModel, experimentJudge, people, tinyScenario } from "./scripted-experiment-model.ts";

/** Awaits a promise that must reject with an InputError whose message matches. */
async function expectInputError(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(InputError.isInstance(error)).toBe(true);
  expect((error as Error).message).toMatch(message);
}

const PRICE = { input_per_million: 0.15, output_per_million: 0.6 };
const specs = { model: "openai:gpt-4o-mini", judge: "openai:gpt-4o-mini" };

describe("priceExperiment", () => {
  it("counts one agent call an act and the rapporteur's; the gate arm's redrafts at most max_correction_attempts a message", async () => {
    // 4 environments of 3 agents, 1 step after the intro (2 world steps): 3 × 2 + 1 = 7 acts an environment.
    const price = await priceExperiment(tinyScenario(), { ...specs, population: { people: people(6) } });
    expect(price.arms.control.agent.calls).toBe(4 * 7);
    expect(price.arms.control.upper_bound).toBe(false);
    expect(price.arms.control.judge.parts.gate.calls).toBe(0);
    // max_correction_attempts 2: each act's message may be drafted three times.
    expect(price.arms.treatment.agent.calls).toBe(4 * 7 * 3);
    expect(price.arms.treatment.upper_bound).toBe(true);
    // Adherence judged on every attempt of every message: at least one call each.
    expect(price.arms.treatment.judge.parts.gate.calls).toBeGreaterThanOrEqual(4 * 7 * 3);
    // What both arms share is priced the same.
    for (const part of ["personas", "extraction", "task_completion"] as const)
      expect(price.arms.treatment.judge.parts[part]).toEqual(price.arms.control.judge.parts[part]);
    expect(price.arms.control.judge.parts.extraction.calls).toBe(4);
    // Task completion is double-checked, as the scenario's judge says by default.
    expect(price.arms.control.judge.parts.task_completion.calls).toBe(4 * 2);
    expect(price.arms.control.judge.parts.personas.calls).toBeGreaterThan(0);
    expect(price.arms.control.agent.input_tokens).toBeGreaterThan(0);
  });

  it("is an upper bound of a run's agent calls, and exact for the arm without a gate", async () => {
    const scenario = tinyScenario();
    const price = await priceExperiment(scenario, { ...specs, population: { people: people(6) } });
    const { document } = await runExperiment(scenario, {
      model: driftingAgentModel(),
      judge: experimentJudge(),
      population: { people: people(6) },
      store: "memory://",
    });
    expect(price.arms.control.agent.calls).toBe(document.arms.control.calls.agent);
    expect(price.arms.treatment.agent.calls).toBeGreaterThanOrEqual(document.arms.treatment.calls.agent);
    // The drifting agents are redrafted, so the treatment makes more calls than the control.
    expect(document.arms.treatment.calls.agent).toBeGreaterThan(document.arms.control.calls.agent);
  });

  it("checks the variety intervention once an agent has sent variety_message_threshold messages", async () => {
    const scenario = tinyScenario({
      steps: 5,
      treatment: "{ variety_intervention_enabled: true, variety_message_threshold: 3 }",
    });
    const price = await priceExperiment(scenario, { ...specs, population: { people: people(6) } });
    // World steps 1–6; at step s an agent has sent s − 1 messages: steps 4, 5 and 6 check, for 3 agents in 4 environments.
    expect(price.arms.treatment.judge.parts.interventions.calls).toBe(3 * 3 * 4);
    expect(price.arms.control.judge.parts.interventions.calls).toBe(0);
    // No gate: no redrafts, and the counts are what a run makes.
    expect(price.arms.treatment.agent.calls).toBe(price.arms.control.agent.calls);
    expect(price.arms.treatment.upper_bound).toBe(false);
  });

  it("prices tokens at the given prices, and gives no cost for a model without one", async () => {
    const scenario = tinyScenario();
    const priced = await priceExperiment(scenario, {
      ...specs,
      population: { people: people(6) },
      prices: { agents: PRICE, judge: { input_per_million: 1, output_per_million: 2 } },
    });
    const agent = priced.arms.control.agent;
    expect(agent.cost_usd).toBeCloseTo((agent.input_tokens * 0.15 + agent.output_tokens * 0.6) / 1e6, 12);
    const judge = priced.arms.control.judge;
    expect(judge.cost_usd).toBeCloseTo((judge.input_tokens * 1 + judge.output_tokens * 2) / 1e6, 12);
    expect(priced.arms.control.cost_usd).toBeCloseTo(agent.cost_usd! + judge.cost_usd!, 12);
    expect(priced.total.cost_usd).toBeCloseTo(
      priced.arms.control.cost_usd! + priced.arms.treatment.cost_usd!,
      12,
    );

    const unpriced = await priceExperiment(scenario, {
      ...specs,
      population: { people: people(6) },
      prices: { agents: PRICE },
    });
    expect(unpriced.arms.control.agent.cost_usd).toBeDefined();
    expect(unpriced.arms.control.judge.cost_usd).toBeUndefined();
    expect(unpriced.arms.control.cost_usd).toBeUndefined();
    expect(unpriced.total.cost_usd).toBeUndefined();
    expect(unpriced.prices.judge).toBeNull();
    expect(renderExperimentPrices([unpriced])).toMatch(
      /no price for openai:gpt-4o-mini: add one under prices: in dramaturg\.yaml/,
    );
  });

  it("counts no judge model call for a fixture judge", async () => {
    const price = await priceExperiment(tinyScenario(), {
      model: "openai:gpt-4o-mini",
      judge: "fixtures:verdicts.json",
      population: { people: people(6) },
    });
    expect(price.arms.treatment.judge.calls).toBe(0);
    expect(price.arms.treatment.judge.input_tokens).toBe(0);
    expect(price.arms.treatment.agent.calls).toBeGreaterThan(0);
  });

  it("prices the population factory when the scenario generates its people, and not when they are given", async () => {
    const scenario = loadBuiltinScenario("brainstorming-average");
    const generated = await priceExperiment(scenario, { ...specs, scale: 0.1 });
    // The dimensions, one plan (the profile has one segment), one persona a person.
    expect(generated.population).toMatchObject({ calls: 1 + 1 + 5, generated: 5 });
    expect(generated.total.agent.calls).toBe(
      generated.arms.control.agent.calls + generated.arms.treatment.agent.calls + 7,
    );
    const given = await priceExperiment(scenario, {
      ...specs,
      scale: 0.1,
      population: { people: people(5) },
    });
    expect(given.population).toBeUndefined();
  });

  it("follows --scale as a run does: brainstorming-average at 0.1 has 4 environments of 5 agents an arm", async () => {
    const price = await priceExperiment(loadBuiltinScenario("brainstorming-average"), {
      ...specs,
      scale: 0.1,
      prices: { agents: PRICE, judge: PRICE },
    });
    expect(price.scenario).toMatchObject({ environments: 4, agents: 5, group_size: 5, steps: 10 });
    // 5 agents × 11 world steps + the rapporteur, in 4 environments; the gate may redraft 5 times.
    expect(price.arms.control.agent.calls).toBe(4 * (5 * 11 + 1));
    expect(price.arms.treatment.agent.calls).toBe(4 * (5 * 11 + 1) * 6);
    // The variety intervention (threshold 7) is checked at world steps 8–11.
    expect(price.arms.treatment.judge.parts.interventions.calls).toBe(4 * 5 * 4);
    expect(price.total.cost_usd).toBeGreaterThan(0);
    const text = renderExperimentPrices([price]);
    expect(text).toMatch(
      /^Dry run · experiment brainstorming-average at scale 0\.1 · nothing was called or written$/m,
    );
    expect(text).toMatch(/^ {2}agents\s+224\s/m);
    expect(text).toMatch(/at most: the gate may redraft less/);
  });

  it("refuses a bad scale and too few people, as a run would", async () => {
    await expectInputError(priceExperiment(tinyScenario(), { ...specs, scale: 2 }), /--scale/);
    await expectInputError(
      priceExperiment(tinyScenario(), { ...specs, population: { people: people(2) } }),
      /expected at least 6 people/,
    );
  });

  it("prices every built-in scenario", async () => {
    for (const scenario of listBuiltinScenarios()) {
      const price = await priceExperiment(scenario, { ...specs, scale: 0.1 });
      expect(price.arms.control.agent.calls).toBeGreaterThan(0);
      expect(price.arms.control.judge.calls).toBeGreaterThan(0);
    }
  });
});
