// Verdict rows of the in-memory store. Each row is kept as one JSON text (a tuple, its status first), keyed
// by verdict key within its evaluation: about the size of the row's own text, where an object per row with
// twenty-odd fields would cost several times that. A ScoreRow is built only when a row is read.
import { randomUUID } from "node:crypto";
import { StoreError } from "../core/index.ts";
import { isUuid } from "./columns.ts";
import { clock, compareNullsFirst, compareText, isoAt, real } from "./memory-columns.ts";
import type { EvaluationRecord, RunRecord } from "./memory-runs.ts";
import type { ScoreBatchWriter } from "./score-writer.ts";
import {
  lastVerdictPerKey,
  SCORE_BATCH,
  type ScoreInput,
  type ScoreRepository,
  type ScoreRow,
  type ScoreStatus,
} from "./scores.ts";

/** One stored row: `[status, id, run, dimension, proposition, agent, message, channel, trial, score, raw, count, ideas, weight, inverted, hard, reasoning, snippet, error, created µs]`. */
type Tuple = [
  ScoreStatus,
  string,
  string | null,
  string,
  string,
  string | null,
  string | null,
  string | null,
  number | null,
  number | null,
  number | null,
  number | null,
  string[] | null,
  number | null,
  boolean | null,
  boolean | null,
  string,
  string | null,
  string | null,
  number,
];

/** The rows of each evaluation (by lower-case id), each by verdict key. */
export type ScoreTable = Map<string, Map<string, string>>;

// The status leads the tuple, so `["ok"`, `["errored"` and `["trivial"` tell it by one character.
const statusOf = (text: string): ScoreStatus =>
  text.charCodeAt(2) === 111 ? "ok" : text.charCodeAt(2) === 101 ? "errored" : "trivial";

/** As the SQL stores a number column: NULL for a missing or non-finite number. */
const num = (value: number | null | undefined): number | null =>
  value === null || value === undefined || !Number.isFinite(value) ? null : value;

export function scoreRow(evaluation_id: string, verdict_key: string, text: string): ScoreRow {
  const t = JSON.parse(text) as Tuple;
  return {
    id: t[1],
    evaluation_run_id: t[2],
    dimension: t[3],
    proposition_id: t[4],
    score: t[9],
    reasoning: t[16],
    context_snippet: t[17],
    created_at: isoAt(t[19]),
    evaluation_id,
    agent_id: t[5],
    message_id: t[6],
    channel: t[7],
    trial: t[8]!,
    status: t[0],
    raw_score: t[10],
    count: t[11],
    ideas: t[12],
    weight: t[13],
    inverted: t[14],
    hard: t[15],
    error: t[18],
    verdict_key,
  };
}

/** A unique violation, as the SQL reports one. */
const duplicate = (key: string, evaluationId: string) =>
  new StoreError(`score "${key}" of evaluation ${evaluationId} is already stored`, {
    cause: Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }),
  });

/** As `ORDER BY dimension, proposition_id, agent_id NULLS FIRST, channel NULLS FIRST, message_id NULLS FIRST, trial`. */
const scoreOrder = (a: ScoreRow, b: ScoreRow) =>
  compareText(a.dimension, b.dimension) ||
  compareText(a.proposition_id, b.proposition_id) ||
  compareNullsFirst(a.agent_id, b.agent_id) ||
  compareNullsFirst(a.channel, b.channel) ||
  compareNullsFirst(a.message_id, b.message_id) ||
  a.trial - b.trial;

/**
 * The in-memory batch writer: the SQL batch's semantics, all or nothing. The last verdict per key wins
 * (an error never over a result); every row written must name an evaluation that exists and, if any, a
 * run of that evaluation; a stored key is replaced (keeping its id) unless that puts an error over a
 * result, or with `onlyNew` fails the batch as a unique violation.
 */
export function memoryScoreBatchWriter(
  table: ScoreTable,
  evaluations: ReadonlyMap<string, EvaluationRecord>,
  runs: ReadonlyMap<string, RunRecord>,
): ScoreBatchWriter {
  return async (rows, { onlyNew = false } = {}) => {
    if (rows.length === 0) return 0;
    const byKey = lastVerdictPerKey(rows);
    // What the statement would write, checked whole before anything is stored.
    const writes: { evaluation: string; key: string; row: ScoreInput; id: string }[] = [];
    for (const [key, row] of byKey) {
      const evaluation = row.evaluation_id.toLowerCase();
      const stored = table.get(evaluation)?.get(key);
      if (stored !== undefined) {
        if (onlyNew) throw duplicate(key, row.evaluation_id);
        if (statusOf(stored) !== "errored" && row.status === "errored") continue;
      }
      const run = row.evaluation_run_id ? row.evaluation_run_id : null;
      const runRecord = run !== null && isUuid(run) ? runs.get(run.toLowerCase()) : undefined;
      if (
        !isUuid(row.evaluation_id) ||
        !evaluations.has(evaluation) ||
        (run !== null && runRecord?.evaluation_id !== evaluation)
      )
        throw new StoreError(
          `score "${key}" names evaluation ${row.evaluation_id} and run ${run ?? "none"}, which do not exist together`,
        );
      writes.push({ evaluation, key, row, id: stored === undefined ? randomUUID() : JSON.parse(stored)[1] });
    }
    const created = clock();
    for (const { evaluation, key, row: r, id } of writes) {
      let rowsOf = table.get(evaluation);
      if (!rowsOf) table.set(evaluation, (rowsOf = new Map()));
      // A failed judgement has no score, whatever the caller passed.
      const errored = r.status === "errored";
      const tuple: Tuple = [
        r.status,
        id,
        r.evaluation_run_id ? r.evaluation_run_id.toLowerCase() : null,
        r.dimension,
        r.proposition_id,
        r.agent_id ?? null,
        r.message_id ?? null,
        r.channel ?? null,
        num(r.trial),
        errored ? null : real(r.score),
        errored ? null : real(r.raw_score),
        errored ? null : num(r.count),
        r.ideas === null || r.ideas === undefined ? null : [...r.ideas],
        real(r.weight),
        r.inverted ?? null,
        r.hard ?? null,
        r.reasoning ?? "",
        r.context_snippet ?? null,
        r.error ?? null,
        created,
      ];
      rowsOf.set(key, JSON.stringify(tuple));
    }
    return writes.length;
  };
}

export function memoryScores(
  table: ScoreTable,
  write: ScoreBatchWriter,
  runs: ReadonlyMap<string, RunRecord>,
): ScoreRepository {
  const rowsOf = (evaluationId: string) =>
    isUuid(evaluationId) ? table.get(evaluationId.toLowerCase()) : undefined;
  return {
    async write(rows) {
      // Batch by batch, as the SQL repository writes them: each batch all or nothing.
      let written = 0;
      for (let i = 0; i < rows.length; i += SCORE_BATCH)
        written += await write(rows.slice(i, i + SCORE_BATCH));
      return written;
    },
    async forEvaluation(evaluationId, { run, dimension } = {}) {
      if (run !== undefined && !isUuid(run)) return [];
      const stored = rowsOf(evaluationId);
      if (!stored) return [];
      const evaluation = evaluationId.toLowerCase();
      const runId = run?.toLowerCase();
      const rows: ScoreRow[] = [];
      for (const [key, text] of stored) {
        const row = scoreRow(evaluation, key, text);
        if (
          (runId === undefined || row.evaluation_run_id === runId) &&
          (dimension === undefined || row.dimension === dimension)
        )
          rows.push(row);
      }
      return rows.sort(scoreOrder);
    },
    async existingKeys(evaluationId, among) {
      const keys = new Set<string>();
      const wanted = among && new Set(among);
      for (const [key, text] of rowsOf(evaluationId) ?? [])
        if (statusOf(text) !== "errored" && (!wanted || wanted.has(key))) keys.add(key);
      return keys;
    },
    async copy(from, to) {
      const source = rowsOf(from);
      if (!source || !isUuid(to)) return 0;
      const target = to.toLowerCase();
      // The target's run of each agent, as the SQL joins them.
      const runOf = new Map<string, string>();
      for (const r of runs.values())
        if (r.evaluation_id?.toLowerCase() === target) runOf.set(r.agent_id, r.id);
      const created = clock();
      const copied = new Map<string, string>();
      for (const [key, text] of source) {
        const t = JSON.parse(text) as Tuple;
        if (t[2] !== null) {
          const agent = runs.get(t[2])?.agent_id;
          const run = agent === undefined ? undefined : runOf.get(agent);
          if (run === undefined)
            throw new StoreError(
              `score "${key}" of evaluation ${from} has no run of its agent in evaluation ${to}`,
            );
          t[2] = run;
        }
        t[1] = randomUUID();
        t[19] = created;
        copied.set(key, JSON.stringify(t));
      }
      // Checked whole before anything is stored, as one statement is all or nothing.
      const existing = table.get(target);
      if (existing) for (const key of copied.keys()) if (existing.has(key)) throw duplicate(key, to);
      // Refused once the store is closed, as any write is.
      await write([], {});
      if (!existing) table.set(target, copied);
      else for (const [key, text] of copied) existing.set(key, text);
      return copied.size;
    },
    async summary(evaluationId) {
      const counts: Record<ScoreStatus, number> = { ok: 0, errored: 0, trivial: 0 };
      for (const text of rowsOf(evaluationId)?.values() ?? []) counts[statusOf(text)]++;
      return counts;
    },
  };
}
