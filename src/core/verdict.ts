// Verdicts: what the judge said about one proposition for one target, and how it is keyed.

/** Identifies one verdict. The most specific fixture match wins; `trial` separates repeated judgements. */
export interface VerdictKey {
  dimension: string;
  proposition_id: string;
  agent_id?: string;
  message_id?: string;
  channel?: string;
  /** 1-based trial number; N trials are N real judgements. */
  trial: number;
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  /** Of the input tokens, those the provider read from its prompt cache. Absent when none were reported. */
  cached_input_tokens?: number;
}

export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze({ input_tokens: 0, output_tokens: 0 });

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum: TokenUsage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
  };
  if (a.cached_input_tokens !== undefined || b.cached_input_tokens !== undefined)
    sum.cached_input_tokens = (a.cached_input_tokens ?? 0) + (b.cached_input_tokens ?? 0);
  return sum;
}

/** A judged verdict. Exactly one of score / count / value is set, by the request's kind. */
export interface VerdictOk {
  ok: true;
  key: VerdictKey;
  /** 0–9 raw score from the judge, before inversion and hard penalty. */
  score?: number;
  /** Number of distinct ideas (ideas quantity). */
  count?: number;
  ideas?: string[];
  /** Boolean checks (preconditions, interventions). */
  value?: boolean;
  reasoning: string;
  /** True when no judge was asked: the precondition was false, so the claim holds trivially. */
  trivial?: boolean;
}

/** A verdict the judge failed to give. It is recorded and counted, and never turned into a score. */
export interface VerdictErrored {
  ok: false;
  key: VerdictKey;
  error: { name: string; message: string };
}

export type Verdict = VerdictOk | VerdictErrored;

/** Canonical text of a key, used in messages and as the store's unique key. */
export function verdictKeyString(key: VerdictKey): string {
  const parts = [`${key.dimension}/${key.proposition_id}`];
  if (key.agent_id !== undefined) parts.push(`agent=${key.agent_id}`);
  if (key.channel !== undefined) parts.push(`channel=${key.channel}`);
  if (key.message_id !== undefined) parts.push(`message=${key.message_id}`);
  parts.push(`trial=${key.trial}`);
  return parts.join(" ");
}
