// The gate's statistics: the shared ones over correction log rows (core's `correctionStatistics`, what the
// store and `corrections stats` compute), plus TinyTroupe's exact attempt-level counters when the entries
// carry every attempt, as the gate's own entries do (a stored row keeps only the committed attempt).
import {
  type CorrectionStatistics,
  type CorrectionStatisticsOptions,
  correctionStatistics,
  GATE_DIMENSIONS,
  type GateDimension,
  type ScoreSpread,
  scoreSpread,
} from "../core/index.ts";
import type { GateLogEntry } from "./correction-log.ts";

/** TinyTroupe's ActionGenerator counters, over every attempt of the checks that logged them. */
export interface AttemptStatistics {
  /** Checks whose entries carried their attempts (the others are left out here). */
  checks: number;
  /** Generations judged: originals and regenerations (TinyTroupe's `total_actions_produced`). */
  generations: number;
  regeneration_attempts: number;
  regeneration_failures: number;
  /** failures / regenerations; 0 with none (TinyTroupe's `regeneration_failure_rate`). */
  regeneration_failure_rate: number;
  /** Originals that passed their first check. */
  original_successes: number;
  /** TinyTroupe's definition: original successes / every generation (originals and regenerations). */
  original_success_rate: number;
  /** Attempts that failed each dimension (judged, under its threshold). */
  failures_per_dimension: Record<GateDimension, number>;
  /** Attempts too similar to the agent's recent messages. */
  similarity_failures: number;
  /** Each dimension's scores over every judged attempt. */
  scores: Record<GateDimension, ScoreSpread>;
  /** Totals of failed regenerations (TinyTroupe's `regeneration_scores`). */
  regeneration_scores: ScoreSpread;
}

export interface GateStatistics extends CorrectionStatistics {
  /** Attempt-level counters; null when no entry carried its attempts (stored rows). */
  attempts: AttemptStatistics | null;
}

/** Statistics over correction log entries: the row-level ones, and the attempt-level ones where known. */
export function gateStatistics(
  entries: readonly GateLogEntry[],
  options?: CorrectionStatisticsOptions,
): GateStatistics {
  const withAttempts = entries.filter((e) => e.attempts !== undefined);
  return {
    ...correctionStatistics(entries, options),
    attempts: withAttempts.length === 0 ? null : attemptStatistics(withAttempts),
  };
}

function attemptStatistics(entries: readonly GateLogEntry[]): AttemptStatistics {
  const failures = zeroes();
  const scoreLists = Object.fromEntries(GATE_DIMENSIONS.map((d) => [d, [] as number[]])) as Record<
    GateDimension,
    number[]
  >;
  const regenerationScores: number[] = [];
  let generations = 0;
  let regenerationFailures = 0;
  let originals = 0;
  let similarityFailures = 0;
  for (const entry of entries) {
    const attempts = entry.attempts!;
    generations += attempts.length;
    if (attempts[0]?.passed) originals++;
    for (const a of attempts) {
      if (a.attempt_number > 1 && !a.passed) {
        regenerationFailures++;
        regenerationScores.push(a.total_score);
      }
      if (!a.similarity_passed) similarityFailures++;
      for (const d of GATE_DIMENSIONS) {
        const s = a.dimension_scores[d];
        if (!s) continue;
        if (!s.passed) failures[d]++;
        if (s.score !== null) scoreLists[d].push(s.score);
      }
    }
  }
  const regenerations = generations - entries.length;
  return {
    checks: entries.length,
    generations,
    regeneration_attempts: regenerations,
    regeneration_failures: regenerationFailures,
    regeneration_failure_rate: regenerations === 0 ? 0 : regenerationFailures / regenerations,
    original_successes: originals,
    original_success_rate: generations === 0 ? 0 : originals / generations,
    failures_per_dimension: failures,
    similarity_failures: similarityFailures,
    scores: Object.fromEntries(GATE_DIMENSIONS.map((d) => [d, scoreSpread(scoreLists[d])])) as Record<
      GateDimension,
      ScoreSpread
    >,
    regeneration_scores: scoreSpread(regenerationScores),
  };
}

function zeroes(): Record<GateDimension, number> {
  return Object.fromEntries(GATE_DIMENSIONS.map((d) => [d, 0])) as Record<GateDimension, number>;
}
