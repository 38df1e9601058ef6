// An arm's environment world: the arm's settings are checked once, where the scenario is parsed, resolved once
// over the defaults, and taken by the world (and its gate) as they are, with no world file written and parsed
// again on the way.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  CorrectionSettingsPatchSchema,
  CorrectionSettingsSchema,
  DEFAULT_CORRECTION_SETTINGS,
} from "../../src/core/index.ts";
import {
  armCorrections,
  environmentWorld,
  FACILITATOR,
  planEnvironments,
  runExperiment,
} from "../../src/experiments/index.ts";
import { type WorldAgent, WorldFileSchema } from "../../src/sim/index.ts";
import { driftingAgentModel, experimentJudge, people, tinyScenario } from "./scripted-experiment-model.ts";

/** Spies on every way a schema parses, so that a test can say none ran. */
function parsesOf(...schemas: { parse: unknown; safeParse: unknown }[]) {
  const spies = schemas.flatMap((schema) => [
    vi.spyOn(schema as { parse: () => unknown }, "parse"),
    vi.spyOn(schema as { safeParse: () => unknown }, "safeParse"),
  ]);
  return () => spies.reduce((n, spy) => n + spy.mock.calls.length, 0);
}

const members: WorldAgent[] = people(3).map(({ id, name, persona }) => ({ id, name, persona }));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an arm's settings", () => {
  it("resolve over the defaults without being parsed again", () => {
    const scenario = tinyScenario();
    const expected = CorrectionSettingsSchema.parse(scenario.arms.treatment.corrections);
    const parses = parsesOf(CorrectionSettingsSchema, CorrectionSettingsPatchSchema);
    const settings = armCorrections(scenario.arms.treatment);
    expect(parses()).toBe(0);
    expect(settings).toEqual(expected);
    expect(Object.keys(settings)).toEqual(Object.keys(DEFAULT_CORRECTION_SETTINGS));
    expect(settings.gate_adherence_enabled).toBe(true);
    expect(armCorrections(scenario.arms.control)).toEqual(DEFAULT_CORRECTION_SETTINGS);
  });

  it("reach every agent of the environment's world as the very object, with no world file parsed", () => {
    const scenario = tinyScenario();
    const settings = armCorrections(scenario.arms.treatment);
    const environment = planEnvironments(scenario)[0]!;
    const parses = parsesOf(WorldFileSchema, CorrectionSettingsSchema, CorrectionSettingsPatchSchema);
    const world = environmentWorld(scenario, scenario.arms.treatment, settings, environment, members, 11);
    expect(parses()).toBe(0);
    expect(world.agents.map((a) => a.corrections)).toEqual([settings, settings, settings]);
    for (const agent of world.agents) expect(agent.corrections).toBe(settings);
    expect(world.facilitator.map((f) => [f.step, f.from])).toEqual([
      [1, FACILITATOR],
      [2, FACILITATOR],
    ]);
    vi.restoreAllMocks();
    // What the world file of it would have parsed to: nothing was lost by not writing one.
    expect(world).toEqual(WorldFileSchema.parse(world));
  });

  it("run an experiment's worlds and gates without a world file parsed", async () => {
    const parses = parsesOf(WorldFileSchema);
    const { document } = await runExperiment(tinyScenario({ size: 3, environments: 2 }), {
      model: driftingAgentModel(),
      judge: experimentJudge(),
      population: { people: people(3) },
      store: "memory://",
    });
    expect(parses()).toBe(0);
    // The treatment's settings reached its gate; the control's left it off.
    expect(document.environments.every((e) => e.arms.control.gate.checks === 0)).toBe(true);
    expect(document.environments.every((e) => e.arms.treatment.gate.checks > 0)).toBe(true);
    expect(document.arms.treatment.corrections).toEqual(armCorrections(tinyScenario().arms.treatment));
  });
});
