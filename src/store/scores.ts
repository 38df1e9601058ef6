// Verdict rows: one per (evaluation, verdict key), written in multi-row batches, never duplicated,
// and an errored verdict never carries a score (nor replaces a judged one).
import { randomUUID } from "node:crypto";
import { StoreError, type Verdict, type VerdictKey, verdictKeyString, verdictScore } from "../core/index.ts";
import { iso, isUuid } from "./columns.ts";
import type { Queryable } from "./db.ts";

/** `ok` judged; `errored` the judge failed (no score); `trivial` a false precondition made it hold (no judge). */
export type ScoreStatus = "ok" | "errored" | "trivial";

/**
 * A verdict to store, under its verdict key (core's VerdictKey: dimension, proposition, target, trial).
 * Agent verdicts belong to a run; environment (per-channel) verdicts have none.
 */
export interface ScoreInput extends VerdictKey {
  evaluation_id: string;
  evaluation_run_id?: string | null;
  status: ScoreStatus;
  /** 0–9 after `inverted` and `hard`; null when errored and for counts. */
  score?: number | null;
  /** The judge's 0–9 before `inverted` and `hard`. */
  raw_score?: number | null;
  /** Ideas quantity: the number of distinct ideas, and the ideas. */
  count?: number | null;
  ideas?: readonly string[] | null;
  weight?: number;
  inverted?: boolean;
  hard?: boolean;
  reasoning?: string;
  context_snippet?: string;
  /** Why the verdict errored: `JudgeError: timed out after 30000 ms`. */
  error?: string;
}

export interface ScoreRow {
  id: string;
  evaluation_id: string;
  evaluation_run_id: string | null;
  dimension: string;
  proposition_id: string;
  agent_id: string | null;
  message_id: string | null;
  channel: string | null;
  trial: number;
  /** The canonical key text (core's verdictKeyString); unique within an evaluation. */
  verdict_key: string;
  status: ScoreStatus;
  score: number | null;
  raw_score: number | null;
  count: number | null;
  ideas: string[] | null;
  weight: number | null;
  inverted: boolean | null;
  hard: boolean | null;
  reasoning: string;
  context_snippet: string | null;
  error: string | null;
  created_at: string;
}

export interface ScoreRepository {
  /** Writes verdicts now, in multi-row batches. Re-writing a key replaces it, unless that would put an error over a judged verdict. */
  write(rows: readonly ScoreInput[]): Promise<number>;
  /** Every verdict of an evaluation, optionally of one run or dimension. */
  forEvaluation(evaluationId: string, options?: { run?: string; dimension?: string }): Promise<ScoreRow[]>;
  /**
   * Verdict keys already stored with a result (ok or trivial), which a resume need not judge again; with
   * `among`, only those of these keys (a queued chunk's: reading all of an evaluation's keys for each of its
   * chunks would grow with its square).
   */
  existingKeys(evaluationId: string, among?: readonly string[]): Promise<Set<string>>;
  /** How many verdicts of each status an evaluation has. */
  summary(evaluationId: string): Promise<Record<ScoreStatus, number>>;
  /**
   * Copies every verdict of one evaluation to another (new ids, written now), each agent's to the target's
   * run of the same agent, in one statement: all or nothing. Refused (a StoreError, nothing written) when a
   * verdict's agent has no run in the target. Returns the rows copied.
   */
  copy(fromEvaluationId: string, toEvaluationId: string): Promise<number>;
}

/** Rows per INSERT statement. */
export const SCORE_BATCH = 1_000;

/** The stored row of a judge's verdict, with the proposition's weight, inversion and hard flag applied. */
export function scoreFromVerdict(
  verdict: Verdict,
  {
    evaluation_id,
    evaluation_run_id = null,
    weight = 1,
    inverted = false,
    hard = false,
    context_snippet,
  }: {
    evaluation_id: string;
    evaluation_run_id?: string | null;
    weight?: number;
    inverted?: boolean;
    hard?: boolean;
    context_snippet?: string;
  },
): ScoreInput {
  // Built field by field rather than by spreading a shared base: one row per verdict, thousands a run.
  const { key } = verdict;
  const row: ScoreInput = {
    evaluation_id,
    evaluation_run_id,
    dimension: key.dimension,
    proposition_id: key.proposition_id,
    trial: key.trial,
    status: "ok",
    weight,
    inverted,
    hard,
    context_snippet,
  };
  if (key.agent_id !== undefined) row.agent_id = key.agent_id;
  if (key.message_id !== undefined) row.message_id = key.message_id;
  if (key.channel !== undefined) row.channel = key.channel;
  if (!verdict.ok) {
    row.status = "errored";
    row.reasoning = "";
    row.error = `${verdict.error.name}: ${verdict.error.message}`;
    return row;
  }
  if (verdict.trivial) row.status = "trivial";
  row.raw_score = verdict.score ?? null;
  row.score = verdict.score === undefined ? null : verdictScore(verdict.score, { inverted, hard });
  row.count = verdict.count ?? null;
  row.ideas = verdict.ideas ?? null;
  row.reasoning = verdict.reasoning;
  return row;
}

// A batch travels as one array per column, unnested into rows: one round trip, no parameter-count limit,
// the same SQL on both drivers, and about twice as fast as one jsonb document per batch (no JSON to
// encode, and PostgreSQL reads arrays faster than it expands jsonb into records). `ideas` goes as JSON
// text. The evaluation and run ids, a handful per batch, go once each with a per-row position ($1-$4):
// a uuid costs more to send and parse than a small integer. A column that is NULL on every row goes as
// one NULL (unnest pads it). Row ids are made here: PGlite's gen_random_uuid() opens /dev/urandom once
// per row, which cost more than the rest of the insert. An errored verdict never replaces a judged one
// (a late retry failure after a success, or a resume racing a writer). A batch known to hold only new keys
// (a new evaluation's) may go as a plain INSERT, which skips the conflict check of every row; a key that
// turns out to be stored fails it with a unique violation (see createScoreWriter).
const INSERT = `
INSERT INTO evaluation_scores
  (id, evaluation_id, evaluation_run_id, dimension, proposition_id, agent_id, message_id, channel, trial,
   verdict_key, status, score, raw_score, count, ideas, weight, inverted, hard, reasoning, context_snippet, error)
SELECT id, ($1::uuid[])[evaluation], ($3::uuid[])[run], dimension, proposition_id, agent_id, message_id,
       channel, trial, verdict_key, status, score, raw_score, count, ideas::jsonb, weight, inverted, hard,
       reasoning, context_snippet, error
  FROM unnest($2::integer[], $4::integer[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
              $10::integer[], $11::text[], $12::text[], $13::real[], $14::real[], $15::integer[], $16::text[],
              $17::real[], $18::boolean[], $19::boolean[], $20::text[], $21::text[], $22::text[], $23::uuid[])
    AS x(evaluation, run, dimension, proposition_id, agent_id, message_id, channel, trial,
         verdict_key, status, score, raw_score, count, ideas, weight, inverted, hard, reasoning,
         context_snippet, error, id)`;

// A verdict key already stored replaces the stored verdict, unless that would put an error over a result.
const UPSERT = `${INSERT}
ON CONFLICT (evaluation_id, verdict_key) DO UPDATE SET
  evaluation_run_id = excluded.evaluation_run_id, status = excluded.status, score = excluded.score,
  raw_score = excluded.raw_score, count = excluded.count, ideas = excluded.ideas, weight = excluded.weight,
  inverted = excluded.inverted, hard = excluded.hard, reasoning = excluded.reasoning,
  context_snippet = excluded.context_snippet, error = excluded.error, created_at = now()
WHERE evaluation_scores.status = 'errored' OR excluded.status <> 'errored'`;

/** A number column's value: SQL NULL for a missing or non-finite number, as a JSON encoding would give. */
function num(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : value;
}

/** A batch's rows by verdict key: the last verdict of each key, an error never over a result. */
export function lastVerdictPerKey(rows: readonly ScoreInput[]): Map<string, ScoreInput> {
  const byKey = new Map<string, ScoreInput>();
  for (const row of rows) {
    const key = verdictKeyString(row);
    const earlier = byKey.get(key);
    if (earlier && earlier.status !== "errored" && row.status === "errored") continue;
    byKey.set(key, row);
  }
  return byKey;
}

/**
 * Writes one batch (any size up to SCORE_BATCH is sensible) in one statement; returns rows written. With
 * `onlyNew`, a stored key fails the whole statement with a unique violation instead of being replaced.
 */
export async function writeScoreBatch(
  db: Queryable,
  rows: readonly ScoreInput[],
  { onlyNew = false }: { onlyNew?: boolean } = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  // One statement may not touch a row twice.
  const byKey = lastVerdictPerKey(rows);
  // The distinct ids, and one array per other column, in the order of UPSERT's parameters.
  const evaluations = new Positions();
  const runs = new Positions();
  const columns: unknown[][] = Array.from({ length: 21 }, () => []);
  for (const [verdict_key, r] of byKey) {
    // A failed judgement has no score, whatever the caller passed.
    const errored = r.status === "errored";
    const values = [
      evaluations.of(r.evaluation_id),
      r.evaluation_run_id ? runs.of(r.evaluation_run_id) : null,
      r.dimension,
      r.proposition_id,
      r.agent_id ?? null,
      r.message_id ?? null,
      r.channel ?? null,
      num(r.trial),
      verdict_key,
      r.status,
      errored ? null : num(r.score),
      errored ? null : num(r.raw_score),
      errored ? null : num(r.count),
      r.ideas === null || r.ideas === undefined ? null : JSON.stringify(r.ideas),
      num(r.weight),
      r.inverted ?? null,
      r.hard ?? null,
      r.reasoning ?? "",
      r.context_snippet ?? null,
      r.error ?? null,
      randomUUID(),
    ];
    for (let c = 0; c < values.length; c++) columns[c]!.push(values[c]);
  }
  const params = columns.map((column) => (column.every((v) => v === null) ? null : column));
  params.splice(0, 0, evaluations.values);
  params.splice(2, 0, runs.values);
  const result = await db.query(onlyNew ? INSERT : UPSERT, params);
  return result.rowCount;
}

/** Whether a database error is a unique violation (SQLSTATE 23505), wrapped or not. */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error; e instanceof Error; e = e.cause)
    if ((e as { code?: unknown }).code === "23505") return true;
  return false;
}

/** Distinct values and their 1-based positions, for the id columns of a batch. */
class Positions {
  readonly values: string[] = [];
  private readonly index = new Map<string, number>();
  of(value: string): number {
    let at = this.index.get(value);
    if (at === undefined) this.index.set(value, (at = this.values.push(value)));
    return at;
  }
}

type Raw = Omit<ScoreRow, "created_at"> & { created_at: Date | string };

export function scoreRepository(db: Queryable): ScoreRepository {
  return {
    async write(rows) {
      let written = 0;
      for (let i = 0; i < rows.length; i += SCORE_BATCH)
        written += await writeScoreBatch(db, rows.slice(i, i + SCORE_BATCH));
      return written;
    },
    async forEvaluation(evaluationId, { run, dimension } = {}) {
      if (!isUuid(evaluationId) || (run !== undefined && !isUuid(run))) return [];
      const result = await db.query<Raw>(
        `SELECT * FROM evaluation_scores
          WHERE evaluation_id = $1 AND ($2::uuid IS NULL OR evaluation_run_id = $2) AND ($3::text IS NULL OR dimension = $3)
          ORDER BY dimension, proposition_id, agent_id NULLS FIRST, channel NULLS FIRST, message_id NULLS FIRST, trial`,
        [evaluationId, run ?? null, dimension ?? null],
      );
      return result.rows.map((r) => ({ ...r, created_at: iso(r.created_at) }));
    },
    async existingKeys(evaluationId, among) {
      if (!isUuid(evaluationId) || among?.length === 0) return new Set();
      const result = await db.query<{ verdict_key: string }>(
        among
          ? "SELECT verdict_key FROM evaluation_scores WHERE evaluation_id = $1 AND verdict_key = ANY($2::text[]) AND status <> 'errored'"
          : "SELECT verdict_key FROM evaluation_scores WHERE evaluation_id = $1 AND status <> 'errored'",
        among ? [evaluationId, among] : [evaluationId],
      );
      return new Set(result.rows.map((r) => r.verdict_key));
    },
    async copy(from, to) {
      if (!isUuid(from) || !isUuid(to)) return 0;
      const runs = `FROM evaluation_scores s
           LEFT JOIN evaluation_runs o ON o.id = s.evaluation_run_id
           LEFT JOIN evaluation_runs n ON n.evaluation_id = $2::uuid AND n.agent_id = o.agent_id
          WHERE s.evaluation_id = $1::uuid`;
      const orphan = await db.query<{ verdict_key: string }>(
        `SELECT s.verdict_key ${runs} AND s.evaluation_run_id IS NOT NULL AND n.id IS NULL LIMIT 1`,
        [from, to],
      );
      if (orphan.rows[0])
        throw new StoreError(
          `score "${orphan.rows[0].verdict_key}" of evaluation ${from} has no run of its agent in evaluation ${to}`,
        );
      const result = await db.query(
        `INSERT INTO evaluation_scores (id, evaluation_id, evaluation_run_id, dimension, proposition_id, agent_id,
           message_id, channel, trial, verdict_key, status, score, raw_score, count, ideas, weight, inverted, hard,
           reasoning, context_snippet, error)
         SELECT gen_random_uuid(), $2::uuid, n.id, s.dimension, s.proposition_id, s.agent_id, s.message_id, s.channel,
                s.trial, s.verdict_key, s.status, s.score, s.raw_score, s.count, s.ideas, s.weight, s.inverted, s.hard,
                s.reasoning, s.context_snippet, s.error
           ${runs}`,
        [from, to],
      );
      return result.rowCount;
    },
    async summary(evaluationId) {
      const counts: Record<ScoreStatus, number> = { ok: 0, errored: 0, trivial: 0 };
      if (!isUuid(evaluationId)) return counts;
      const result = await db.query<{ status: ScoreStatus; n: number }>(
        "SELECT status, count(*)::integer AS n FROM evaluation_scores WHERE evaluation_id = $1 GROUP BY status",
        [evaluationId],
      );
      for (const r of result.rows) counts[r.status] = r.n;
      return counts;
    },
  };
}
