// The seed's composite score of one pass: timing (1×), task performance (2×) and assertions (4×), less a
// penalty for failed requests to the agent. A job without assertions is scored on timing and tasks alone,
// and says so (the reference divides 0 by 0 there).

export interface AssertionOutcome {
  /** What was asserted, as written (the expression, the query). */
  label: string;
  weight: number;
  passed: boolean;
  /** The value it produced or read, for the report. */
  actual?: unknown;
  expected?: unknown;
  /** For a false expression: the part of it that was false (the first false operand of `&&`). */
  failed?: string;
  error?: string;
}

export interface CompositeInput {
  /** The aspired average response time, ms. */
  aspirationalAverage: number;
  /** The agent's response times of the pass, ms (the greeting's included, as the seed counts them). */
  latencies: readonly number[];
  /** Each task's score, 0–1; a task the scorer could not score is left out. */
  taskScores: readonly (number | null)[];
  assertions: readonly AssertionOutcome[];
  /** Failed attempts to reach the agent over the pass. */
  failures: number;
}

export interface Composite {
  timing: number | null;
  task: number | null;
  assertions: number | null;
  penalty: number;
  score: number | null;
  /** How the score was made: `(timing + 2·task + 4·assertions) / 7 − penalty`, or without assertions. */
  formula: "full" | "without-assertions";
}

/** `min(1, aspirational / actual average)`; null without a timed response. */
export function timingScore(aspirationalAverage: number, latencies: readonly number[]): number | null {
  if (latencies.length === 0) return null;
  const average = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  return average <= 0 ? 1 : Math.min(1, aspirationalAverage / average);
}

/** The weighted share of assertions that passed; null without assertions. */
export function assertionScore(outcomes: readonly AssertionOutcome[]): number | null {
  const total = outcomes.reduce((sum, a) => sum + a.weight, 0);
  if (outcomes.length === 0 || total === 0) return null;
  return outcomes.reduce((sum, a) => sum + (a.passed ? a.weight : 0), 0) / total;
}

/** `min(0.3 · failures, 0.5)`. */
export function failurePenalty(failures: number): number {
  return Math.min(0.3 * failures, 0.5);
}

export function compositeScore(input: CompositeInput): Composite {
  const timing = timingScore(input.aspirationalAverage, input.latencies);
  const scored = input.taskScores.filter((s): s is number => s !== null);
  const task = scored.length ? scored.reduce((a, b) => a + b, 0) / scored.length : null;
  const assertions = assertionScore(input.assertions);
  const penalty = failurePenalty(input.failures);
  const formula = assertions === null ? "without-assertions" : "full";
  // A part that could not be measured makes the composite unknown, never a silent 0.
  const score =
    timing === null || task === null
      ? null
      : assertions === null
        ? (timing + 2 * task) / 3 - penalty
        : (timing + 2 * task + 4 * assertions) / 7 - penalty;
  return { timing, task, assertions, penalty, score, formula };
}
