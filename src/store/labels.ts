// People's labels of a persona evaluation's judged items (the `labels` table): one raw claim score 0–9 and a
// note per (evaluation, target, rater), saved again to change it. What the labelling page writes and the
// labels export reads.
import { randomUUID } from "node:crypto";
import { iso, isUuid } from "./columns.ts";
import type { Queryable } from "./db.ts";

/**
 * What a label is of: a proposition of a dimension on a message (agent and message), an agent as a whole
 * (agent alone) or a channel (channel alone), as the `dramaturg.labels/v1` format names it.
 */
export interface LabelTarget {
  dimension: string;
  proposition_id: string;
  agent_id?: string | null;
  message_id?: string | null;
  channel?: string | null;
}

export interface LabelInput extends LabelTarget {
  /** The persona evaluation whose item this is. */
  evaluation_id: string;
  /** Who labelled: 1–64 characters. */
  rater: string;
  /** The raw claim score, a whole number 0–9 (before an inverted claim is flipped). */
  score: number;
  note?: string | null;
}

export interface LabelRow {
  id: string;
  evaluation_id: string;
  dimension: string;
  proposition_id: string;
  agent_id: string | null;
  message_id: string | null;
  channel: string | null;
  rater: string;
  score: number;
  note: string | null;
  created_at: string;
  /** When the score or note was last saved. */
  updated_at: string;
}

export interface RaterCount {
  rater: string;
  labels: number;
}

export interface LabelRepository {
  /**
   * Saves a rater's label of a target: a second save of the same (evaluation, target, rater) replaces its
   * score and note, keeping its id and creation time. Refused (a StoreError, nothing written) for an
   * evaluation that does not exist, a score outside 0–9, a rater outside 1–64 characters, or a target that is
   * neither a channel alone nor an agent (with or without a message).
   */
  save(label: LabelInput): Promise<LabelRow>;
  /**
   * An evaluation's labels (or one rater's), sorted by target — dimension, proposition, agent, channel,
   * message, a missing one first, in code-point order — then by rater: the same order on every backend.
   */
  forEvaluation(evaluationId: string, options?: { rater?: string }): Promise<LabelRow[]>;
  /** Deletes one label by id; whether there was one. */
  delete(id: string): Promise<boolean>;
  /** How many labels each rater gave an evaluation, by rater (code-point order). */
  countByRater(evaluationId: string): Promise<RaterCount[]>;
}

type Raw = Omit<LabelRow, "created_at" | "updated_at"> & {
  created_at: Date | string;
  updated_at: Date | string;
};

const toRow = (r: Raw): LabelRow => ({ ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

// COLLATE "C": code-point order whatever the database's locale, as the memory store sorts.
const ORDER = `dimension COLLATE "C", proposition_id COLLATE "C", agent_id COLLATE "C" NULLS FIRST,
  channel COLLATE "C" NULLS FIRST, message_id COLLATE "C" NULLS FIRST, rater COLLATE "C"`;

export function labelRepository(db: Queryable): LabelRepository {
  return {
    async save(label) {
      const result = await db.query<Raw>(
        `INSERT INTO labels
           (id, evaluation_id, dimension, proposition_id, agent_id, message_id, channel, rater, score, note)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT ON CONSTRAINT labels_one_per_rater DO UPDATE
           SET score = excluded.score, note = excluded.note, updated_at = now()
         RETURNING *`,
        [
          randomUUID(),
          label.evaluation_id,
          label.dimension,
          label.proposition_id,
          label.agent_id ?? null,
          label.message_id ?? null,
          label.channel ?? null,
          label.rater,
          label.score,
          label.note ?? null,
        ],
      );
      return toRow(result.rows[0]!);
    },
    async forEvaluation(evaluationId, { rater } = {}) {
      if (!isUuid(evaluationId)) return [];
      const result = await db.query<Raw>(
        `SELECT * FROM labels WHERE evaluation_id = $1 AND ($2::text IS NULL OR rater = $2) ORDER BY ${ORDER}`,
        [evaluationId, rater ?? null],
      );
      return result.rows.map(toRow);
    },
    async delete(id) {
      if (!isUuid(id)) return false;
      const result = await db.query("DELETE FROM labels WHERE id = $1", [id]);
      return result.rowCount > 0;
    },
    async countByRater(evaluationId) {
      if (!isUuid(evaluationId)) return [];
      const result = await db.query<RaterCount>(
        `SELECT rater, count(*)::integer AS labels FROM labels WHERE evaluation_id = $1
          GROUP BY rater ORDER BY rater COLLATE "C"`,
        [evaluationId],
      );
      return result.rows;
    },
  };
}
