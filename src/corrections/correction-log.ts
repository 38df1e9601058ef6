// What the gate writes for every check: a `correction_logs` row, plus a summary of every attempt for the
// statistics (the row keeps only the committed one). An in-memory sink for tests and single processes.
import type { CorrectionLogEntry, GateDimension, GateDimensionScore } from "../core/index.ts";

/** One attempt of a check, as the statistics need it. */
export interface GateAttemptSummary {
  attempt_number: number;
  dimension_scores: Partial<Record<GateDimension, GateDimensionScore>>;
  similarity_score: number | null;
  similarity_passed: boolean;
  passed: boolean;
  total_score: number;
}

/**
 * A correction log entry as the gate emits it: the `correction_logs` columns, and `attempts`, every attempt
 * of the check (which a store may drop; statistics over stored rows then see only the committed attempt).
 */
export interface GateLogEntry extends CorrectionLogEntry {
  attempts?: GateAttemptSummary[];
  /** The judge calls of every attempt, as `token_usage` counts their tokens (not a stored column). */
  judge_calls?: number;
}

/** Where a gate sends its entries (a store repository, a file, memory). */
export type CorrectionLogSink = (entry: GateLogEntry) => void | Promise<void>;

/** An in-memory sink: `entries` holds every entry logged, oldest first. */
export function memoryCorrectionLog(): { entries: GateLogEntry[]; log: CorrectionLogSink } {
  const entries: GateLogEntry[] = [];
  return {
    entries,
    log(entry) {
      entries.push(entry);
    },
  };
}
