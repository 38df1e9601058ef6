// The judge's rate limit as every command reads it from dramaturg.yaml (`judge.rate_limit`).
import { parseStoreLocation } from "../core/index.ts";
import type { JudgeSettings } from "../engine/index.ts";
import { deferredRateLimits } from "../judge/index.ts";
import type { Settings } from "./settings.ts";

/**
 * The judge's rate limit from the project file, kept where the store is: in a PostgreSQL store's database,
 * shared with every process using it (workers included), or else in this process. None without one.
 */
export function rateLimitSettingsOf(settings: Settings): Pick<JudgeSettings, "rateLimit" | "rateLimits"> {
  const limit = settings.judge.rate_limit;
  if (!limit) return {};
  const rateLimit = {
    requestsPerMinute: limit.requests_per_minute,
    tokensPerMinute: limit.tokens_per_minute,
  };
  if (parseStoreLocation(settings.db).kind !== "postgres") return { rateLimit };
  const url = settings.db;
  return {
    rateLimit,
    // pg and the shared limit load with the first call that waits for the limit.
    rateLimits: deferredRateLimits(async () =>
      (await import("../rate-limit/index.ts")).sharedRateLimitsAt(url),
    ),
  };
}
