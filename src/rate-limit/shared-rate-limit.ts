// A judge's rate limit shared by every process through PostgreSQL: the limiter of each key keeps its place
// in the store's `judge_rate_limits` (store/judge-rate-limits.ts: GCRA in one round trip per call). A call's
// time is the latest of now, the key's pause and the theoretical arrival times of its next request and token
// budget; the caller sleeps until its time, less a small burst tolerance. A 429's Retry-After moves the key's
// pause on, and every acquirer's time comes after it.
import type pg from "pg";
import { redactSecrets, redactUrl, StoreError } from "../core/index.ts";
import {
  type CreateJudgeOptions,
  checkRateLimit,
  type JudgeRateLimiter,
  RATE_LIMIT_BURST_MS,
  type RateLimit,
  type RateLimitBackend,
  sleepAbortably,
  spacingOf,
} from "../judge/index.ts";
import { type JudgeRateLimitRepository, judgeRateLimitRepository, type Queryable } from "../store/index.ts";

/**
 * Limits kept in a PostgreSQL database (the store's), shared by every process that uses it. A call's tokens
 * are charged at their estimate; the difference its real usage makes is carried by this process to the key's
 * next acquire, so a call still costs one round trip.
 */
export class SharedRateLimits implements RateLimitBackend {
  private readonly limits: () => Promise<JudgeRateLimitRepository>;
  /** Per key: tokens still to charge (or refund) from settled calls, sent with the next acquire. */
  private readonly owed = new Map<string, number>();
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    /** The database, or how to reach it when it is first needed. */
    db: Queryable | (() => Promise<Queryable>),
    { sleep = sleepAbortably }: { sleep?: (ms: number, signal?: AbortSignal) => Promise<void> } = {},
  ) {
    const reach = typeof db === "function" ? db : () => Promise.resolve(db);
    this.limits = async () => judgeRateLimitRepository(await reach());
    this.sleep = sleep;
  }

  limiter(key: string, limit: RateLimit): JudgeRateLimiter {
    const { perRequestMs, perTokenMs } = spacingOf(checkRateLimit(limit));
    return {
      acquire: async (tokens, signal) => {
        signal?.throwIfAborted();
        const owed = perTokenMs > 0 ? (this.owed.get(key) ?? 0) : 0;
        this.owed.delete(key);
        const limits = await this.limits();
        const wait = await limits.acquire(key, {
          requestMs: perRequestMs,
          tokensMs: (tokens + owed) * perTokenMs,
          burstMs: RATE_LIMIT_BURST_MS,
        });
        if (wait > 0) await this.sleep(wait, signal);
        let settled = false;
        return {
          settle: (used) => {
            if (settled || perTokenMs === 0) return;
            settled = true;
            this.owed.set(key, (this.owed.get(key) ?? 0) + used - tokens);
          },
        };
      },
      pause: async (ms) => {
        await (await this.limits()).pause(key, ms);
      },
    };
  }
}

/** Judge settings whose rate limit (`rateLimit`, else the settings' own) is kept in `db`, shared. */
export function withSharedRateLimit(
  settings: CreateJudgeOptions | undefined,
  rateLimit: RateLimit | undefined,
  db: Queryable,
): CreateJudgeOptions | undefined {
  const limit = rateLimit ?? settings?.rateLimit;
  if (!limit) return settings;
  return { ...settings, rateLimit: limit, rateLimits: settings?.rateLimits ?? new SharedRateLimits(db) };
}

const atLocations = new Map<string, SharedRateLimits>();

/**
 * The shared limits of the PostgreSQL database at `url`, for runs in one process (eval, session analyze…)
 * on a PostgreSQL store: one per URL and process, on a small pool of its own whose idle connections do not
 * keep the process alive.
 */
export function sharedRateLimitsAt(url: string): SharedRateLimits {
  let limits = atLocations.get(url);
  if (!limits) {
    let pool: Promise<Queryable> | undefined;
    limits = new SharedRateLimits(() => (pool ??= openLimitPool(url)));
    atLocations.set(url, limits);
  }
  return limits;
}

async function openLimitPool(url: string): Promise<Queryable> {
  // Loaded here, not at the top: importing dramaturg does not load pg.
  const { default: Pg } = await import("pg");
  const pool: pg.Pool = new Pg.Pool({
    connectionString: url,
    max: 4,
    allowExitOnIdle: true,
    idleTimeoutMillis: 5_000,
    application_name: "dramaturg-rate-limit",
  });
  pool.on("error", () => {});
  const fail = (error: unknown): never => {
    const detail = error instanceof Error ? error.message : String(error);
    throw new StoreError(
      redactSecrets(`the shared rate limit at ${redactUrl(url)} could not be reached: ${detail}`),
    );
  };
  return {
    query: async <T>(sql: string, params?: readonly unknown[]) => {
      const result = await pool.query(sql, params as unknown[]).catch(fail);
      return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
    },
    exec: async (sql) => {
      await pool.query(sql).catch(fail);
    },
  };
}
