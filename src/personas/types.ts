// Shared shapes of the persona evaluation: what is judged (a plan), what came back, what it scores.
import type {
  Agent,
  Message,
  PersonaDimension,
  Proposition,
  PropositionSet,
  Transcript,
  VerdictKey,
} from "../core/index.ts";
import type {
  PlannedCall as EnginePlannedCall,
  PlannedTrivial as EnginePlannedTrivial,
  JudgePlan,
  PlannedVerdict,
} from "../engine/index.ts";

/** Where a verdict belongs: the proposition (and its set) and the target it was judged on. */
export interface ItemMeta {
  dimension: PersonaDimension;
  proposition: Proposition;
  set: PropositionSet;
  agentId?: string;
  channel?: string;
  messageId?: string;
  /** Short excerpt of what was judged (stored as the score's context snippet). */
  snippet?: string;
}

/** One judge call to make: items sharing one context. */
export type PlannedCall = EnginePlannedCall<ItemMeta>;

/** A verdict given without a judge call (precondition false → trivially true, score 9). */
export type PlannedTrivial = EnginePlannedTrivial<ItemMeta>;

export interface AgentScope {
  agent: Agent;
  /** The agent's messages within the time window, in order. */
  messages: Message[];
  /** The messages judged message by message (all of `messages`, or a seeded sample of them). */
  sampled: Message[];
}

export interface EvaluationPlan extends JudgePlan<ItemMeta> {
  transcript: Transcript;
  dimensions: PersonaDimension[];
  agents: AgentScope[];
  channels: string[];
  trials: number;
  mode: "individual" | "batch";
  /** The calls, produced afresh on every pass (contexts built only when a call asks for its own). */
  calls(): Iterable<PlannedCall>;
  trivial(): Iterable<PlannedTrivial>;
  /** Whether any call asks the judge to double-check (a pass over the calls only if a set in use asks). */
  doubleChecked(): boolean;
  /** Per agent and per channel: the algorithmic evidence shown to the judge and in reports. */
  evidence: { fluency: Map<string, string>; vocabulary: Map<string, string> };
}

/** A verdict together with where it belongs. */
export type ScoredVerdict = PlannedVerdict<ItemMeta>;

export type { VerdictKey };
