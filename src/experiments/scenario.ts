// The scenario format `dramaturg.scenario/v1`: one treatment-vs-control experiment written down — its
// population, groups and environments, the prompts of every session, the rapporteur and what is extracted,
// the metrics, the judge, and the two arms' correction settings. Also the pure plan a runner follows
// (which group and which parameters each environment gets) and `scaleScenario` for `--scale`.
import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import {
  type CorrectionSettings,
  CorrectionSettingsPatchSchema,
  correctionSettingsOf,
  InputError,
  parseLocatedYaml,
  readInputFile,
  renderTemplate,
  templateVariables,
} from "../core/index.ts";
import { AgentNudgesSchema } from "../sim/index.ts";
import { SurveyQuestionSchema } from "./survey.ts";

export const SCENARIO_FORMAT = "dramaturg.scenario/v1";

/** The populations the factory builds without a description file (TinyTroupe's three of Table 1). */
export const SCENARIO_POPULATION_PROFILES = [
  "average-customers",
  "difficult-customers",
  "political-compass",
] as const;
export type ScenarioPopulationProfile = (typeof SCENARIO_POPULATION_PROFILES)[number];

/** The persona dimensions a scenario can judge (ideas are counted by the extraction instead). */
export const SCENARIO_DIMENSIONS = ["adherence", "consistency", "fluency", "convergence"] as const;
export type ScenarioDimension = (typeof SCENARIO_DIMENSIONS)[number];

/** What the rapporteur's consolidation is turned into; the count is the `<kind>_quantity` metric. */
export const EXTRACTION_KINDS = ["ideas", "opinions"] as const;
export type ExtractionKind = (typeof EXTRACTION_KINDS)[number];

const ID = /^[a-z0-9][a-z0-9-]*$/;
const VARIABLE_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export const ScenarioPopulationSchema = z
  .object({
    profile: z
      .enum(SCENARIO_POPULATION_PROFILES)
      .optional()
      .describe("A built-in population profile the factory generates from"),
    folder: z
      .string()
      .min(1)
      .optional()
      .describe("A population folder (one persona file each), relative to the scenario file"),
    size: z
      .number()
      .int()
      .min(1)
      .describe("Distinct agents, split into consecutive groups of group_size (a multiple of it)"),
    seed: z.number().int().default(0).describe("Fixes the population's composition and order"),
  })
  .strict()
  .superRefine((p, ctx) => {
    if ((p.profile === undefined) === (p.folder === undefined))
      ctx.addIssue({
        code: "custom",
        path: [],
        message: `expected exactly one of profile (${SCENARIO_POPULATION_PROFILES.join(", ")}) or folder`,
      });
  });

/** The arm settings: what differs between control and treatment (nothing else may). */
export const ScenarioArmSchema = z
  .object({
    label: z.string().min(1).optional().describe("Name shown in reports; default Control / Treatment"),
    description: z.string().min(1).optional(),
    corrections: CorrectionSettingsPatchSchema.default({}).describe(
      "Runtime corrections of every agent in this arm (agent_evaluation_config keys: the action gate's dimensions and thresholds, variety and anti-convergence interventions, repetition suppression); unset keys are off",
    ),
    nudges: AgentNudgesSchema.optional().describe(
      "Thoughts every agent of this arm is given when an intervention fires; default: the built-in texts",
    ),
  })
  .strict();

export const ScenarioSchema = z
  .object({
    format: z.literal(SCENARIO_FORMAT),
    id: z
      .string()
      .regex(ID, "an id of lower-case letters, digits and dashes")
      .describe("Stable name: what `experiment run` is given and results are stored under"),
    title: z.string().min(1),
    description: z.string().min(1).optional(),
    population: ScenarioPopulationSchema,
    group_size: z.number().int().min(1).describe("Agents in each environment"),
    environments: z
      .number()
      .int()
      .min(2)
      .describe(
        "N_e: environments (sessions) per arm; each takes the next group and parameter set in turn, so agent-level n = group_size × environments",
      ),
    steps: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .describe("World steps after the task prompt; the intro prompt gets one step of its own before them"),
    channel: z.string().min(1).default("session").describe("The channel every environment talks in"),
    order: z
      .enum(["parallel", "sequential_random"])
      .default("parallel")
      .describe("How agents act in a step, as in a world file"),
    seed: z
      .number()
      .int()
      .default(0)
      .describe("Seeds every environment's world; the same in both arms, so the two runs of a pair match"),
    parameters: z
      .array(z.record(z.string().regex(VARIABLE_NAME, "a variable name"), z.string().min(1)))
      .min(1)
      .describe(
        "Parameter sets (themes, motions): each environment fills the {{variables}} of its prompts from one of them, taken in turn",
      ),
    prompts: z
      .object({
        intro: z.string().min(1).describe("Posted at step 1: the agents introduce themselves"),
        task: z.string().min(1).describe("Posted at step 2: the task the environment works on"),
      })
      .strict(),
    rapporteur: z
      .object({
        member: z
          .number()
          .int()
          .min(1)
          .default(1)
          .describe("Position in the group (1 = first) of the agent that consolidates the session"),
        prompt: z.string().min(1).describe("What the rapporteur is asked after the last step"),
      })
      .strict(),
    extraction: z
      .object({
        kind: z.enum(EXTRACTION_KINDS).describe("What is counted: the metric is <kind>_quantity"),
        objective: z.string().min(1).describe("What to extract from the rapporteur's trajectory"),
        situation: z.string().min(1).describe("The situation the trajectory comes from, for the extractor"),
        fields: z
          .array(z.string().regex(VARIABLE_NAME, "a field name"))
          .min(1)
          .describe("Fields of each item"),
      })
      .strict(),
    survey: z
      .array(SurveyQuestionSchema)
      .min(1)
      .optional()
      .describe(
        "Questions every agent answers on its own after the session (and the rapporteur's write-up); the answers can be validated against real people's",
      ),
    metrics: z
      .object({
        dimensions: z
          .array(z.enum(SCENARIO_DIMENSIONS))
          .min(1)
          .default([...SCENARIO_DIMENSIONS])
          .describe(
            "Persona dimensions judged: adherence, consistency, fluency per agent; convergence per environment",
          ),
        hard_adherence: z
          .boolean()
          .default(true)
          .describe("Judge adherence strictly (hard: any flaw costs), as Table 1's persona adherence"),
        task_completion: z
          .string()
          .min(1)
          .optional()
          .describe(
            "What the session was asked to do ({{variables}} filled in); task completion is judged against it per environment. Leave out to skip",
          ),
      })
      .strict()
      .default({ dimensions: [...SCENARIO_DIMENSIONS], hard_adherence: true }),
    judge: z
      .object({
        mode: z
          .enum(["individual", "batch"])
          .default("individual")
          .describe("individual: one proposition per call; batch: up to 10"),
        double_check: z.boolean().default(true).describe("Ask the judge to reconsider each answer once"),
      })
      .strict()
      .default({ mode: "individual", double_check: true }),
    arms: z
      .object({
        control: ScenarioArmSchema,
        treatment: ScenarioArmSchema,
      })
      .strict()
      .describe("The two arms: identical agents, seeds and prompts; only these settings differ"),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.population.size % s.group_size !== 0 || s.population.size < s.group_size) {
      const lower = Math.max(1, Math.floor(s.population.size / s.group_size)) * s.group_size;
      const upper = Math.ceil(s.population.size / s.group_size) * s.group_size;
      const choices = lower === upper ? `${lower}` : `${lower} or ${upper}`;
      ctx.addIssue({
        code: "custom",
        path: ["population", "size"],
        message: `expected a multiple of group_size (${s.group_size}), such as ${choices}; got ${s.population.size}`,
      });
    }
    if (s.rapporteur.member > s.group_size)
      ctx.addIssue({
        code: "custom",
        path: ["rapporteur", "member"],
        message: `expected a position in the group, 1 to ${s.group_size}; got ${s.rapporteur.member}`,
      });
    for (const { path, text } of templatedTexts(s)) {
      for (const name of templateVariables(text)) {
        const index = s.parameters.findIndex((set) => set[name] === undefined);
        if (index === -1) continue;
        const given = Object.keys(s.parameters[index]!);
        ctx.addIssue({
          code: "custom",
          path,
          message: `expected only variables every parameter set gives; {{${name}}} is not in parameters[${index}] (it gives ${given.join(", ") || "none"})`,
        });
        break;
      }
    }
    const questions = new Set<string>();
    s.survey?.forEach((q, i) => {
      if (questions.has(q.id))
        ctx.addIssue({
          code: "custom",
          path: ["survey", i, "id"],
          message: `expected each question id once`,
        });
      questions.add(q.id);
    });
    const seen = new Set<string>();
    s.metrics.dimensions.forEach((d, i) => {
      if (seen.has(d))
        ctx.addIssue({
          code: "custom",
          path: ["metrics", "dimensions", i],
          message: `expected each dimension once`,
        });
      seen.add(d);
    });
  });

export type Scenario = z.output<typeof ScenarioSchema>;
export type ScenarioArm = Scenario["arms"]["control"];
export type ScenarioArmName = keyof Scenario["arms"];

/**
 * An arm's full correction settings: its keys over the defaults (everything off), never over a project's
 * `dramaturg.yaml`, so the control arm is uncorrected whatever the project configures. The keys were checked
 * once, where the scenario was parsed; what this returns is what every world of the arm takes as it is. (A
 * scenario keeps the arm's keys as written: they are what its hash and its stored copy are of.)
 */
export function armCorrections(arm: ScenarioArm): CorrectionSettings {
  return correctionSettingsOf(arm.corrections);
}

/** The texts whose `{{variables}}` are filled from an environment's parameter set, with their paths. */
function templatedTexts(s: Scenario): { path: (string | number)[]; text: string }[] {
  const texts = [
    { path: ["prompts", "intro"], text: s.prompts.intro },
    { path: ["prompts", "task"], text: s.prompts.task },
    { path: ["rapporteur", "prompt"], text: s.rapporteur.prompt },
    { path: ["extraction", "objective"], text: s.extraction.objective },
    { path: ["extraction", "situation"], text: s.extraction.situation },
  ];
  if (s.metrics.task_completion !== undefined)
    texts.push({ path: ["metrics", "task_completion"], text: s.metrics.task_completion });
  return texts;
}

/** The JSON Schema of the scenario format, for editors (`dramaturg schema scenario`). */
export function scenarioJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ScenarioSchema, { io: "input" });
}

/** Parses scenario YAML text; every mistake is an InputError naming the file, line and column. */
export function parseScenario(text: string, file = "<scenario>"): Scenario {
  return parseLocatedYaml(text, file, ScenarioSchema).data;
}

/**
 * Reads and checks a scenario file; a population folder and the survey's empirical files are resolved against
 * the file's folder.
 */
export function loadScenarioFile(file: string): Scenario {
  const scenario = parseScenario(readInputFile(file, "the scenario file"), file);
  const near = (path: string) => (isAbsolute(path) ? path : resolve(dirname(file), path));
  const folder = scenario.population.folder;
  return {
    ...scenario,
    ...(folder === undefined ? {} : { population: { ...scenario.population, folder: near(folder) } }),
    ...(scenario.survey === undefined
      ? {}
      : {
          survey: scenario.survey.map((q) =>
            q.empirical ? { ...q, empirical: { ...q.empirical, file: near(q.empirical.file) } } : q,
          ),
        }),
  };
}

/** A metric a scenario measures, in Table 1's column order. */
export interface ScenarioMetric {
  /** `adherence`, `consistency`, `fluency`, `convergence`, `ideas_quantity`/`opinions_quantity`, `task_completion`. */
  name: string;
  /** Scored once per agent per environment, or once per environment. */
  level: "agent" | "environment";
  /** A 0–9 judge score, or a count (never averaged with scores). */
  kind: "score" | "count";
}

/** The metrics a scenario yields: its agent dimensions, convergence, the extracted count, task completion. */
export function scenarioMetrics(scenario: Scenario): ScenarioMetric[] {
  const dims = new Set<string>(scenario.metrics.dimensions);
  const metrics: ScenarioMetric[] = [];
  for (const name of ["adherence", "consistency", "fluency"] as const)
    if (dims.has(name)) metrics.push({ name, level: "agent", kind: "score" });
  if (dims.has("convergence")) metrics.push({ name: "convergence", level: "environment", kind: "score" });
  metrics.push({ name: `${scenario.extraction.kind}_quantity`, level: "environment", kind: "count" });
  if (scenario.metrics.task_completion !== undefined)
    metrics.push({ name: "task_completion", level: "environment", kind: "score" });
  return metrics;
}

/** How big a scenario is: Table 1's N_a (agent-level n) and N_e per arm, and the population behind them. */
export interface ScenarioSize {
  /** Distinct agents in the population. */
  agents: number;
  groups: number;
  /** N_e: environments per arm. */
  environments: number;
  /** N_a: agent-level observations per arm, group_size × environments. */
  agent_observations: number;
}

export function scenarioSize(scenario: Scenario): ScenarioSize {
  return {
    agents: scenario.population.size,
    groups: scenario.population.size / scenario.group_size,
    environments: scenario.environments,
    agent_observations: scenario.group_size * scenario.environments,
  };
}

/** One environment of an arm: which agents, which parameters, and its prompts with them filled in. */
export interface ScenarioEnvironment {
  /** 0-based, in run order; environment i of the control arm is paired with environment i of the treatment. */
  index: number;
  /** 0-based group; its members are the population's agents at `members` (in the population's order). */
  group: number;
  members: number[];
  /** The population index of the rapporteur. */
  rapporteur: number;
  /** 0-based index into `parameters`. */
  parameter_set: number;
  /** 0-based: how many times this group has had this parameter set before. */
  repetition: number;
  variables: Record<string, string>;
  /** World steps: one for the intro, then `steps` for the task. */
  world_steps: number;
  prompts: {
    /** Posted at step 1. */
    intro: string;
    /** Posted at step 2. */
    task: string;
    rapporteur: string;
    extraction_objective: string;
    extraction_situation: string;
    /** Present when task completion is measured. */
    task_completion?: string;
  };
}

/**
 * The environments of an arm, the same for both arms. Environment i takes group i mod G and parameter set
 * ⌊i / G⌋ mod P, so every group meets every parameter set before any pair repeats, and a scaled-down
 * scenario still spreads over groups and parameter sets.
 */
export function planEnvironments(scenario: Scenario): ScenarioEnvironment[] {
  const groups = scenario.population.size / scenario.group_size;
  const sets = scenario.parameters.length;
  return Array.from({ length: scenario.environments }, (_, index) => {
    const group = index % groups;
    const round = Math.floor(index / groups);
    const parameterSet = round % sets;
    const variables = { ...scenario.parameters[parameterSet]! };
    const fill = (text: string) => renderTemplate(text, variables);
    const first = group * scenario.group_size;
    return {
      index,
      group,
      members: Array.from({ length: scenario.group_size }, (_, k) => first + k),
      rapporteur: first + scenario.rapporteur.member - 1,
      parameter_set: parameterSet,
      repetition: Math.floor(round / sets),
      variables,
      world_steps: scenario.steps + 1,
      prompts: {
        intro: fill(scenario.prompts.intro),
        task: fill(scenario.prompts.task),
        rapporteur: fill(scenario.rapporteur.prompt),
        extraction_objective: fill(scenario.extraction.objective),
        extraction_situation: fill(scenario.extraction.situation),
        ...(scenario.metrics.task_completion !== undefined
          ? { task_completion: fill(scenario.metrics.task_completion) }
          : {}),
      },
    };
  });
}

/**
 * The scenario at `scale` (0 < scale ≤ 1): N_e and the population shrink proportionally, so N_a does too.
 * Never fewer than 2 environments per arm (a Welch test needs two values), never less than one full group,
 * never more groups than environments (an agent that never acts would be generated for nothing).
 */
export function scaleScenario(scenario: Scenario, scale: number): Scenario {
  if (!Number.isFinite(scale) || scale <= 0 || scale > 1)
    throw new InputError(`--scale: expected a number above 0 and at most 1, got ${scale}`);
  const environments = Math.max(2, Math.round(scenario.environments * scale));
  const fullGroups = scenario.population.size / scenario.group_size;
  const groups = Math.min(Math.max(1, Math.round(fullGroups * scale)), environments, fullGroups);
  return {
    ...scenario,
    environments,
    population: { ...scenario.population, size: groups * scenario.group_size },
  };
}
