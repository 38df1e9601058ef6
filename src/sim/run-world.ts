// The world's loop on its own: a world file and a model spec in, a run world and its transcript out, with no
// settings resolved from a store or `dramaturg.yaml` and no action gate unless its hooks are given. The commands
// go through corrections/: `dramaturg simulate` calls `runSimulation`, `eval --synthetic` calls
// `simulateWithCorrections`; both resolve each agent's settings and run this loop under the gate's hooks.
import type { LanguageModel } from "ai";
import { InputError, parseJudgeSpec } from "../core/index.ts";
import { createJudgeModel, type Judge, type JudgeModelOptions } from "../judge/index.ts";
import type { BeforeCommit } from "./persona-agent.ts";
import {
  type BeforeAct,
  type CreateWorldOptions,
  createWorld,
  type World,
  type WorldRunResult,
} from "./world.ts";
import { loadWorldFile, type WorldFile } from "./world-file.ts";

export interface RunWorldOptions {
  /** The agents' model: an AI SDK model or a spec (`openai:gpt-4o-mini`). Default: the world file's `model`. */
  model?: LanguageModel | string;
  /** Base URL and API key variable for a model given as a spec. */
  modelSettings?: JudgeModelOptions;
  /** Judges the interventions' preconditions; needed when an agent's corrections enable one. */
  judge?: Judge;
  /** Steps to run instead of the file's. */
  steps?: number;
  /** Seed instead of the file's. */
  seed?: number;
  interventions?: CreateWorldOptions["interventions"];
  beforeCommit?: BeforeCommit;
  beforeAct?: BeforeAct;
  /** Awaited at the end of each step. */
  afterStep?: CreateWorldOptions["afterStep"];
  temperature?: number;
  signal?: AbortSignal;
}

export interface SimulationResult extends WorldRunResult {
  world: World;
}

/**
 * Runs a world (a file path or a parsed world file) and returns its transcript and statistics. Bad input
 * (the file, the model spec, a missing judge) throws an InputError before any model is called. Each agent
 * takes its world file's `corrections` over the defaults, nothing stored or in `dramaturg.yaml`; the
 * interventions they turn on run here, while the action gate and repetition suppression run only through
 * the hooks given (corrections/'s `worldCorrections`; `simulateWithCorrections` gives them and resolves the
 * settings first).
 */
export async function runWorld(
  world: WorldFile | string,
  {
    model,
    modelSettings,
    judge,
    steps,
    seed,
    interventions,
    beforeCommit,
    beforeAct,
    afterStep,
    temperature,
    signal,
  }: RunWorldOptions = {},
): Promise<SimulationResult> {
  const loaded = typeof world === "string" ? loadWorldFile(world) : world;
  const file = seed === undefined ? loaded : { ...loaded, seed };
  if (steps !== undefined && !(Number.isInteger(steps) && steps >= 1))
    throw new InputError(`steps must be a whole number of 1 or more, got ${steps}`);
  const agentModel = worldAgentModel(file, model, modelSettings);
  const needsJudge = file.agents.filter(
    (a) => a.corrections?.anti_convergence_enabled || a.corrections?.variety_intervention_enabled,
  );
  if (needsJudge.length > 0 && !judge)
    throw new InputError(
      `agent "${needsJudge[0]!.id}" enables an intervention whose precondition is judged: give a judge (--judge)`,
    );
  const created = createWorld(file, {
    model: agentModel,
    judge,
    interventions,
    beforeCommit,
    beforeAct,
    afterStep,
    temperature,
  });
  const result = await created.run({ steps: steps ?? file.steps, signal });
  return { ...result, world: created };
}

/**
 * The agents' model: the one given (a model or a spec), else the world file's spec. An InputError when there
 * is none or the spec is unusable, so a caller can check it before it writes anything.
 */
export function worldAgentModel(
  file: WorldFile,
  model?: LanguageModel | string,
  settings?: JudgeModelOptions,
): LanguageModel {
  const spec = model ?? file.model;
  if (spec === undefined)
    throw new InputError(
      "no model for the agents: pass one (--model openai:gpt-4o-mini) or set model: in the world file",
    );
  return typeof spec === "string" ? agentModelOf(spec, settings) : spec;
}

/** The agents' model of a spec; the spec parser and provider builder are the judge's, the messages our own. */
function agentModelOf(spec: string, settings: JudgeModelOptions = {}): LanguageModel {
  const parsed = parseJudgeSpec(spec);
  if (parsed.kind === "fixtures")
    throw new InputError(
      `the agents need a model, not fixtures: expected openai:MODEL, anthropic:MODEL or openai-compatible:MODEL`,
    );
  if (parsed.provider === "openai-compatible" && settings.baseUrl === undefined)
    throw new InputError(
      `the agents' model "${spec}" needs the server's base URL (e.g. http://127.0.0.1:11434/v1)`,
    );
  return createJudgeModel(parsed, {
    probe: {
      role: "agents' model",
      fix: "check that the server is running and the agents' base URL (--base-url; with eval --synthetic, --model-base-url), then try again",
    },
    ...settings,
  }).model;
}
