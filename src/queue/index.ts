// Public surface of queue/: queued persona evaluations on pg-boss (PostgreSQL), and the workers that judge them.
export { jobExpirySeconds, openQueue, requireQueueStore } from "./boss.ts";
export { type EnqueueOptions, enqueuePersonaEvaluation, followEvaluation } from "./enqueue.ts";
export { CALLS_PER_JOB, type ChunkJob, ChunkJobSchema, chunksOf, PERSONA_CHUNKS } from "./jobs.ts";
export { type RunningWorker, startWorker, type WorkerEvent, type WorkerOptions } from "./worker.ts";
