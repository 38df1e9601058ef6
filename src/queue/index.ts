// Public surface of queue/: evaluations queued on pg-boss (PostgreSQL), and the workers that run their jobs.
export { jobExpirySeconds, openQueue, requireQueueStore } from "./boss.ts";
export { type EnqueueOptions, enqueuePersonaEvaluation, followEvaluation } from "./enqueue.ts";
export type { QueuedJobKind, WorkerContext } from "./job-kind.ts";
export { JOB_KINDS, jobKindsNamed } from "./job-kinds.ts";
export { CALLS_PER_JOB, type ChunkJob, ChunkJobSchema, chunksOf, PERSONA_CHUNKS } from "./jobs.ts";
export { CHUNK_RETRY_LIMIT } from "./persona-chunks.ts";
export { type RunningWorker, startWorker, type WorkerEvent, type WorkerOptions } from "./worker.ts";
