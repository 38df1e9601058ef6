// Golden baselines: `dramaturg.baseline/v1` (one file per agent) and `dramaturg.environment-baseline/v1`
// (`_environments.json`, one entry per channel). Written stable — sorted keys, 3 decimals — for readable diffs.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import {
  AGENT_DIMENSIONS,
  firstIssue,
  InputError,
  issuePath,
  parseJsonText,
  readInputFile,
  round,
  validateInput,
} from "../core/index.ts";
import type { AgentDimension, MeasuredDimension, Measurement } from "./measurement.ts";

export const BASELINE_FORMAT = "dramaturg.baseline/v1";
export const ENVIRONMENT_BASELINE_FORMAT = "dramaturg.environment-baseline/v1";
/** The file in a baselines folder that holds the per-channel (environment) baselines. */
export const ENVIRONMENT_BASELINE_FILE = "_environments.json";

const Score = z.number().min(0).max(9);

const JudgeSchema = z
  .object({
    provider: z.string().min(1),
    model: z.string().min(1).describe("For fixtures: the judge that recorded them, or hand-written"),
    temperature: z.number().min(0).max(2).optional(),
    mode: z.enum(["individual", "batch"]),
    prompt_version: z.string().min(1),
  })
  .strict();

const PropositionBaselineSchema = z
  .object({
    id: z.string().min(1),
    score: Score.nullable(),
    weight: z.number().min(0),
    inverted: z.boolean(),
    recommendations: z.string().optional().describe("What to do when this proposition falls"),
  })
  .strict();

const DimensionBaselineSchema = z
  .object({
    score: Score.nullable(),
    propositions_hash: z.string().min(1),
    propositions: z.array(PropositionBaselineSchema),
  })
  .strict();

const AgentDimensionSchema = z.enum(AGENT_DIMENSIONS);

export const BaselineSchema = z
  .object({
    format: z.literal(BASELINE_FORMAT),
    agent: z.object({ id: z.string().min(1), name: z.string().min(1) }).strict(),
    created_at: z.iso.datetime({ offset: true }),
    source: z.string().describe("Transcript files relative to the baselines folder, or `store`"),
    judge: JudgeSchema,
    sample_size: z.number().int().min(0).describe("Messages of the agent that were judged"),
    errored: z.number().int().min(0).describe("Verdicts that errored and are left out of the scores"),
    overall_score: Score.nullable(),
    trials: z
      .array(
        z
          .object({
            trial: z.number().int().min(1),
            scores: z.partialRecord(AgentDimensionSchema, Score.nullable()),
          })
          .strict(),
      )
      .min(1)
      .describe("Each trial's dimension scores: the judge's spread"),
    dimensions: z.partialRecord(AgentDimensionSchema, DimensionBaselineSchema),
    propositions_hash: z.string().min(1).describe("Hash of the agent's proposition sets"),
    persona_hash: z.string().min(1).describe("Hash of the agent's persona"),
    run_id: z.string().min(1),
    evaluation_id: z.string().min(1),
  })
  .strict();

const ChannelBaselineSchema = z
  .object({
    created_at: z.iso.datetime({ offset: true }),
    source: z.string(),
    judge: JudgeSchema,
    evaluation_id: z.string().min(1),
    agents: z.array(z.string().min(1)).describe("Agents who speak in the channel"),
    personas_hash: z.string().min(1).describe("Hash of those agents' personas"),
    trials: z
      .array(
        z
          .object({
            trial: z.number().int().min(1),
            convergence: Score.nullable().optional(),
            ideas_quantity: z.number().int().min(0).nullable().optional(),
          })
          .strict(),
      )
      .min(1),
    convergence: DimensionBaselineSchema.optional().describe("Voice divergence, 0–9, higher is better"),
    ideas_quantity: z
      .object({ count: z.number().int().min(0).nullable(), propositions_hash: z.string().min(1) })
      .strict()
      .optional()
      .describe("Distinct ideas: reported, never a regression"),
  })
  .strict();

export const EnvironmentBaselineSchema = z
  .object({
    format: z.literal(ENVIRONMENT_BASELINE_FORMAT),
    channels: z.record(z.string().min(1), ChannelBaselineSchema),
  })
  .strict();

/** `dramaturg schema baseline` and `dramaturg schema environment-baseline`. */
export const BASELINE_JSON_SCHEMAS: Record<string, () => unknown> = {
  baseline: () => z.toJSONSchema(BaselineSchema, { io: "input" }),
  "environment-baseline": () => z.toJSONSchema(EnvironmentBaselineSchema, { io: "input" }),
};

export type Baseline = z.infer<typeof BaselineSchema>;
export type DimensionBaseline = z.infer<typeof DimensionBaselineSchema>;
export type EnvironmentBaseline = z.infer<typeof EnvironmentBaselineSchema>;
export type ChannelBaseline = z.infer<typeof ChannelBaselineSchema>;

function dimensionBaseline(d: MeasuredDimension): DimensionBaseline {
  return {
    score: d.score === null ? null : round(d.score),
    propositions_hash: d.propositions_hash,
    propositions: d.propositions.map((p) => ({
      id: p.id,
      score: p.score === null ? null : round(p.score),
      weight: round(p.weight),
      inverted: p.inverted,
      ...(p.recommendations_for_improvement ? { recommendations: p.recommendations_for_improvement } : {}),
    })),
  };
}

/** The baseline of one measured agent. */
export function baselineOf(m: Measurement, agentId: string): Baseline {
  const agent = m.agents.find((a) => a.agent_id === agentId);
  if (!agent) throw new InputError(`agent "${agentId}" was not measured`);
  const dims = Object.entries(agent.dimensions) as [AgentDimension, MeasuredDimension][];
  const trials = [];
  for (let trial = 1; trial <= m.trials; trial++)
    trials.push({
      trial,
      scores: Object.fromEntries(
        dims.map(([d, r]) => {
          const s = r.trials.find((t) => t.trial === trial)?.score ?? null;
          return [d, s === null ? null : round(s)];
        }),
      ),
    });
  return {
    format: BASELINE_FORMAT,
    agent: { id: agent.agent_id, name: agent.name },
    created_at: m.created_at,
    source: m.source,
    judge: m.judge,
    sample_size: agent.sample_size,
    errored: agent.errored,
    overall_score: agent.overall_score === null ? null : round(agent.overall_score),
    trials,
    dimensions: Object.fromEntries(dims.map(([d, r]) => [d, dimensionBaseline(r)])),
    propositions_hash: agent.propositions_hash,
    persona_hash: agent.persona_hash,
    run_id: agent.run_id,
    evaluation_id: m.evaluation_id,
  };
}

/** The measured channels' baselines, merged over `previous` (channels measured now replace theirs). */
export function environmentBaselineOf(m: Measurement, previous?: EnvironmentBaseline): EnvironmentBaseline {
  const channels: Record<string, ChannelBaseline> = { ...(previous?.channels ?? {}) };
  for (const c of m.channels) {
    const conv = c.dimensions.convergence;
    const ideas = c.dimensions.ideas_quantity;
    if (!conv && !ideas) continue;
    const trials = [];
    for (let trial = 1; trial <= m.trials; trial++) {
      const s = conv?.trials.find((t) => t.trial === trial)?.score;
      trials.push({
        trial,
        ...(conv ? { convergence: s === null || s === undefined ? null : round(s) } : {}),
        ...(ideas ? { ideas_quantity: ideas.trials.find((t) => t.trial === trial)?.count ?? null } : {}),
      });
    }
    channels[c.channel] = {
      created_at: m.created_at,
      source: m.source,
      judge: m.judge,
      evaluation_id: m.evaluation_id,
      agents: c.agents,
      personas_hash: c.personas_hash,
      trials,
      ...(conv ? { convergence: dimensionBaseline(conv) } : {}),
      ...(ideas && c.propositions_hashes.ideas_quantity
        ? { ideas_quantity: { count: ideas.count, propositions_hash: c.propositions_hashes.ideas_quantity } }
        : {}),
    };
  }
  return { format: ENVIRONMENT_BASELINE_FORMAT, channels };
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** Stable text of a baseline file: sorted keys, two-space indent, trailing newline. */
export function serializeBaseline(baseline: Baseline | EnvironmentBaseline): string {
  return `${JSON.stringify(sortKeys(baseline), null, 2)}\n`;
}

function parseWith<T>(schema: z.ZodType<T>, text: string, file: string, format: string): T {
  const parsed = validateInput(schema, parseJsonText(text, file, `a ${format} file`));
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new InputError(`${issue.message}; expected a ${format} file (see \`dramaturg schema baseline\`)`, {
      file,
      place: issuePath(issue.path),
    });
  }
  return parsed.data;
}

/** Validates an agent baseline; `file` names it in errors. The file must be named `<agent.id>.json`. */
export function parseBaseline(text: string, file: string, expectedAgentId?: string): Baseline {
  const baseline = parseWith(BaselineSchema, text, file, BASELINE_FORMAT);
  if (expectedAgentId !== undefined && baseline.agent.id !== expectedAgentId)
    throw new InputError(
      `the file is named for agent "${expectedAgentId}" but holds the baseline of "${baseline.agent.id}"; expected ${baseline.agent.id}.json`,
      { file, place: "agent.id" },
    );
  return baseline;
}

export function parseEnvironmentBaseline(text: string, file: string): EnvironmentBaseline {
  return parseWith(EnvironmentBaselineSchema, text, file, ENVIRONMENT_BASELINE_FORMAT);
}

export interface BaselineFolder {
  dir: string;
  /** Agent id → its baseline and the file it came from. */
  agents: Map<string, { baseline: Baseline; file: string }>;
  environments?: { baseline: EnvironmentBaseline; file: string };
}

function read(file: string): string {
  return readInputFile(file, "the baseline");
}

/**
 * Reads and validates every baseline in a folder. A missing or empty folder, or any invalid file, is an
 * InputError naming the file and the JSON path.
 */
export function readBaselineFolder(dir: string): BaselineFolder {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new InputError(
      "baselines folder not found; create it with `dramaturg baseline` (or pass --baselines DIR)",
      { file: dir },
    );
  const folder: BaselineFolder = { dir, agents: new Map() };
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".json")) continue;
    const file = join(dir, name);
    if (name === ENVIRONMENT_BASELINE_FILE) {
      folder.environments = { baseline: parseEnvironmentBaseline(read(file), file), file };
      continue;
    }
    const baseline = parseBaseline(read(file), file, name.slice(0, -".json".length));
    folder.agents.set(baseline.agent.id, { baseline, file });
  }
  if (folder.agents.size === 0)
    throw new InputError(
      "no agent baselines (<agent_id>.json) in the baselines folder; create them with `dramaturg baseline`",
      { file: dir },
    );
  return folder;
}

/** Reads `_environments.json` if present and valid, to merge new channel baselines into it. */
export function readEnvironmentBaseline(dir: string): EnvironmentBaseline | undefined {
  const file = join(dir, ENVIRONMENT_BASELINE_FILE);
  return existsSync(file) ? parseEnvironmentBaseline(read(file), file) : undefined;
}
