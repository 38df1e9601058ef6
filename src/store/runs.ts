// Evaluation runs: one agent, one trial of one evaluation; their lifecycle, baselines and history.
import { StoreError, type TokenUsage } from "../core/index.ts";
import { iso, isoOrNull, isUuid, jsonParam } from "./columns.ts";
import type { Queryable } from "./db.ts";
import type { CacheStats } from "./evaluations.ts";
import { COMPLETE, FAIL, INTERRUPT, type LifecycleStatus, START, transition } from "./lifecycle.ts";
import type { CreatedRange, PageAfter } from "./page.ts";

/** Who judged and how: two runs whose judges differ are not comparable. */
export interface RunJudge {
  provider: string;
  model: string;
  temperature?: number;
  mode: "individual" | "batch";
  double_check: boolean;
  prompt_version: string;
}

/** One dimension's result in a completed run. */
export interface StoredDimensionScore {
  /** Weighted 0–9 score (null when every proposition errored); null for ideas_quantity. */
  score: number | null;
  /** Ideas quantity only: the count. */
  count?: number | null;
  /** Propositions judged, and how many of them errored. */
  judged?: number;
  errored?: number;
}

export type DimensionScores = Record<string, StoredDimensionScore>;

export interface RunRow {
  id: string;
  agent_id: string;
  evaluation_id: string | null;
  status: LifecycleStatus;
  dimensions: string[];
  window_start: string | null;
  window_end: string | null;
  sample_size: number;
  overall_score: number | null;
  is_baseline: boolean;
  token_usage: TokenUsage | null;
  trial: number;
  errored: number;
  judge: RunJudge | null;
  propositions_hash: string | null;
  persona_hash: string | null;
  error: string | null;
  cache: CacheStats | null;
  dimension_scores: DimensionScores | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface NewRun {
  agent_id: string;
  evaluation_id?: string;
  dimensions: readonly string[];
  window_start?: string;
  window_end?: string;
  /** Messages (actions) evaluated. */
  sample_size: number;
  /** 1-based; defaults to 1. */
  trial?: number;
  judge?: RunJudge;
  propositions_hash?: string;
  /** Defaults to the agent's stored persona hash. */
  persona_hash?: string;
}

export interface RunOutcome {
  overall_score: number | null;
  dimension_scores: DimensionScores;
  errored?: number;
  token_usage?: TokenUsage;
  cache?: CacheStats;
}

/** One completed run's score on the history line of an agent. */
export interface HistoryPoint {
  run_id: string;
  evaluation_id: string | null;
  trial: number;
  /** The dimension's score, or the run's overall score when no dimension was asked for. */
  score: number | null;
  /** Ideas quantity only. */
  count: number | null;
  errored: number;
  is_baseline: boolean;
  judge: RunJudge | null;
  propositions_hash: string | null;
  persona_hash: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface RunRepository {
  create(run: NewRun): Promise<RunRow>;
  /** pending → running (also a running or failed run again, for resume). */
  start(id: string): Promise<RunRow>;
  /** running → completed, with the computed dimension scores. */
  complete(id: string, outcome: RunOutcome): Promise<RunRow>;
  /** pending | running → failed. */
  fail(id: string, error: string, outcome?: Partial<RunOutcome>): Promise<RunRow>;
  /** pending | running → interrupted (stopped by the user; resumable). */
  interrupt(id: string): Promise<RunRow>;
  get(id: string): Promise<RunRow | undefined>;
  /** Newest first; a page of them after `after` (the previous page's last row) and within `since`…`until`. */
  list(
    options?: {
      agent?: string;
      /**
       * Only runs of agents whose id or display name contains this text, ignoring case (the dashboard's
       * agent filter); `agent` stays the exact id the API and CLI mean.
       */
      agentMatch?: string;
      evaluation?: string;
      status?: LifecycleStatus;
      isBaseline?: boolean;
      /** Only runs that asked for this dimension. */
      dimension?: string;
      after?: PageAfter;
      limit?: number;
    } & CreatedRange,
  ): Promise<RunRow[]>;
  /**
   * Makes a completed run its agent's baseline. Its sibling trials (same evaluation and agent) join
   * it, since together they are one measurement; the agent's earlier baseline runs are unmarked.
   * Returns the runs now marked.
   */
  markBaseline(id: string): Promise<RunRow[]>;
  /**
   * An agent's completed runs, oldest first; the last `limit` of them when a limit is given, and only those
   * older than `before` (the oldest point of the page before: history pages walk back in time).
   */
  history(options: {
    agent: string;
    dimension?: string;
    limit?: number;
    before?: PageAfter;
  }): Promise<HistoryPoint[]>;
}

type Raw = Omit<RunRow, "window_start" | "window_end" | "created_at" | "started_at" | "completed_at"> & {
  window_start: Date | string | null;
  window_end: Date | string | null;
  created_at: Date | string;
  started_at: Date | string | null;
  completed_at: Date | string | null;
};

const toRow = (r: Raw): RunRow => ({
  ...r,
  window_start: isoOrNull(r.window_start),
  window_end: isoOrNull(r.window_end),
  created_at: iso(r.created_at),
  started_at: isoOrNull(r.started_at),
  completed_at: isoOrNull(r.completed_at),
});

/**
 * Whether an agent answers to a filter's text: its id or display name contains it, ignoring case. The
 * dashboard's agent filter everywhere, and `runs.list({ agentMatch })` in SQL and in memory alike.
 */
export function agentMatches(agent: { id: string; name: string }, text: string): boolean {
  const wanted = text.toLowerCase();
  return agent.id.toLowerCase().includes(wanted) || agent.name.toLowerCase().includes(wanted);
}

export function runRepository(db: Queryable): RunRepository {
  const move = async (id: string, args: Omit<Parameters<typeof transition>[1], "table" | "id">) =>
    toRow(await transition<Raw>(db, { table: "evaluation_runs", id, ...args }));
  return {
    async create(run) {
      const result = await db.query<Raw>(
        `INSERT INTO evaluation_runs
           (agent_id, evaluation_id, dimensions, window_start, window_end, sample_size, trial, judge,
            propositions_hash, persona_hash)
         VALUES ($1, $2, $3::text[], $4, $5, $6, $7, $8::jsonb, $9,
                 COALESCE($10, (SELECT persona_hash FROM agents WHERE id = $1)))
         RETURNING *`,
        [
          run.agent_id,
          run.evaluation_id ?? null,
          [...run.dimensions],
          run.window_start ?? null,
          run.window_end ?? null,
          run.sample_size,
          run.trial ?? 1,
          jsonParam(run.judge),
          run.propositions_hash ?? null,
          run.persona_hash ?? null,
        ],
      );
      return toRow(result.rows[0]!);
    },
    start: (id) => move(id, START),
    complete: (id, o) =>
      move(id, {
        ...COMPLETE,
        set: [
          "overall_score = $3",
          "dimension_scores = $4::jsonb",
          "errored = COALESCE($5, errored)",
          "token_usage = COALESCE($6::jsonb, token_usage)",
          "cache = COALESCE($7::jsonb, cache)",
          "completed_at = now()",
        ],
        params: [
          o.overall_score,
          jsonParam(o.dimension_scores),
          o.errored ?? null,
          jsonParam(o.token_usage),
          jsonParam(o.cache),
        ],
      }),
    interrupt: (id) => move(id, INTERRUPT),
    fail: (id, error, o = {}) =>
      move(id, {
        ...FAIL,
        set: [
          "error = $3",
          "dimension_scores = COALESCE($4::jsonb, dimension_scores)",
          "errored = COALESCE($5, errored)",
          "token_usage = COALESCE($6::jsonb, token_usage)",
          "completed_at = now()",
        ],
        params: [error, jsonParam(o.dimension_scores), o.errored ?? null, jsonParam(o.token_usage)],
      }),
    async get(id) {
      if (!isUuid(id)) return undefined;
      const result = await db.query<Raw>("SELECT * FROM evaluation_runs WHERE id = $1", [id]);
      const row = result.rows[0];
      return row && toRow(row);
    },
    async list({
      agent,
      agentMatch,
      evaluation,
      status,
      isBaseline,
      dimension,
      since,
      until,
      after,
      limit = 50,
    } = {}) {
      if (evaluation !== undefined && !isUuid(evaluation)) return [];
      if (after !== undefined && !isUuid(after.id)) return [];
      // The cursor row's own key, to the microsecond (an ISO string keeps milliseconds); its given time
      // only if it is gone.
      const result = await db.query<Raw>(
        `SELECT * FROM evaluation_runs
          WHERE ($1::text IS NULL OR agent_id = $1)
            AND ($2::uuid IS NULL OR evaluation_id = $2)
            AND ($3::text IS NULL OR status = $3)
            AND ($4::boolean IS NULL OR is_baseline = $4)
            AND ($6::text IS NULL OR $6::text = ANY(dimensions))
            AND ($7::timestamptz IS NULL OR created_at >= $7::timestamptz)
            AND ($8::timestamptz IS NULL OR created_at <= $8::timestamptz)
            AND ($11::text IS NULL OR agent_id IN (
                 SELECT id FROM agents
                  WHERE strpos(lower(id), lower($11::text)) > 0 OR strpos(lower(name), lower($11::text)) > 0))
            AND ($9::uuid IS NULL OR (created_at, trial, id) <
                 (SELECT COALESCE(MAX(created_at), $10::timestamptz), COALESCE(MAX(trial), 2147483647), $9::uuid
                    FROM evaluation_runs WHERE id = $9::uuid))
          ORDER BY created_at DESC, trial DESC, id DESC
          LIMIT $5`,
        [
          agent ?? null,
          evaluation ?? null,
          status ?? null,
          isBaseline ?? null,
          limit,
          dimension ?? null,
          since ?? null,
          until ?? null,
          after?.id ?? null,
          after?.created_at ?? null,
          agentMatch ?? null,
        ],
      );
      return result.rows.map(toRow);
    },
    async markBaseline(id) {
      if (!isUuid(id)) throw await missingRun(db, id);
      // One statement, so it is atomic without a transaction: the chosen run and its sibling trials
      // become the baseline; every other baseline run of the agent stops being one.
      const result = await db.query<Raw>(
        `UPDATE evaluation_runs r
            SET is_baseline = (r.id = t.id OR (COALESCE(r.evaluation_id = t.evaluation_id, false) AND r.status = 'completed'))
           FROM (SELECT id, agent_id, evaluation_id FROM evaluation_runs WHERE id = $1 AND status = 'completed') t
          WHERE r.agent_id = t.agent_id AND (r.is_baseline OR r.id = t.id OR r.evaluation_id = t.evaluation_id)
          RETURNING r.*`,
        [id],
      );
      if (result.rowCount === 0) throw await missingRun(db, id);
      return result.rows
        .filter((r) => r.is_baseline)
        .map(toRow)
        .sort((a, b) => a.trial - b.trial);
    },
    async history({ agent, dimension, limit, before }) {
      if (before !== undefined && !isUuid(before.id)) return [];
      const result = await db.query<
        Omit<HistoryPoint, "created_at" | "completed_at"> & {
          created_at: Date | string;
          completed_at: Date | string | null;
        }
      >(
        `SELECT * FROM (
           SELECT id AS run_id, evaluation_id, trial, errored, is_baseline, judge, propositions_hash, persona_hash,
                  created_at, completed_at,
                  CASE WHEN $2::text IS NULL THEN overall_score
                       ELSE (dimension_scores -> $2::text ->> 'score')::real END AS score,
                  (dimension_scores -> $2::text ->> 'count')::integer AS count
             FROM evaluation_runs
            WHERE agent_id = $1 AND status = 'completed'
              AND ($2::text IS NULL OR dimension_scores ? $2::text)
              AND ($4::uuid IS NULL OR (created_at, trial, id) <
                   (SELECT COALESCE(MAX(created_at), $5::timestamptz), COALESCE(MAX(trial), 2147483647), $4::uuid
                      FROM evaluation_runs WHERE id = $4::uuid))
            ORDER BY created_at DESC, trial DESC, id DESC
            LIMIT $3
         ) recent
         ORDER BY created_at, trial, run_id`,
        [agent, dimension ?? null, limit ?? null, before?.id ?? null, before?.created_at ?? null],
      );
      return result.rows.map((r) => ({
        ...r,
        created_at: iso(r.created_at),
        completed_at: isoOrNull(r.completed_at),
      }));
    },
  };
}

async function missingRun(db: Queryable, id: string): Promise<Error> {
  const status = isUuid(id)
    ? (await db.query<{ status: string }>("SELECT status FROM evaluation_runs WHERE id = $1", [id])).rows[0]
        ?.status
    : undefined;
  return new StoreError(
    status === undefined
      ? `run ${id} does not exist`
      : `run ${id} is ${status}; only a completed run can be a baseline`,
  );
}
