// The jobs of a queued evaluation: a chunk of its planned judge calls, named by the evaluation and the
// calls' indexes in its plan (the plan is rebuilt from the stored evaluation; no text travels in a job).
import { z } from "zod";

/** The pg-boss queue of persona evaluation chunks. */
export const PERSONA_CHUNKS = "dramaturg-persona-chunks";

/** Planned judge calls a job holds: enough that the queue's own cost (a fetch, a completion) is small beside them. */
export const CALLS_PER_JOB = 50;

export const ChunkJobSchema = z.object({
  /** The stored evaluation. */
  evaluation_id: z.string().uuid(),
  /** The first planned call (index in the plan's calls, in plan order) and how many follow it. */
  first: z.number().int().min(0),
  count: z.number().int().min(0),
  /** This job also gives the plan's trivial verdicts (the first job of an evaluation). */
  trivial: z.boolean(),
});
export type ChunkJob = z.infer<typeof ChunkJobSchema>;

/** The chunks of a plan of `calls` planned calls: at least one, so that an evaluation without calls completes too. */
export function chunksOf(evaluationId: string, calls: number, size = CALLS_PER_JOB): ChunkJob[] {
  const jobs: ChunkJob[] = [];
  for (let first = 0; first < Math.max(calls, 1); first += size)
    jobs.push({
      evaluation_id: evaluationId,
      first,
      count: Math.min(size, calls - first),
      trivial: first === 0,
    });
  return jobs;
}
