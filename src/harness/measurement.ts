// What one evaluation measured, in the shape the harness compares: agent and channel scores with the
// hashes that say whether two measurements are comparable. The CLI builds it from a run and the store.
import { type AGENT_DIMENSIONS, contentHash, type Transcript } from "../core/index.ts";
import { personaHash } from "../store/index.ts";

export type AgentDimension = (typeof AGENT_DIMENSIONS)[number];

/** Who judged: two measurements with different judges are not comparable. */
export interface MeasuredJudge {
  provider: string;
  /** For the fixture judge: the judge that recorded the fixtures, or `hand-written` (never the file path). */
  model: string;
  temperature?: number;
  mode: "individual" | "batch";
  prompt_version: string;
}

export interface MeasuredProposition {
  id: string;
  score: number | null;
  weight: number;
  inverted: boolean;
  recommendations_for_improvement?: string;
}

/** A 0–9 dimension: its score, each trial's score (the judge's spread) and its propositions. */
export interface MeasuredDimension {
  score: number | null;
  trials: { trial: number; score: number | null }[];
  propositions_hash: string;
  propositions: MeasuredProposition[];
}

export interface MeasuredIdeas {
  count: number | null;
  trials: { trial: number; count: number | null }[];
}

export interface MeasuredAgent {
  agent_id: string;
  name: string;
  sample_size: number;
  overall_score: number | null;
  errored: number;
  dimensions: Partial<Record<AgentDimension, MeasuredDimension>>;
  run_id: string;
  /** As stored with the run: the agent's proposition sets and persona. */
  propositions_hash: string;
  persona_hash: string;
}

export interface MeasuredChannel {
  channel: string;
  /** The agents who speak in the channel, and a hash of their personas (convergence depends on them). */
  agents: string[];
  personas_hash: string;
  /** Hash of each environment dimension's proposition set. */
  propositions_hashes: Partial<Record<"convergence" | "ideas_quantity", string>>;
  dimensions: { convergence?: MeasuredDimension; ideas_quantity?: MeasuredIdeas };
}

export interface Measurement {
  evaluation_id: string;
  created_at: string;
  /** Transcript files relative to the baselines folder, or `store`. */
  source: string;
  judge: MeasuredJudge;
  trials: number;
  agents: MeasuredAgent[];
  channels: MeasuredChannel[];
}

/** Agent ids that act in a channel (send a message there), sorted. */
export function channelAgents(transcript: Transcript, channel: string): string[] {
  const agents = new Set(transcript.agents.map((a) => a.id));
  const out = new Set<string>();
  for (const m of transcript.messages) if (m.channel === channel && agents.has(m.sender)) out.add(m.sender);
  return [...out].sort();
}

/** Hash of the personas of the agents in a channel: when one changes, its convergence baseline is stale. */
export function channelPersonasHash(transcript: Transcript, channel: string): string {
  const byId = new Map(transcript.agents.map((a) => [a.id, a]));
  return contentHash(
    Object.fromEntries(
      channelAgents(transcript, channel).map((id) => [id, personaHash(byId.get(id)!.persona)]),
    ),
  );
}
