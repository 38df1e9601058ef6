// A world run with runtime corrections on: each agent's settings resolved (stored row > world file > project
// file > defaults), the gate and repetition suppression on its agents, and the gate's logs stored with the
// simulation's run id; the run itself is not stored. `eval --synthetic` calls it; `runSimulation`, the call
// behind `dramaturg simulate`, calls it and stores the run. Under it runs sim/'s `runWorld`, the world's loop.
import { randomUUID } from "node:crypto";
import {
  type CorrectionSettings,
  GATE_DIMENSIONS,
  InputError,
  type WorldCorrectionsSummary,
} from "../core/index.ts";
import type { Judge } from "../judge/index.ts";
import {
  loadWorldFile,
  type RunWorldOptions,
  runWorld,
  type SimulationResult,
  type WorldFile,
} from "../sim/index.ts";
import { agentCorrectionSettings, type ProjectAgentConfigs, type Store } from "../store/index.ts";
import type { CorrectionLogSink, GateLogEntry } from "./correction-log.ts";
import type { GatePropositionSets } from "./gate-propositions.ts";
import { worldCorrections } from "./world-gate.ts";

export interface ResolveWorldCorrectionsOptions {
  /** Each agent's stored settings (`config agent set`) win over everything else. */
  store?: Pick<Store, "agentConfig">;
  /** `dramaturg.yaml`'s `corrections:` (per agent id, `_default` for all); the world file's own win over it. */
  project?: ProjectAgentConfigs;
}

/**
 * The world with each agent's `corrections` as a check will use them: the agent's stored row if there is
 * one (a whole configuration); else, key by key, the world file's `agents[].corrections` over the project
 * file's for the agent, over its `_default`, over the defaults (everything off). A world file that sets one
 * key keeps every other key of dramaturg.yaml.
 */
export async function resolveWorldCorrections(
  world: WorldFile,
  { store, project = {} }: ResolveWorldCorrectionsOptions = {},
): Promise<WorldFile> {
  const agents = await Promise.all(
    world.agents.map(async (agent) => {
      const own = agent.corrections
        ? { ...project, [agent.id]: { ...project[agent.id], ...definedKeys(agent.corrections) } }
        : project;
      const { config } = await agentCorrectionSettings(store, agent.id, own);
      return { ...agent, corrections: config };
    }),
  );
  return { ...world, agents };
}

/** A patch without its undefined keys, which would otherwise hide the keys below it. */
function definedKeys<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Why the world needs a judge (an agent's gate dimension or judged intervention), or undefined when it does not. */
export function worldJudgeNeed(world: WorldFile): string | undefined {
  for (const agent of world.agents) {
    const c = agent.corrections;
    if (!c) continue;
    const gated = GATE_DIMENSIONS.find((d) => c[`gate_${d}_enabled` as const]);
    if (gated) return `agent "${agent.id}" turns on the action gate's ${gated} check, which is judged`;
    if (c.anti_convergence_enabled || c.variety_intervention_enabled)
      return `agent "${agent.id}" enables an intervention whose precondition is judged`;
  }
  return undefined;
}

/** Throws an InputError when the world needs a judge ({@link worldJudgeNeed}) and none is given. */
export function requireWorldJudge(world: WorldFile, judge: Judge | undefined): void {
  const need = judge ? undefined : worldJudgeNeed(world);
  if (need) throw new InputError(`${need}: give a judge (--judge)`);
}

/** Whether any agent has a runtime correction on that acts on its messages (the gate or repetition suppression). */
export function worldCorrectionsActive(world: WorldFile): boolean {
  return world.agents.some((a) => {
    const c: Partial<CorrectionSettings> = a.corrections ?? {};
    return (
      GATE_DIMENSIONS.some((d) => c[`gate_${d}_enabled`]) ||
      c.gate_similarity_enabled ||
      c.repetition_suppression_enabled
    );
  });
}

export interface SimulateWithCorrectionsOptions
  extends Omit<RunWorldOptions, "beforeCommit" | "beforeAct" | "afterStep"> {
  /** Reads each agent's stored settings (they win) and stores the gate's logs, in a batch per step. */
  store?: Pick<Store, "agentConfig" | "corrections">;
  /** `dramaturg.yaml`'s `corrections:`. */
  projectCorrections?: ProjectAgentConfigs;
  /** Receives each check's entry instead of the store. */
  log?: CorrectionLogSink;
  /** The simulation's run id, written to every log entry. Default a new UUID. */
  runId?: string;
  /** The gate's per-dimension judge deadline in ms. Default 5,000. */
  timeoutMs?: number;
  /** The gate's proposition sets by dimension; the built-in ones for those left out. */
  propositions?: GatePropositionSets;
}

export interface SimulationWithCorrectionsResult extends SimulationResult {
  runId: string;
  /** What the gate and repetition suppression did. */
  corrections: WorldCorrectionsSummary;
  /** Every gate check's entry, oldest first. */
  checks: readonly GateLogEntry[];
}

/**
 * Runs a world with each agent's runtime corrections on. Bad input (the file, a missing judge) throws an
 * InputError before any model is called. The logs are flushed at the end of each step and at the end.
 */
export async function simulateWithCorrections(
  world: WorldFile | string,
  {
    store,
    projectCorrections,
    log,
    runId = randomUUID(),
    timeoutMs,
    propositions,
    ...options
  }: SimulateWithCorrectionsOptions = {},
): Promise<SimulationWithCorrectionsResult> {
  const loaded = typeof world === "string" ? loadWorldFile(world) : world;
  const file = await resolveWorldCorrections(loaded, { store, project: projectCorrections });
  requireWorldJudge(file, options.judge);
  const configs = Object.fromEntries(file.agents.map((a) => [a.id, a.corrections ?? {}]));
  const corrections = worldCorrections({
    judge: options.judge,
    configs,
    propositions,
    log: log ?? store,
    runId,
    timeoutMs,
  });
  try {
    const result = await runWorld(file, {
      ...options,
      beforeCommit: corrections.beforeCommit,
      beforeAct: corrections.beforeAct,
      afterStep: () => corrections.flush(),
    });
    return { ...result, runId, corrections: corrections.summary(), checks: corrections.checks };
  } finally {
    await corrections.flush();
  }
}
