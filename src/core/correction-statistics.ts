// The action gate's statistics, as TinyTroupe's `get_statistics` keeps them, computed from correction logs
// (stored or in memory): the one implementation that the store, the gate and `corrections stats` share.
import {
  CORRECTION_OUTCOMES,
  type CorrectionLogEntry,
  type CorrectionOutcome,
  GATE_DIMENSIONS,
  type GateDimension,
} from "./correction.ts";
import { mean } from "./score.ts";
import { addUsage, type TokenUsage, ZERO_USAGE } from "./verdict.ts";

/** Mean and sample standard deviation of some scores; null when there are too few (SD needs two). */
export interface ScoreSpread {
  n: number;
  mean: number | null;
  sd: number | null;
}

/** One gate dimension over the logged checks (each log holds the committed attempt's judgements). */
export interface DimensionCorrectionStatistics extends ScoreSpread {
  /** Committed attempts that failed this dimension (mostly forced-through messages). */
  failures: number;
  /** Judgements that timed out and passed (fail-open). */
  timeouts: number;
  /** Judgements that errored and passed (fail-open). */
  errored: number;
}

export interface CorrectionStatistics {
  /** Gate checks: one per message that reached the gate. */
  checks: number;
  outcomes: Record<CorrectionOutcome, number>;
  /** Checks whose first attempt passed every enabled check (outcome `passed`). */
  original_successes: number;
  /** original_successes / checks; null without checks. */
  original_success_rate: number | null;
  /** Checks whose first attempt failed a check (the agent was asked to regenerate, if retries are on). */
  first_attempt_failures: number;
  /**
   * first_attempt_failures / checks; null without checks. TinyTroupe divides failed regenerations by
   * regenerations, which a log of committed attempts cannot count; this is the share of checks that needed one.
   */
  regeneration_failure_rate: number | null;
  /** Checks that committed a message no attempt of which passed (outcome `forced_through`). */
  forced_through: number;
  /** Checks whose message failed every attempt and was not sent (outcome `rejected`, continue_on_failure off). */
  rejected: number;
  dimensions: Record<GateDimension, DimensionCorrectionStatistics>;
  /** Similarity (0–1) of the committed attempts, and how many reached the agent's max_action_similarity. */
  similarity: ScoreSpread & { failures: number };
  /** The committed attempts' total scores (sum of their dimension scores). */
  total_score: ScoreSpread;
  token_usage: TokenUsage;
}

export interface CorrectionStatisticsOptions {
  /**
   * The similarity at or above which a check failed: one number, or an agent's own
   * (`max_action_similarity` of its settings). Default 0.6, TinyTroupe's.
   */
  maxActionSimilarity?: number | ((agentId: string) => number);
}

/** TinyTroupe's gate statistics over correction logs, in any order. */
export function correctionStatistics(
  logs: readonly CorrectionLogEntry[],
  { maxActionSimilarity = 0.6 }: CorrectionStatisticsOptions = {},
): CorrectionStatistics {
  const threshold = typeof maxActionSimilarity === "number" ? () => maxActionSimilarity : maxActionSimilarity;
  const outcomes = Object.fromEntries(CORRECTION_OUTCOMES.map((o) => [o, 0])) as Record<
    CorrectionOutcome,
    number
  >;
  const perDimension = Object.fromEntries(
    GATE_DIMENSIONS.map((d) => [d, { scores: [] as number[], failures: 0, timeouts: 0, errored: 0 }]),
  ) as Record<GateDimension, { scores: number[]; failures: number; timeouts: number; errored: number }>;
  const similarities: number[] = [];
  const totals: number[] = [];
  let similarityFailures = 0;
  let firstAttemptFailures = 0;
  let tokens: TokenUsage = { ...ZERO_USAGE };
  for (const log of logs) {
    outcomes[log.outcome]++;
    if (firstAttemptFailed(log)) firstAttemptFailures++;
    for (const dimension of GATE_DIMENSIONS) {
      const judged = log.dimension_scores[dimension];
      if (!judged) continue;
      const tally = perDimension[dimension];
      if (judged.score !== null && Number.isFinite(judged.score)) tally.scores.push(judged.score);
      if (!judged.passed) tally.failures++;
      if (judged.timed_out) tally.timeouts++;
      if (judged.errored) tally.errored++;
    }
    if (isNumber(log.similarity_score)) {
      similarities.push(log.similarity_score);
      if (log.similarity_score >= threshold(log.agent_id)) similarityFailures++;
    }
    if (isNumber(log.total_score)) totals.push(log.total_score);
    if (log.token_usage) tokens = addUsage(tokens, log.token_usage);
  }
  const checks = logs.length;
  const rate = (count: number) => (checks === 0 ? null : count / checks);
  return {
    checks,
    outcomes,
    original_successes: outcomes.passed,
    original_success_rate: rate(outcomes.passed),
    first_attempt_failures: firstAttemptFailures,
    regeneration_failure_rate: rate(firstAttemptFailures),
    forced_through: outcomes.forced_through,
    rejected: outcomes.rejected,
    dimensions: Object.fromEntries(
      GATE_DIMENSIONS.map((d) => {
        const { scores, ...counts } = perDimension[d];
        return [d, { ...scoreSpread(scores), ...counts }];
      }),
    ) as Record<GateDimension, DimensionCorrectionStatistics>,
    similarity: { ...scoreSpread(similarities), failures: similarityFailures },
    total_score: scoreSpread(totals),
    token_usage: tokens,
  };
}

/**
 * Whether the first attempt failed: any outcome but `passed`, except a first attempt that passed only
 * because a judge timed out (it failed nothing, and was never sent back).
 */
function firstAttemptFailed({ outcome, attempt_number }: CorrectionLogEntry): boolean {
  if (outcome === "passed") return false;
  if (outcome === "timeout_pass_through") return attempt_number > 1;
  return true;
}

function isNumber(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** Mean and sample standard deviation (n − 1, as TinyTroupe's `statistics.stdev`). */
export function scoreSpread(values: readonly number[]): ScoreSpread {
  const m = mean(values);
  if (m === null || values.length < 2) return { n: values.length, mean: m, sd: null };
  let squares = 0;
  for (const v of values) squares += (v - m) ** 2;
  return { n: values.length, mean: m, sd: Math.sqrt(squares / (values.length - 1)) };
}
