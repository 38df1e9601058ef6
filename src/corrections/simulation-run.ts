// A world simulation as a stored evaluation of kind `simulation`: created and started before the first model
// call, its id the `run_id` of every gate check, its transcript's messages stored under it, and its result
// document (`dramaturg.simulation-result/v1`) kept for `dramaturg simulations` and `dramaturg show` (sim/'s
// simulation kind reads it back). `runSimulation` is the library call behind `dramaturg simulate`.
import { basename } from "node:path";
import { addUsage, contentHash, InputError, type TokenUsage, ZERO_USAGE } from "../core/index.ts";
import type { Store } from "../engine/index.ts";
import {
  loadWorldFile,
  SIMULATION_RESULT_FORMAT,
  type SimulationResultDocument,
  type WorldFile,
  worldAgentModel,
} from "../sim/index.ts";
import {
  requireWorldJudge,
  resolveWorldCorrections,
  type SimulateWithCorrectionsOptions,
  type SimulationWithCorrectionsResult,
  simulateWithCorrections,
  worldCorrectionsActive,
} from "./simulate-with-corrections.ts";

export interface RunSimulationOptions
  extends Omit<SimulateWithCorrectionsOptions, "store" | "runId" | "log"> {
  /** Holds the evaluation, its messages, its gate checks; its agent settings win over the world's. */
  store: Store;
  /** The world file's name as recorded (default: the path given, or `world`). */
  source?: string;
}

export interface StoredSimulation extends SimulationWithCorrectionsResult {
  /** The evaluation's id, also the run id of its gate checks. */
  evaluation_id: string;
  document: SimulationResultDocument;
}

/**
 * Runs a world with its runtime corrections and stores it as a `simulation` evaluation. A run that throws is
 * marked failed with its error (its gate checks so far keep the run id) and the error is rethrown.
 */
export async function runSimulation(
  world: WorldFile | string,
  { store, source, projectCorrections, ...options }: RunSimulationOptions,
): Promise<StoredSimulation> {
  const loaded = typeof world === "string" ? loadWorldFile(world) : world;
  const file = source ?? (typeof world === "string" ? world : "world");
  const resolved = await resolveWorldCorrections(loaded, { store, project: projectCorrections });
  // Bad input is refused before the evaluation is created: a run that cannot start leaves nothing behind.
  requireWorldJudge(resolved, options.judge);
  const agentModel = worldAgentModel(loaded, options.model, options.modelSettings);
  if (options.steps !== undefined && !(Number.isInteger(options.steps) && options.steps >= 1))
    throw new InputError(`steps must be a whole number of 1 or more, got ${options.steps}`);
  const seed = options.seed ?? loaded.seed;
  const model = modelName(options.model ?? loaded.model ?? agentModel);
  const created = await store.evaluations.create({
    kind: "simulation",
    source: file,
    config: {
      world_hash: contentHash(loaded),
      model,
      seed,
      steps: options.steps ?? loaded.steps,
      judge: options.judge?.descriptor ?? null,
    },
  });
  const id = created.id;
  await store.evaluations.start(id);
  try {
    const result = await simulateWithCorrections(resolved, {
      ...options,
      model: agentModel,
      store,
      runId: id,
    });
    const messagesSource = `simulation:${id}`;
    await store.agents.upsert(result.transcript.agents);
    await store.messages.import(messagesSource, result.transcript.messages);
    const settings = Object.fromEntries(resolved.agents.map((a) => [a.id, a.corrections]));
    const active = worldCorrectionsActive(resolved);
    const gateUsage = result.checks.reduce<TokenUsage>(
      (sum, c) => (c.token_usage ? addUsage(sum, c.token_usage) : sum),
      { ...ZERO_USAGE },
    );
    const gateCalls = result.checks.reduce((n, c) => n + (c.judge_calls ?? 0), 0);
    const { stats } = result;
    const document: SimulationResultDocument = {
      format: SIMULATION_RESULT_FORMAT,
      world: { file: basename(file), hash: contentHash(loaded) },
      model,
      seed,
      steps: stats.steps,
      transcript: { messages: stats.messages, dropped: stats.dropped, source: messagesSource },
      interventions: stats.fired,
      gate: active ? result.corrections : null,
      // From the stored rows (reals in single precision), so it is what `corrections stats --run` prints.
      statistics: active
        ? await store.corrections.statistics(
            { run_id: id },
            { maxActionSimilarity: (agent) => settings[agent]?.max_action_similarity ?? 0.6 },
          )
        : null,
      calls: {
        agent: stats.agentCalls,
        judge: stats.judgeCalls + gateCalls,
        interventions: stats.judgeCalls,
        gate: gateCalls,
        gate_checks: result.checks.length,
      },
      tokens: {
        agents: stats.agentUsage,
        interventions: stats.judgeUsage,
        gate: gateUsage,
        total: addUsage(addUsage(stats.agentUsage, stats.judgeUsage), gateUsage),
      },
    };
    await store.evaluations.complete(id, { token_usage: document.tokens.total, result: document });
    return { ...result, evaluation_id: id, document };
  } catch (error) {
    await store.evaluations.fail(id, error instanceof Error ? error.message : String(error));
    throw error;
  }
}

/** The model as recorded: a spec as given, an AI SDK model as `provider:modelId`. */
function modelName(model: NonNullable<RunSimulationOptions["model"]>): string {
  if (typeof model === "string") return model;
  return `${model.provider}:${model.modelId}`;
}
