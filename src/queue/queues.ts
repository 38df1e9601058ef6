// The pg-boss queues, one per kind of job, and how often a job of each that threw is tried again: what
// openQueue creates. Names and numbers only, so that the queue opens without loading the kinds (job-kinds.ts
// says how their jobs run).

/** The pg-boss queue of persona evaluation chunks. */
export const PERSONA_CHUNKS = "dramaturg-persona-chunks";

/** The pg-boss queue of session analysis chunks. */
export const SESSION_CHUNKS = "dramaturg-session-chunks";

/** The pg-boss queue of conversation jobs. */
export const CONVERSATION_JOBS = "dramaturg-conversations";

/** The pg-boss queue of experiments' environment runs. */
export const EXPERIMENT_ENVIRONMENTS = "dramaturg-experiment-environments";

/** The pg-boss queue of online rules' runs; each rule is a schedule on it, keyed by the rule's name. */
export const ONLINE_TICKS = "dramaturg-online";

/**
 * Attempts after a chunk's first that threw (a store or a bug, not a judge: a judge's failures are errored
 * verdicts, written like the others). The last one fails the evaluation, so that nothing waits for ever.
 */
export const CHUNK_RETRY_LIMIT = 3;

/**
 * Attempts after a conversation's first that threw (its setup, the simulated user's model, the store; an agent
 * that fails is part of the result, not a throw). A conversation is dear: two more, then it ends `failed`.
 */
export const CONVERSATION_RETRY_LIMIT = 2;

/** Attempts after an environment run's first that threw; the last one fails the experiment, with the reason. */
export const ENVIRONMENT_RETRY_LIMIT = 2;

/** Attempts after an online rule's run's first that threw (its window and sample are kept: it continues). */
export const ONLINE_RETRY_LIMIT = 2;

/** Every queue, as openQueue creates it. */
export const QUEUES: readonly { name: string; retryLimit: number }[] = [
  { name: PERSONA_CHUNKS, retryLimit: CHUNK_RETRY_LIMIT },
  { name: SESSION_CHUNKS, retryLimit: CHUNK_RETRY_LIMIT },
  { name: CONVERSATION_JOBS, retryLimit: CONVERSATION_RETRY_LIMIT },
  { name: EXPERIMENT_ENVIRONMENTS, retryLimit: ENVIRONMENT_RETRY_LIMIT },
  { name: ONLINE_TICKS, retryLimit: ONLINE_RETRY_LIMIT },
];
