// The action gate's log: one row per gate check (`correction_logs`), written in batches, read back newest
// first, and summarised as TinyTroupe's statistics.
import {
  type CorrectionLog,
  type CorrectionLogEntry,
  type CorrectionStatistics,
  type CorrectionStatisticsOptions,
  correctionStatistics,
} from "../core/index.ts";
import { iso, isUuid, jsonParam } from "./columns.ts";
import type { Queryable } from "./db.ts";
import type { PageAfter } from "./page.ts";

export interface CorrectionLogQuery {
  /** Only this agent's checks. */
  agent_id?: string;
  /** Only the checks of this run (a simulation's evaluation id). */
  run_id?: string;
  /** Only checks logged at or after this time (ISO 8601). */
  since?: string;
  /** Only checks logged at or before this time (ISO 8601). */
  until?: string;
  /** Only checks that scored this gate dimension. */
  dimension?: string;
  /** Only checks listed after this one (the last of the previous page). */
  after?: PageAfter;
  /** At most this many, the newest; all when absent. */
  limit?: number;
}

export interface CorrectionLogRepository {
  /** Stores gate checks, all in one statement; returns them as stored, in the order given. */
  add(entries: CorrectionLogEntry | readonly CorrectionLogEntry[]): Promise<CorrectionLog[]>;
  /** Stored checks, newest first (checks logged together: the last given first). */
  list(query?: CorrectionLogQuery): Promise<CorrectionLog[]>;
  /** {@link correctionStatistics} over the checks a query selects (its limit ignored). */
  statistics(
    query?: Omit<CorrectionLogQuery, "limit">,
    options?: CorrectionStatisticsOptions,
  ): Promise<CorrectionStatistics>;
}

/** The columns a correction log is read from (not `seq`, which only orders them). */
const COLUMNS = `id, agent_id, run_id, original_text, corrected_text, dimension_scores, similarity_score,
  total_score, attempt_number, outcome, token_usage, created_at`;

type Raw = Omit<CorrectionLog, "created_at" | "dimension_scores"> & {
  dimension_scores: CorrectionLog["dimension_scores"] | null;
  created_at: Date | string;
};

/** A stored row as the contract hands it out: every optional column present, null when not given. */
export function correctionLogRow(r: Raw): CorrectionLog {
  return {
    id: r.id,
    agent_id: r.agent_id,
    run_id: r.run_id ?? null,
    original_text: r.original_text,
    corrected_text: r.corrected_text ?? null,
    dimension_scores: r.dimension_scores ?? {},
    similarity_score: r.similarity_score ?? null,
    total_score: r.total_score ?? null,
    attempt_number: r.attempt_number,
    outcome: r.outcome,
    token_usage: r.token_usage ?? null,
    created_at: iso(r.created_at),
  };
}

export function correctionLogRepository(db: Queryable): CorrectionLogRepository {
  const list: CorrectionLogRepository["list"] = async ({
    agent_id,
    run_id,
    since,
    until,
    dimension,
    after,
    limit,
  } = {}) => {
    if (after !== undefined && !isUuid(after.id)) return [];
    // A page continues after the cursor row's exact (created_at, seq); its given time only if it is gone.
    const result = await db.query<Raw>(
      `SELECT ${COLUMNS} FROM correction_logs
        WHERE ($1::text IS NULL OR agent_id = $1)
          AND ($2::timestamptz IS NULL OR created_at >= $2::timestamptz)
          AND ($4::timestamptz IS NULL OR created_at <= $4::timestamptz)
          AND ($5::text IS NULL OR dimension_scores ? $5::text)
          AND ($8::text IS NULL OR run_id = $8::text)
          AND ($6::uuid IS NULL OR (created_at, seq) <
               (SELECT COALESCE(MAX(created_at), $7::timestamptz), COALESCE(MAX(seq), 9223372036854775807)
                  FROM correction_logs WHERE id = $6::uuid))
        ORDER BY created_at DESC, seq DESC
        LIMIT $3`,
      [
        agent_id ?? null,
        since ?? null,
        limit ?? null,
        until ?? null,
        dimension ?? null,
        after?.id ?? null,
        after?.created_at ?? null,
        run_id ?? null,
      ],
    );
    return result.rows.map(correctionLogRow);
  };
  return {
    async add(input) {
      const entries: readonly CorrectionLogEntry[] = Array.isArray(input)
        ? input
        : [input as CorrectionLogEntry];
      if (entries.length === 0) return [];
      const records = entries.map((e, position) => ({
        position,
        agent_id: e.agent_id,
        run_id: e.run_id ?? null,
        original_text: e.original_text,
        corrected_text: e.corrected_text ?? null,
        dimension_scores: e.dimension_scores,
        similarity_score: e.similarity_score ?? null,
        total_score: e.total_score ?? null,
        attempt_number: e.attempt_number,
        outcome: e.outcome,
        token_usage: e.token_usage ?? null,
      }));
      // Ordered by position, so that seq (newest first's tie-break) follows the order given.
      const result = await db.query<Raw>(
        `INSERT INTO correction_logs (agent_id, run_id, original_text, corrected_text, dimension_scores,
                                      similarity_score, total_score, attempt_number, outcome, token_usage)
         SELECT x.agent_id, x.run_id, x.original_text, x.corrected_text, x.dimension_scores,
                x.similarity_score, x.total_score, x.attempt_number, x.outcome, x.token_usage
           FROM jsonb_to_recordset($1::jsonb) AS x(position integer, agent_id text, run_id text,
                original_text text, corrected_text text, dimension_scores jsonb, similarity_score real,
                total_score real, attempt_number integer, outcome text, token_usage jsonb)
          ORDER BY x.position
         RETURNING ${COLUMNS}, seq`,
        [jsonParam(records)],
      );
      return (result.rows as (Raw & { seq: string | number })[])
        .sort((a, b) => Number(a.seq) - Number(b.seq))
        .map(correctionLogRow);
    },
    list,
    async statistics(query = {}, options) {
      return correctionStatistics(await list(query), options);
    },
  };
}
