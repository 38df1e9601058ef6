// A stored world simulation read back: its result document (`dramaturg.simulation-result/v1`) by id, and the
// list of them. What `simulations`, `show`, the API and the dashboard read; corrections/'s `runSimulation`
// writes it.
import { basename } from "node:path";
import type { CorrectionStatistics, TokenUsage, WorldCorrectionsSummary } from "../core/index.ts";
import { loadStoredResult, type Store, type StoredListQuery } from "../engine/index.ts";
import type { FiredIntervention } from "./world.ts";

export const SIMULATION_RESULT_FORMAT = "dramaturg.simulation-result/v1";

/** What a stored simulation keeps: enough to list it, reprint it and find its messages and gate checks. */
export interface SimulationResultDocument {
  format: typeof SIMULATION_RESULT_FORMAT;
  /** The world file: its name as given, and a hash of its parsed content (same world, same hash). */
  world: { file: string; hash: string };
  /** The agents' model (a spec, or the AI SDK model's provider and id). */
  model: string | null;
  seed: number;
  steps: number;
  /** The transcript: its agents' messages, and the store's import batch that holds them. */
  transcript: { messages: number; dropped: number; source: string };
  interventions: FiredIntervention[];
  /** What the gate and repetition suppression did; null when no agent had either on. */
  gate: WorldCorrectionsSummary | null;
  /** The shared statistics of this run's stored gate checks (what `corrections stats --run ID` prints). */
  statistics: CorrectionStatistics | null;
  /**
   * Model calls as the providers bill them: `agent`, the agents' model (every draft, and every redraft the
   * gate asked for); `judge`, the judge model (`interventions`, their judged preconditions, plus `gate`, the
   * action gate's judgements, timed-out ones included); and the gate's checks (messages it judged).
   */
  calls: { agent: number; judge: number; interventions: number; gate: number; gate_checks: number };
  /** Tokens of the agents, of the interventions' judged preconditions, of the gate's judgements. */
  tokens: { agents: TokenUsage; interventions: TokenUsage; gate: TokenUsage; total: TokenUsage };
}

/** A stored simulation's document by id (or its first 8+ characters; the latest without one). */
export function loadSimulationResult({
  store,
  id,
}: {
  store: Store;
  id?: string;
}): Promise<SimulationResultDocument & { evaluation_id: string }> {
  return loadStoredResult<SimulationResultDocument>(store, id, {
    kind: "simulation",
    format: SIMULATION_RESULT_FORMAT,
    noun: "simulation",
  });
}

/** One line per stored simulation, newest first: `dramaturg simulations`. */
export async function listSimulationResults({
  store,
  limit = 50,
  ...page
}: { store: Store; limit?: number } & Omit<StoredListQuery, "limit">) {
  const rows = await store.evaluations.list({ kind: "simulation", limit, ...page });
  const out: {
    id: string;
    created_at: string;
    status: string;
    world: string;
    steps: number | null;
    messages: number | null;
    gate_checks: number | null;
  }[] = [];
  for (const row of rows) {
    const result =
      row.status === "completed"
        ? ((await store.evaluations.result(row.id)) as SimulationResultDocument | undefined)
        : undefined;
    const document = result?.format === SIMULATION_RESULT_FORMAT ? result : undefined;
    out.push({
      id: row.id,
      created_at: row.created_at,
      status: row.status,
      world: document?.world.file ?? basename(row.source),
      steps: document?.steps ?? null,
      messages: document?.transcript.messages ?? null,
      gate_checks: document?.calls.gate_checks ?? null,
    });
  }
  return out;
}
