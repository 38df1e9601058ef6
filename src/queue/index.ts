// Public surface of queue/: evaluations queued on pg-boss (PostgreSQL), the workers that run their jobs, and
// the online rules' schedules and runs as jobs (the rules themselves are online/'s).
export { jobExpirySeconds, jobHeartbeatSeconds, openQueue, requireQueueStore } from "./boss.ts";
export { CONVERSATION_JOBS } from "./conversation-jobs.ts";
export {
  type EnqueueOptions,
  enqueuePersonaEvaluation,
  enqueueSessionAnalysis,
  followEvaluation,
  type QueuedProgress,
  queuedProgress,
} from "./enqueue.ts";
export {
  type EnqueueConversationsOptions,
  enqueueConversations,
  type FollowedConversation,
  followConversations,
  type QueuedConversation,
} from "./enqueue-conversations.ts";
export {
  type EnqueueExperimentOptions,
  enqueueExperiment,
  followExperiment,
  type QueuedExperiment,
} from "./enqueue-experiment.ts";
export { EXPERIMENT_ENVIRONMENTS } from "./experiment-jobs.ts";
export type { QueuedJobKind, WorkerContext } from "./job-kind.ts";
export { JOB_KINDS, jobKindsNamed } from "./job-kinds.ts";
export {
  CALLS_PER_JOB,
  CHUNK_RETRY_LIMIT,
  type ChunkJob,
  ChunkJobSchema,
  chunksOf,
  PERSONA_CHUNKS,
  SESSION_CHUNKS,
} from "./jobs.ts";
export { anyJobTaken } from "./jobs-taken.ts";
export {
  ONLINE_STATUS_FORMAT,
  type OnlineStatus,
  onlineStatus,
  runOnlineRuleNow,
  scheduleOnlineRules,
} from "./online-schedules.ts";
export { ONLINE_TICKS } from "./queues.ts";
export { type RunningWorker, startWorker, type WorkerEvent, type WorkerOptions } from "./worker.ts";
