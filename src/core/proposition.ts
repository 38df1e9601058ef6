// The proposition YAML format (seed 001): a set of claims about one dimension, judged 0–9 by an LLM.
import { z } from "zod";
import { PERSONA_DIMENSIONS, type PersonaDimension } from "./dimension.ts";

/** Window defaults for evaluating a whole trajectory (format doc, Trajectory Windowing Defaults). */
export const EVALUATION_WINDOW_DEFAULTS = Object.freeze({ first_n: 10, last_n: 100 });
/** Window defaults for judging a single proposed action (the action gate). */
export const ACTION_LEVEL_WINDOW_DEFAULTS = Object.freeze({ first_n: 5, last_n: 10 });

export const PropositionSpecSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, "an id of letters, digits, '-', '_', '.' or ':'"),
    claim: z.string().min(1, "a non-empty claim"),
    weight: z.number().min(0, "a weight of 0 or more").finite().default(1),
    inverted: z.boolean().default(false),
    recommendations_for_improvement: z.string().optional(),
  })
  .strict();

export const PropositionFileSchema = z
  .object({
    dimension: z.enum(PERSONA_DIMENSIONS),
    agent_id: z.string().min(1).optional(),
    include_personas: z.boolean().optional(),
    hard: z.boolean().optional(),
    target_type: z.enum(["agent", "environment"]).optional(),
    first_n: z.number().int().min(0).optional(),
    last_n: z.number().int().min(0).optional(),
    double_check: z.boolean().optional(),
    propositions: z.array(PropositionSpecSchema).default([]),
  })
  .strict();

export type PropositionSpec = z.infer<typeof PropositionSpecSchema>;
export type PropositionFile = z.infer<typeof PropositionFileSchema>;

/** What a precondition sees. Returning `false` makes the proposition trivially true (9, no judge call). */
export interface PreconditionContext {
  agentId?: string;
  channel?: string;
  messageId?: string;
  /** The message (action) being judged, if any. */
  action?: string;
  variables: Readonly<Record<string, string | undefined>>;
}

/** A proposition ready to judge. `precondition` is library API only (not in YAML). */
export interface Proposition extends PropositionSpec {
  precondition?: (context: PreconditionContext) => boolean | null | undefined;
}

/** A merged, resolved proposition set for one dimension (and one agent, or all agents). */
export interface PropositionSet {
  dimension: PersonaDimension;
  agent_id?: string;
  include_personas: boolean;
  hard: boolean;
  target_type: "agent" | "environment";
  first_n: number;
  last_n: number;
  double_check: boolean;
  propositions: Proposition[];
  /** Files (or `builtin:<dimension>`) the set was merged from, in order. */
  sources: string[];
  /** Hash of everything above that changes a score; two runs with different hashes are not comparable. */
  hash: string;
}
