// Labels of the in-memory store, held to the SQL table's rules: the evaluation must exist, the checks of
// migration 12 (score 0–9, rater 1–64 characters, one kind of target), one label per target and rater.
import { randomUUID } from "node:crypto";
import { StoreError } from "../core/index.ts";
import { isUuid } from "./columns.ts";
import type { LabelInput, LabelRepository, LabelRow } from "./labels.ts";
import { clock, compareNullsFirst, compareText, isoAt } from "./memory-columns.ts";
import type { EvaluationRecord } from "./memory-runs.ts";

type LabelRecord = Omit<LabelRow, "created_at" | "updated_at"> & { created_at: number; updated_at: number };

const row = (r: LabelRecord): LabelRow => ({
  ...r,
  created_at: isoAt(r.created_at),
  updated_at: isoAt(r.updated_at),
});

/** The unique key of a label: its evaluation, target and rater (a missing column is one value, as NULLS NOT DISTINCT). */
const keyOf = (r: Omit<LabelRecord, "id" | "score" | "note" | "created_at" | "updated_at">) =>
  JSON.stringify([
    r.evaluation_id,
    r.dimension,
    r.proposition_id,
    r.agent_id,
    r.message_id,
    r.channel,
    r.rater,
  ]);

function check(label: LabelInput, evaluations: ReadonlyMap<string, EvaluationRecord>): void {
  const fail = (why: string): never => {
    throw new StoreError(`label of evaluation ${label.evaluation_id}: ${why}`);
  };
  if (!isUuid(label.evaluation_id) || !evaluations.has(label.evaluation_id.toLowerCase()))
    fail("there is no such evaluation (foreign key violation)");
  if (!Number.isInteger(label.score) || label.score < 0 || label.score > 9)
    fail(`score ${label.score} is not a whole number from 0 to 9 (check violation)`);
  const raterLength = [...label.rater].length;
  if (raterLength < 1 || raterLength > 64) fail("the rater must have 1 to 64 characters (check violation)");
  if (label.dimension === "" || label.proposition_id === "")
    fail("dimension and proposition_id must not be empty (check violation)");
  const agent = label.agent_id ?? null;
  const channel = label.channel ?? null;
  if ((channel === null) !== (agent !== null) || ((label.message_id ?? null) !== null && agent === null))
    fail("a label targets a channel alone, or an agent with or without a message (check violation)");
}

export function memoryLabels(evaluations: ReadonlyMap<string, EvaluationRecord>): LabelRepository {
  const table = new Map<string, LabelRecord>();
  const ofEvaluation = (evaluationId: string) => {
    if (!isUuid(evaluationId)) return [];
    const id = evaluationId.toLowerCase();
    return [...table.values()].filter((r) => r.evaluation_id === id);
  };
  return {
    async save(label) {
      check(label, evaluations);
      const fields = {
        evaluation_id: label.evaluation_id.toLowerCase(),
        dimension: label.dimension,
        proposition_id: label.proposition_id,
        agent_id: label.agent_id ?? null,
        message_id: label.message_id ?? null,
        channel: label.channel ?? null,
        rater: label.rater,
      };
      const key = keyOf(fields);
      const now = clock();
      const stored = table.get(key);
      if (stored) {
        stored.score = label.score;
        stored.note = label.note ?? null;
        stored.updated_at = now;
        return row(stored);
      }
      const created: LabelRecord = {
        id: randomUUID(),
        ...fields,
        score: label.score,
        note: label.note ?? null,
        created_at: now,
        updated_at: now,
      };
      table.set(key, created);
      return row(created);
    },
    async forEvaluation(evaluationId, { rater } = {}) {
      return ofEvaluation(evaluationId)
        .filter((r) => rater === undefined || r.rater === rater)
        .sort(
          (a, b) =>
            compareText(a.dimension, b.dimension) ||
            compareText(a.proposition_id, b.proposition_id) ||
            compareNullsFirst(a.agent_id, b.agent_id) ||
            compareNullsFirst(a.channel, b.channel) ||
            compareNullsFirst(a.message_id, b.message_id) ||
            compareText(a.rater, b.rater),
        )
        .map(row);
    },
    async delete(id) {
      if (!isUuid(id)) return false;
      for (const [key, r] of table)
        if (r.id === id.toLowerCase()) {
          table.delete(key);
          return true;
        }
      return false;
    },
    async countByRater(evaluationId) {
      const counts = new Map<string, number>();
      for (const r of ofEvaluation(evaluationId)) counts.set(r.rater, (counts.get(r.rater) ?? 0) + 1);
      return [...counts].sort(([a], [b]) => compareText(a, b)).map(([rater, labels]) => ({ rater, labels }));
    },
  };
}
