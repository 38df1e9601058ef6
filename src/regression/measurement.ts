// What one evaluation measured, in the shape the harness compares: agent and channel scores with the
// hashes that say whether two measurements are comparable, built from an evaluation and its stored runs.
import { relative, resolve, sep } from "node:path";
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

/** A path as seen from `baseDir`, with forward slashes, so baselines made on one machine read on another. */
export function portablePath(path: string, baseDir: string): string {
  return relative(baseDir, resolve(path)).split(sep).join("/");
}

/**
 * What {@link measurementOf} reads: an evaluation's result document (`dramaturg.eval-result/v1`), the
 * transcript it judged, its propositions and its stored runs — as `evaluatePersonas` and the store give them.
 */
export interface MeasurementInput {
  result: {
    evaluation_id: string;
    source: string;
    judge: {
      provider: string;
      model: string;
      temperature?: number;
      mode: string;
      prompt_version: string;
      trials: number;
    };
    runs: ReadonlyArray<Omit<MeasuredAgent, "propositions_hash" | "persona_hash">>;
    environments: ReadonlyArray<{ channel: string; dimensions: MeasuredChannel["dimensions"] }>;
  };
  transcript: Transcript;
  propositions: { sets: { environment: ReadonlyMap<string, { hash: string }> } };
  /** The stored runs, for the hashes they were stored with. */
  runs: ReadonlyArray<{ id: string; propositions_hash: string | null; persona_hash: string | null }>;
}

/** The harness's view of an evaluation; paths are made relative to `baseDir` (the baselines folder). */
export function measurementOf(measured: MeasurementInput, baseDir: string): Measurement {
  const { result, transcript, propositions, runs } = measured;
  const rowOf = new Map(runs.map((r) => [r.id, r]));
  return {
    evaluation_id: result.evaluation_id,
    created_at: new Date().toISOString(),
    source:
      result.source === "store"
        ? "store"
        : result.source
            .split(",")
            .map((f) => portablePath(f, baseDir))
            .join(","),
    judge: {
      provider: result.judge.provider,
      model: result.judge.model,
      ...(result.judge.temperature !== undefined ? { temperature: result.judge.temperature } : {}),
      mode: result.judge.mode as "individual" | "batch",
      prompt_version: result.judge.prompt_version,
    },
    trials: result.judge.trials,
    agents: result.runs.map(
      (r): MeasuredAgent => ({
        agent_id: r.agent_id,
        name: r.name,
        sample_size: r.sample_size,
        overall_score: r.overall_score,
        errored: r.errored,
        dimensions: r.dimensions,
        run_id: r.run_id,
        propositions_hash: rowOf.get(r.run_id)?.propositions_hash ?? "",
        persona_hash: rowOf.get(r.run_id)?.persona_hash ?? "",
      }),
    ),
    channels: result.environments.map((e) => {
      const conv = propositions.sets.environment.get("convergence")?.hash;
      const ideas = propositions.sets.environment.get("ideas_quantity")?.hash;
      return {
        channel: e.channel,
        agents: channelAgents(transcript, e.channel),
        personas_hash: channelPersonasHash(transcript, e.channel),
        propositions_hashes: {
          ...(conv ? { convergence: conv } : {}),
          ...(ideas ? { ideas_quantity: ideas } : {}),
        },
        dimensions: {
          ...(e.dimensions.convergence ? { convergence: e.dimensions.convergence } : {}),
          ...(e.dimensions.ideas_quantity ? { ideas_quantity: e.dimensions.ideas_quantity } : {}),
        },
      };
    }),
  };
}
