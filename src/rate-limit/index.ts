// Public surface of rate-limit/: a judge's rate limit shared by every process on one PostgreSQL store (workers
// and in-process runs alike). Above store/ and judge/ only, so that a command reaches it without the queue.
export { SharedRateLimits, sharedRateLimitsAt, withSharedRateLimit } from "./shared-rate-limit.ts";
