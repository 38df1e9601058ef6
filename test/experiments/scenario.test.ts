// The scenario format: the four built-ins of Table 1, a user's own file, located errors for bad files, the
// JSON Schema, the environment plan and scaleScenario.
import { readdirSync, readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { DEFAULT_CORRECTION_SETTINGS, type InputError } from "../../src/core/index.ts";
import {
  BUILTIN_SCENARIO_NAMES,
  BUILTIN_SCENARIOS_DIR,
  builtinScenarioPath,
  listBuiltinScenarios,
  loadBuiltinScenario,
  resolveScenario,
} from "../../src/experiments/builtin-scenarios.ts";
import { BUILTIN_POPULATION_PROFILES } from "../../src/experiments/population-profiles.ts";
import {
  armCorrections,
  loadScenarioFile,
  parseScenario,
  planEnvironments,
  SCENARIO_POPULATION_PROFILES,
  type Scenario,
  scaleScenario,
  scenarioJsonSchema,
  scenarioMetrics,
  scenarioSize,
} from "../../src/experiments/scenario.ts";
import { cli } from "../cli/run-cli.ts";
import { inputError } from "../input-error.ts";

const FIXTURES = new URL("../fixtures/experiments/scenarios/", import.meta.url).pathname;

describe("the built-in scenarios", () => {
  it("are the four of Table 1, one file each, named by their id", () => {
    const files = readdirSync(BUILTIN_SCENARIOS_DIR).sort();
    expect(files).toEqual(BUILTIN_SCENARIO_NAMES.map((n) => `${n}.yaml`).sort());
    expect(listBuiltinScenarios().map((s) => s.id)).toEqual([...BUILTIN_SCENARIO_NAMES]);
  });

  it("have Table 1's N_a and N_e per arm, from their groups and environments", () => {
    const sizes = Object.fromEntries(listBuiltinScenarios().map((s) => [s.id, scenarioSize(s)]));
    expect(sizes).toEqual({
      "brainstorming-average": { agents: 20, groups: 4, environments: 40, agent_observations: 200 },
      "brainstorming-difficult-full": { agents: 12, groups: 3, environments: 24, agent_observations: 96 },
      "brainstorming-difficult-variety": { agents: 12, groups: 3, environments: 24, agent_observations: 96 },
      "debate-controversial": { agents: 20, groups: 4, environments: 24, agent_observations: 120 },
    });
  });

  it("run 10 task steps when brainstorming and 5 when debating, each after one intro step", () => {
    const steps = listBuiltinScenarios().map((s) => [s.steps, planEnvironments(s)[0]!.world_steps]);
    expect(steps).toEqual([
      [10, 11],
      [10, 11],
      [10, 11],
      [5, 6],
    ]);
  });

  it("give each treatment the paper's corrections and leave every control uncorrected", () => {
    const treatments = Object.fromEntries(
      listBuiltinScenarios().map((s) => {
        const t = armCorrections(s.arms.treatment);
        return [
          s.id,
          [
            t.gate_adherence_enabled,
            t.gate_adherence_threshold,
            t.max_correction_attempts,
            t.variety_intervention_enabled,
          ],
        ];
      }),
    );
    expect(treatments).toEqual({
      "brainstorming-average": [true, 5, 5, true],
      "brainstorming-difficult-full": [true, 5, 2, true],
      "brainstorming-difficult-variety": [false, 7, 2, true],
      "debate-controversial": [true, 5, 2, false],
    });
    for (const s of listBuiltinScenarios())
      expect(armCorrections(s.arms.control)).toEqual(DEFAULT_CORRECTION_SETTINGS);
  });

  it("count ideas when brainstorming and opinions when debating; only the variety-only one judges adherence softly", () => {
    const rows = listBuiltinScenarios().map((s) => [
      s.extraction.kind,
      s.metrics.hard_adherence,
      scenarioMetrics(s).map((m) => m.name),
    ]);
    const brainstorm = [
      "adherence",
      "consistency",
      "fluency",
      "convergence",
      "ideas_quantity",
      "task_completion",
    ];
    expect(rows).toEqual([
      ["ideas", true, brainstorm],
      ["ideas", true, brainstorm],
      ["ideas", false, brainstorm],
      ["opinions", true, brainstorm.map((m) => (m === "ideas_quantity" ? "opinions_quantity" : m))],
    ]);
  });

  it("judge in individual mode with a double check, as the seed asks of experiments", () => {
    for (const s of listBuiltinScenarios())
      expect(s.judge).toEqual({ mode: "individual", double_check: true });
  });

  it("pass the JSON Schema that `dramaturg schema scenario` prints", async () => {
    const printed = await cli(["schema", "scenario"]);
    expect(printed.code).toBe(0);
    const schema = JSON.parse(printed.stdout);
    expect(schema).toEqual(scenarioJsonSchema());
    expect(schema.properties.format.const).toBe("dramaturg.scenario/v1");
    const validate = new Ajv2020({ strict: false }).compile(schema);
    for (const name of BUILTIN_SCENARIO_NAMES) {
      const raw = parseYaml(readFileSync(builtinScenarioPath(name), "utf8"));
      expect(validate(raw), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    // The JSON Schema refuses what the loader refuses: an arm missing.
    const raw = parseYaml(readFileSync(builtinScenarioPath("debate-controversial"), "utf8"));
    delete raw.arms.treatment;
    expect(validate(raw)).toBe(false);
  });
});

describe("a scenario's environments", () => {
  it("meet every group with every parameter set, as often as the environments allow, the same for both arms", () => {
    for (const s of listBuiltinScenarios()) {
      const { groups, environments } = scenarioSize(s);
      const pairs = new Map<string, number>();
      for (const e of planEnvironments(s)) {
        const key = `${e.group}/${e.parameter_set}`;
        pairs.set(key, (pairs.get(key) ?? 0) + 1);
      }
      expect(pairs.size).toBe(groups * s.parameters.length);
      expect(new Set(pairs.values())).toEqual(new Set([environments / (groups * s.parameters.length)]));
    }
  });

  it("give each group its own consecutive agents and the rapporteur at the scenario's position", () => {
    const s = parseScenario(readFileSync(`${FIXTURES}tea-tasting.yaml`, "utf8"));
    const plan = planEnvironments(s);
    expect(plan.map((e) => [e.group, e.members, e.rapporteur, e.parameter_set, e.repetition])).toEqual([
      [0, [0, 1, 2], 1, 0, 0],
      [1, [3, 4, 5], 4, 0, 0],
      [0, [0, 1, 2], 1, 1, 0],
      [1, [3, 4, 5], 4, 1, 0],
    ]);
  });

  it("fill every prompt's variables from the environment's parameter set", () => {
    const s = parseScenario(readFileSync(`${FIXTURES}tea-tasting.yaml`, "utf8"));
    const winter = planEnvironments(s)[2]!;
    expect(winter.variables).toEqual({ season: "winter" });
    expect(winter.prompts.intro).toBe(
      "Welcome to the winter tasting. Introduce yourselves and the teas you drink in winter.",
    );
    expect(winter.prompts.extraction_situation).toBe("A tasting panel inventing winter blends.");
    expect(winter.prompts.task_completion).toBeUndefined();
    for (const s2 of listBuiltinScenarios())
      for (const e of planEnvironments(s2)) expect(JSON.stringify(e.prompts)).not.toMatch(/\{\{/);
  });
});

describe("a scenario file of one's own", () => {
  it("loads with the defaults filled in and its population folder resolved beside the file", () => {
    const s = loadScenarioFile(`${FIXTURES}tea-tasting.yaml`);
    expect(s.population).toEqual({ folder: `${FIXTURES}people`, size: 6, seed: 0 });
    expect(s.judge).toEqual({ mode: "individual", double_check: true });
    expect(s.metrics).toEqual({
      dimensions: ["adherence", "consistency", "fluency", "convergence"],
      hard_adherence: true,
    });
    expect([s.channel, s.order, s.seed]).toEqual(["session", "parallel", 0]);
    expect(s.arms.treatment.corrections).toEqual({ repetition_suppression_enabled: true });
    expect(s.arms.treatment.nudges).toEqual({
      variety: "Think of a flavour nobody at the table has mentioned.",
    });
  });

  it("is found by resolveScenario as a file, and a built-in by its name", () => {
    expect(resolveScenario(`${FIXTURES}tea-tasting.yaml`).id).toBe("tea-tasting");
    expect(resolveScenario("debate-controversial")).toEqual(loadBuiltinScenario("debate-controversial"));
  });

  it("that does not exist, and is no built-in name, gets a message listing the built-ins", () => {
    const error = inputError(() => resolveScenario("brainstorming-avrage"));
    expect(error.message).toBe(
      "brainstorming-avrage: no scenario file here, and not a built-in scenario; expected a file or one of brainstorming-average, brainstorming-difficult-full, brainstorming-difficult-variety, debate-controversial",
    );
    expect(inputError(() => loadBuiltinScenario("nope")).message).toMatch(/unknown built-in scenario "nope"/);
  });
});

describe("a bad scenario file", () => {
  const bad = (name: string): InputError => inputError(() => loadScenarioFile(`${FIXTURES}bad/${name}`));

  it("of the wrong type exits 2 naming the file, the line and the field", () => {
    const error = bad("wrong-type.yaml");
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      `${FIXTURES}bad/wrong-type.yaml:8:13: group_size: expected a number, got the string "three"`,
    );
  });

  it("with a correction key agent_evaluation_config does not have names that key's line", () => {
    expect(bad("unknown-key.yaml").message).toMatch(
      /unknown-key\.yaml:28:7: unknown key "gate_tone_enabled"; expected one of gate_adherence_enabled, /,
    );
  });

  it("without a treatment arm says it is missing, at the arms", () => {
    expect(bad("missing-arm.yaml").message).toMatch(
      /missing-arm\.yaml:24:3: treatment: missing; expected a mapping/,
    );
  });

  it("whose prompt uses a variable a parameter set does not give names the prompt and the set", () => {
    expect(bad("unset-variable.yaml").message).toMatch(
      /unset-variable\.yaml:17:9: task: expected only variables every parameter set gives; \{\{motion\}\} is not in parameters\[1\] \(it gives season\)/,
    );
  });

  it("whose population cannot be split into full groups says which sizes would do", () => {
    expect(bad("size-not-multiple.yaml").message).toMatch(
      /size-not-multiple\.yaml:7:9: size: expected a multiple of group_size \(3\), such as 6 or 9; got 7/,
    );
  });

  it("refuses a population with both a profile and a folder, and a rapporteur outside the group", () => {
    const text = readFileSync(`${FIXTURES}tea-tasting.yaml`, "utf8");
    const both = inputError(() =>
      parseScenario(
        text.replace("  folder: people", "  folder: people\n  profile: political-compass"),
        "t.yaml",
      ),
    );
    expect(both.message).toMatch(
      /^t\.yaml:7:3: population: expected exactly one of profile \(.*\) or folder$/,
    );
    const outside = inputError(() => parseScenario(text.replace("member: 2", "member: 4"), "t.yaml"));
    expect(outside.message).toMatch(
      /^t\.yaml:\d+:\d+: member: expected a position in the group, 1 to 3; got 4$/,
    );
  });
});

describe("scaleScenario", () => {
  const scenario = (id: string): Scenario => loadBuiltinScenario(id);
  const shape = (s: Scenario) => [s.environments, s.population.size];

  it("at 1 changes nothing", () => {
    const s = scenario("brainstorming-average");
    expect(scaleScenario(s, 1)).toEqual(s);
  });

  it("shrinks environments and population proportionally", () => {
    expect(shape(scaleScenario(scenario("brainstorming-average"), 0.5))).toEqual([20, 10]);
    expect(scenarioSize(scaleScenario(scenario("brainstorming-average"), 0.5)).agent_observations).toBe(100);
  });

  it("at 0.1 keeps 2 environments per arm and one full group for the smaller scenarios", () => {
    expect(listBuiltinScenarios().map((s) => shape(scaleScenario(s, 0.1)))).toEqual([
      [4, 5],
      [2, 4],
      [2, 4],
      [2, 5],
    ]);
  });

  it("never goes below 2 environments nor one full group, however small the scale", () => {
    expect(shape(scaleScenario(scenario("debate-controversial"), 0.0001))).toEqual([2, 5]);
  });

  it("never makes more groups than environments", () => {
    const s: Scenario = {
      ...scenario("debate-controversial"),
      environments: 3,
      population: { profile: "political-compass", size: 100, seed: 0 },
    };
    expect(shape(scaleScenario(s, 0.9))).toEqual([3, 15]);
  });

  it("leaves its input as it was", () => {
    const s = scenario("brainstorming-difficult-full");
    const before = structuredClone(s);
    scaleScenario(s, 0.25);
    expect(s).toEqual(before);
  });

  it("refuses a scale of 0, above 1 or not a number", () => {
    for (const bad of [0, -0.5, 1.5, Number.NaN])
      expect(inputError(() => scaleScenario(scenario("brainstorming-average"), bad)).message).toMatch(
        /^--scale: expected a number above 0 and at most 1, got /,
      );
  });
});

describe("population profiles", () => {
  it("a scenario names exactly the profiles the population factory builds", () => {
    expect([...SCENARIO_POPULATION_PROFILES].sort()).toEqual(Object.keys(BUILTIN_POPULATION_PROFILES).sort());
  });
});
