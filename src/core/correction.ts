// Runtime corrections' shared vocabulary: what the action gate records for every check (a correction
// log), and the per-agent settings that switch the gate, interventions and repetition suppression on.
import { z } from "zod";
import type { TokenUsage } from "./verdict.ts";

/** The dimensions the action gate can judge a tentative message on (TinyTroupe's quality checks). */
export const GATE_DIMENSIONS = ["adherence", "consistency", "fluency", "suitability"] as const;
export type GateDimension = (typeof GATE_DIMENSIONS)[number];

/**
 * How a gate check ended: the seed's five outcomes, and `rejected` (migration 6) for a message that failed
 * every attempt and was not sent because the agent's `continue_on_failure` is off.
 */
export const CORRECTION_OUTCOMES = [
  "passed",
  "corrected",
  "passed_after_retry",
  "forced_through",
  "timeout_pass_through",
  "rejected",
] as const;
export type CorrectionOutcome = (typeof CORRECTION_OUTCOMES)[number];

/** One dimension's judgement of one attempt; `timed_out` when the judge did not answer in time (fail-open). */
export interface GateDimensionScore {
  score: number | null;
  reasoning: string;
  passed: boolean;
  timed_out?: boolean;
  errored?: boolean;
}

/** One row of `correction_logs`: one gate check of one message, with the attempt that was committed. */
export interface CorrectionLogEntry {
  agent_id: string;
  /** The run (a world simulation) the message belongs to, when there is one. */
  run_id?: string | null;
  original_text: string;
  /** The committed text when it differs from the original (null when `rejected`: nothing was committed). */
  corrected_text?: string | null;
  dimension_scores: Partial<Record<GateDimension, GateDimensionScore>>;
  /** Highest word-token Jaccard similarity against the agent's recent messages, when checked. */
  similarity_score?: number | null;
  /** Sum of the committed attempt's dimension scores (best-attempt selection; similarity never added). */
  total_score?: number | null;
  /** 1-based: the attempt that was committed. */
  attempt_number: number;
  outcome: CorrectionOutcome;
  token_usage?: TokenUsage | null;
}

/**
 * What the corrections did in a world, for a one-line summary (a simulation's document keeps it): the gate's
 * checks and their outcomes, and the acts repetition suppression warned.
 */
export interface WorldCorrectionsSummary {
  /** Gate checks (messages judged; agents with every gate check off are not counted). */
  checks: number;
  outcomes: Record<CorrectionOutcome, number>;
  /** Messages not sent: no attempt passed and the agent's `continue_on_failure` is off (`outcomes.rejected`). */
  rejected: number;
  /** Acts that got the repetition-suppression thought. */
  repetitionWarnings: number;
}

/** A stored correction log row. */
export interface CorrectionLog extends CorrectionLogEntry {
  id: string;
  created_at: string;
}

/**
 * An agent's correction settings (the seed's `agent_evaluation_config`), everything off by default: which
 * runtime corrections (the action gate's checks, the interventions, repetition suppression) act on it, and
 * their thresholds. The one schema: the store's row, `dramaturg.yaml`'s `agents.<id>.corrections` and
 * `config agent set` all read it.
 */
export const CorrectionSettingsSchema = z
  .object({
    gate_adherence_enabled: z.boolean().default(false),
    gate_consistency_enabled: z.boolean().default(false),
    gate_fluency_enabled: z.boolean().default(false),
    gate_suitability_enabled: z.boolean().default(false),
    gate_adherence_threshold: z.number().min(0).max(9).default(7),
    gate_consistency_threshold: z.number().min(0).max(9).default(7),
    gate_fluency_threshold: z.number().min(0).max(9).default(7),
    gate_suitability_threshold: z.number().min(0).max(9).default(7),
    gate_similarity_enabled: z.boolean().default(false),
    max_action_similarity: z.number().min(0).max(1).default(0.6),
    max_correction_attempts: z.number().int().min(0).max(10).default(2),
    continue_on_failure: z.boolean().default(true),
    minimum_required_qty_of_actions: z.number().int().min(0).default(0),
    anti_convergence_enabled: z.boolean().default(false),
    convergence_threshold: z.number().min(0).max(1).default(0.6),
    variety_intervention_enabled: z.boolean().default(false),
    variety_message_threshold: z.number().int().min(1).default(7),
    repetition_suppression_enabled: z.boolean().default(false),
    repetition_threshold: z.number().min(0).max(1).default(0.3),
  })
  .strict();
export type CorrectionSettings = z.infer<typeof CorrectionSettingsSchema>;

/** The defaults: every correction off, TinyTroupe's thresholds. */
export const DEFAULT_CORRECTION_SETTINGS: Readonly<CorrectionSettings> = Object.freeze(
  CorrectionSettingsSchema.parse({}),
);

/** Some of an agent's correction settings. */
export type CorrectionSettingsPatch = Partial<CorrectionSettings>;

/**
 * Some of an agent's correction settings, none filled in: what `dramaturg.yaml` and `config agent set`
 * give. Each field is validated as in {@link CorrectionSettingsSchema}; unknown keys are refused.
 */
export const CorrectionSettingsPatchSchema = z
  .object(
    Object.fromEntries(
      Object.entries(CorrectionSettingsSchema.shape).map(([key, field]) => [
        key,
        field.removeDefault().optional(),
      ]),
    ),
  )
  .strict() as unknown as z.ZodType<CorrectionSettingsPatch, CorrectionSettingsPatch>;

/**
 * Whole settings from patches already checked (by {@link CorrectionSettingsPatchSchema} at their edge): each
 * patch's keys over the ones before it, over the defaults; a key a patch leaves undefined keeps the one below.
 * Not a parse: nothing is validated again. The keys come in the schema's order.
 */
export function correctionSettingsOf(
  ...patches: readonly (CorrectionSettingsPatch | undefined)[]
): CorrectionSettings {
  const settings: CorrectionSettings = { ...DEFAULT_CORRECTION_SETTINGS };
  for (const patch of patches)
    for (const [key, value] of Object.entries(patch ?? {}))
      if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
  return settings;
}
