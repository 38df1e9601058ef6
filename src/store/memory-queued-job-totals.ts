// Queued jobs' totals of the in-memory store: the table of migration 10 as a map of evaluation → job → jsonb
// text. Nothing queues on memory:// (the queue needs PostgreSQL), but the repository keeps the contract.

import { StoreError } from "../core/index.ts";
import { isUuid } from "./columns.ts";
import { compareText, jsonbText, jsonOut } from "./memory-columns.ts";
import type { EvaluationRecord } from "./memory-runs.ts";
import type { QueuedJobTotalsRepository } from "./queued-job-totals.ts";

export function memoryQueuedJobTotals(
  evaluations: ReadonlyMap<string, EvaluationRecord>,
): QueuedJobTotalsRepository {
  /** evaluation id (lower case) → job → totals as jsonb text. */
  const table = new Map<string, Map<string, string>>();
  return {
    async record(evaluationId, job, totals) {
      const id = evaluationId.toLowerCase();
      if (!isUuid(evaluationId) || !evaluations.has(id))
        throw new StoreError(
          `job totals of evaluation ${evaluationId}: there is no such evaluation (foreign key violation)`,
        );
      let jobs = table.get(id);
      if (!jobs) table.set(id, (jobs = new Map()));
      jobs.set(job, jsonbText(totals) ?? "null");
    },
    async list(evaluationId) {
      const jobs = table.get(evaluationId.toLowerCase());
      if (!jobs) return [];
      return [...jobs.keys()].sort(compareText).map((job) => jsonOut(jobs.get(job)!));
    },
  };
}
