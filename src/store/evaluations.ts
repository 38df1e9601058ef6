// Evaluations: one row per invocation (persona now; session and conversation later), with its
// configuration, outcome, token usage and cache statistics.
import type { TokenUsage } from "../core/index.ts";
import { iso, isoOrNull, isUuid, jsonParam } from "./columns.ts";
import type { Db, Queryable } from "./db.ts";
import {
  COMPLETE,
  FAIL,
  finishOnceInProcess,
  INTERRUPT,
  type LifecycleStatus,
  START,
  transition,
  unfinished,
} from "./lifecycle.ts";
import type { CreatedRange, PageAfter } from "./page.ts";
import { documentColumn, documentOf } from "./stored-document.ts";

/**
 * `experiment` is a treatment-vs-control experiment (its result the experiment's document);
 * `experiment_environment` one arm's run of one of its environments (its result the environment's record);
 * `calibration` a judge compared with human labels (its result the `dramaturg.calibration/v1` document);
 * `validation` simulated answers held against real people's (its result the `dramaturg.validation/v1` document);
 * `drift` forked probes along conversations (its result the `dramaturg.drift/v1` document);
 * `redteam` attacks on a persona (its result the `dramaturg.redteam/v1` document).
 */
export type EvaluationKind =
  | "persona"
  | "session"
  | "conversation"
  | "simulation"
  | "experiment"
  | "experiment_environment"
  | "calibration"
  | "validation"
  | "drift"
  | "redteam";

/** Verdict-cache effect on one evaluation or run. */
export interface CacheStats {
  hits: number;
  misses: number;
  /** Tokens the hits would have cost. */
  saved_usage?: TokenUsage;
}

/**
 * The cache figures a rerun of an evaluation would report, kept when the cache will serve the rerun whole
 * although the evaluation itself judged (see CachingJudge.rerun): what lets its first rerun be reused.
 */
export interface RerunCacheStats {
  /** Judge requests the rerun makes, every one answered by the cache. */
  requests: number;
  hits: number;
  saved_calls: number;
  saved_usage: TokenUsage;
}

export interface EvaluationRow {
  id: string;
  kind: EvaluationKind;
  status: LifecycleStatus;
  /** Transcript path, or `store` when the messages were read from the store. */
  source: string;
  /** Judge (provider, model, temperature, mode, double_check, trials, prompt_version), dimensions, window… */
  config: Record<string, unknown>;
  /** The agents it evaluated, by id (a session's agents, a conversation's target); what lists filter by. */
  agents: string[];
  propositions_hash: string | null;
  errored: number;
  token_usage: TokenUsage | null;
  cache: CacheStats | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export interface NewEvaluation {
  /** Defaults to `persona`. */
  kind?: EvaluationKind;
  source: string;
  config?: Record<string, unknown>;
  propositions_hash?: string;
  /** The agents it evaluates, by id: what `list({ agent })` finds it by. */
  agents?: readonly string[];
  /** What was evaluated (a kind's own JSON: the transcript, the resolved propositions), for resume and show. */
  input?: unknown;
  /** A digest of everything that determines its verdicts (see EvaluationOfKind.fingerprint): what a reuse matches. */
  fingerprint?: string;
  /** The verdict cache's generation when it was created (see VerdictCacheRepository.generation). */
  cache_generation?: number;
}

export interface EvaluationOutcome {
  errored?: number;
  token_usage?: TokenUsage;
  cache?: CacheStats;
  /** The result document, kept so it can be printed again without judging (`dramaturg show`). */
  result?: unknown;
  /** What a rerun would be served by the cache, when it serves it whole (see RerunCacheStats). */
  rerun_cache?: RerunCacheStats;
}

export interface EvaluationRepository {
  create(evaluation: NewEvaluation): Promise<EvaluationRow>;
  /** pending → running. Also restarts a running (crashed) or failed evaluation, for resume. */
  start(id: string): Promise<EvaluationRow>;
  /** running → completed. */
  complete(id: string, outcome?: EvaluationOutcome): Promise<EvaluationRow>;
  /** pending | running → interrupted (stopped by the user; its scores kept for a resume). */
  interrupt(id: string): Promise<EvaluationRow>;
  /** pending | running → failed, keeping the error and whatever usage was spent. */
  fail(id: string, error: string, outcome?: EvaluationOutcome): Promise<EvaluationRow>;
  get(id: string): Promise<EvaluationRow | undefined>;
  /** The input stored with the evaluation (undefined when none was, e.g. by an older version). */
  input(id: string): Promise<unknown>;
  /** The result document stored on completion (undefined before, or when none was). */
  result(id: string): Promise<unknown>;
  /**
   * The newest completed evaluation of a kind with this fingerprint, created at this cache generation, with
   * no errored verdict and every verdict served by the cache (hits, no miss) or servable by it on a rerun
   * (`rerun_cache`, returned with it): one a rerun may reuse whole.
   */
  reusable(query: {
    kind: EvaluationKind;
    fingerprint: string;
    generation: number;
  }): Promise<(EvaluationRow & { rerun_cache: RerunCacheStats | null }) | undefined>;
  /**
   * Runs `finish` for a pending or running evaluation, by one caller at a time across every process on the
   * store: the one that takes the evaluation's lock `dramaturg:<scope>:<id>` without waiting (on PostgreSQL a
   * transaction-scoped advisory lock, released with its connection when its process dies). Undefined, without
   * running it, when another caller holds the lock (the holder finishes) or the evaluation has ended.
   */
  finishOnce<T>(id: string, scope: string, finish: () => Promise<T>): Promise<T | undefined>;
  /** Replaces the token usage and cache figures kept on an evaluation (a queued one's are its jobs' sum). */
  setUsage(id: string, usage: { token_usage: TokenUsage; cache: CacheStats | null }): Promise<void>;
  /** The newest evaluation of a kind that did not complete (pending, running or failed): what a resume continues. */
  latestIncomplete(kind: EvaluationKind): Promise<EvaluationRow | undefined>;
  /** Newest first; a page of them after `after` (the previous page's last row) and within `since`…`until`. */
  list(
    options?: {
      kind?: EvaluationKind;
      status?: LifecycleStatus;
      /** Only evaluations of this agent (one of their `agents`). */
      agent?: string;
      after?: PageAfter;
      limit?: number;
    } & CreatedRange,
  ): Promise<EvaluationRow[]>;
}

type Raw = Omit<EvaluationRow, "created_at" | "started_at" | "completed_at"> & {
  created_at: Date | string;
  started_at: Date | string | null;
  completed_at: Date | string | null;
};

const toRow = (r: Raw): EvaluationRow => ({
  ...r,
  created_at: iso(r.created_at),
  started_at: isoOrNull(r.started_at),
  completed_at: isoOrNull(r.completed_at),
});

// The row without the large documents (input, result), which only resume and show read.
const COLUMNS =
  "id, kind, status, source, config, agents, propositions_hash, errored, token_usage, cache, error, created_at, started_at, completed_at";

const OUTCOME = [
  "errored = COALESCE($3, errored)",
  "token_usage = COALESCE($4::jsonb, token_usage)",
  "cache = COALESCE($5::jsonb, cache)",
  "result = COALESCE($6, result)",
  "rerun_cache = COALESCE($7::jsonb, rerun_cache)",
];
const outcomeParams = async (o: EvaluationOutcome = {}) => [
  o.errored ?? null,
  jsonParam(o.token_usage),
  jsonParam(o.cache),
  await documentColumn(o.result),
  jsonParam(o.rerun_cache),
];

export function evaluationRepository(db: Db): EvaluationRepository {
  const held = new Set<string>();
  const move = async (id: string, args: Omit<Parameters<typeof transition>[1], "table" | "id">) =>
    toRow(await transition<Raw>(db, { table: "evaluations", id, returning: COLUMNS, ...args }));
  const document = async (id: string, column: "input" | "result") => {
    if (!isUuid(id)) return undefined;
    const result = await db.query<{ doc: string | null }>(
      `SELECT ${column} AS doc FROM evaluations WHERE id = $1`,
      [id],
    );
    return documentOf(result.rows[0]?.doc);
  };
  return {
    async create({
      kind = "persona",
      source,
      config = {},
      propositions_hash,
      agents = [],
      input,
      fingerprint,
      cache_generation,
    }) {
      const result = await db.query<Raw>(
        `INSERT INTO evaluations (kind, source, config, propositions_hash, input, agents, fingerprint, cache_generation)
         VALUES ($1, $2, $3::jsonb, $4, $5, $6::text[], $7, $8) RETURNING ${COLUMNS}`,
        [
          kind,
          source,
          JSON.stringify(config),
          propositions_hash ?? null,
          await documentColumn(input),
          [...new Set(agents)],
          fingerprint ?? null,
          cache_generation ?? null,
        ],
      );
      return toRow(result.rows[0]!);
    },
    start: (id) => move(id, START),
    interrupt: (id) => move(id, INTERRUPT),
    complete: async (id, outcome) =>
      move(id, {
        ...COMPLETE,
        set: [...OUTCOME, "completed_at = now()"],
        params: await outcomeParams(outcome),
      }),
    fail: async (id, error, outcome) =>
      move(id, {
        ...FAIL,
        set: [...OUTCOME, "error = $8", "completed_at = now()"],
        params: [...(await outcomeParams(outcome)), error],
      }),
    async get(id) {
      if (!isUuid(id)) return undefined;
      const result = await db.query<Raw>(`SELECT ${COLUMNS} FROM evaluations WHERE id = $1`, [id]);
      const row = result.rows[0];
      return row && toRow(row);
    },
    input: (id) => document(id, "input"),
    result: (id) => document(id, "result"),
    async reusable({ kind, fingerprint, generation }) {
      const result = await db.query<Raw & { rerun_cache: RerunCacheStats | null }>(
        `SELECT ${COLUMNS}, rerun_cache FROM evaluations
          WHERE fingerprint = $1 AND kind = $2 AND status = 'completed' AND cache_generation = $3
            AND errored = 0 AND result IS NOT NULL
            AND ((cache ->> 'misses')::integer = 0 AND (cache ->> 'hits')::integer > 0 OR rerun_cache IS NOT NULL)
          ORDER BY created_at DESC, id DESC LIMIT 1`,
        [fingerprint, kind, generation],
      );
      const row = result.rows[0];
      return row && { ...toRow(row), rerun_cache: row.rerun_cache };
    },
    async finishOnce(id, scope, finish) {
      if (!isUuid(id)) return undefined;
      const key = `dramaturg:${scope}:${id}`;
      const status = async (on: Queryable) =>
        (await on.query<{ status: LifecycleStatus }>("SELECT status FROM evaluations WHERE id = $1", [id]))
          .rows[0]?.status;
      if (db.dialect !== "postgres") return finishOnceInProcess(held, key, () => status(db), finish);
      return db.transaction(async (tx) => {
        const locked = await tx.query<{ locked: boolean }>(
          "SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked",
          [key],
        );
        if (!locked.rows[0]?.locked || !unfinished(await status(tx))) return undefined;
        return finish();
      });
    },
    async setUsage(id, { token_usage, cache }) {
      if (!isUuid(id)) return;
      await db.query("UPDATE evaluations SET token_usage = $2::jsonb, cache = $3::jsonb WHERE id = $1", [
        id,
        JSON.stringify(token_usage),
        jsonParam(cache),
      ]);
    },
    async latestIncomplete(kind) {
      const result = await db.query<Raw>(
        `SELECT ${COLUMNS} FROM evaluations WHERE kind = $1 AND status <> 'completed' ORDER BY created_at DESC, id DESC LIMIT 1`,
        [kind],
      );
      const row = result.rows[0];
      return row && toRow(row);
    },
    async list({ kind, status, agent, since, until, after, limit = 50 } = {}) {
      if (after !== undefined && !isUuid(after.id)) return [];
      // As runs' list: the cursor row's exact key, its given time only if it is gone.
      const result = await db.query<Raw>(
        `SELECT ${COLUMNS} FROM evaluations
          WHERE ($1::text IS NULL OR kind = $1) AND ($2::text IS NULL OR status = $2)
            AND ($8::text IS NULL OR agents @> ARRAY[$8::text])
            AND ($4::timestamptz IS NULL OR created_at >= $4::timestamptz)
            AND ($5::timestamptz IS NULL OR created_at <= $5::timestamptz)
            AND ($6::uuid IS NULL OR (created_at, id) <
                 (SELECT COALESCE(MAX(created_at), $7::timestamptz), $6::uuid FROM evaluations WHERE id = $6::uuid))
          ORDER BY created_at DESC, id DESC LIMIT $3`,
        [
          kind ?? null,
          status ?? null,
          limit,
          since ?? null,
          until ?? null,
          after?.id ?? null,
          after?.created_at ?? null,
          agent ?? null,
        ],
      );
      return result.rows.map(toRow);
    },
  };
}
