// What each queued job of an evaluation spent (`queued_job_totals`: requests, calls, tokens, cache figures),
// so that the worker that completes a queued evaluation reports the sum of its jobs, not its own resume.
import type { Queryable } from "./db.ts";

export interface QueuedJobTotalsRepository {
  /** Keeps what a job (named by the calls it holds) spent; a job run again replaces its row. */
  record(evaluationId: string, job: string, totals: object): Promise<void>;
  /** What the evaluation's finished jobs spent, in job order (the sum is the caller's). */
  list(evaluationId: string): Promise<unknown[]>;
}

export function queuedJobTotalsRepository(db: Queryable): QueuedJobTotalsRepository {
  return {
    async record(evaluationId, job, totals) {
      await db.query(
        `INSERT INTO queued_job_totals (evaluation_id, job, totals) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (evaluation_id, job) DO UPDATE SET totals = excluded.totals, finished_at = now()`,
        [evaluationId, job, JSON.stringify(totals)],
      );
    },
    async list(evaluationId) {
      const { rows } = await db.query<{ totals: unknown }>(
        "SELECT totals FROM queued_job_totals WHERE evaluation_id = $1 ORDER BY job",
        [evaluationId],
      );
      return rows.map((r) => (typeof r.totals === "string" ? JSON.parse(r.totals) : r.totals));
    },
  };
}
