// A judge's rate limit kept in the database (`judge_rate_limits`, one row per key) for every process that uses
// it: GCRA in one INSERT … ON CONFLICT DO UPDATE … RETURNING per call (rate-limit/ holds the limiter). Not a
// member of Store: the limiter reaches the database through a pool of its own, and the in-memory store has no
// other process to share a limit with (one process's limit is the judge's own, judge/rate-limit.ts).
import type { Queryable } from "./db.ts";

/** How far a call moves a key on: the spacing of its request and of its tokens, and the burst it may take. */
export interface RateLimitCharge {
  /** Milliseconds a request takes of the limit (60 s / requests per minute; 0 without a request limit). */
  requestMs: number;
  /** Milliseconds the call's tokens take of the limit (0 without a token limit). */
  tokensMs: number;
  /** How far ahead of its time a call may go (a small burst tolerance). */
  burstMs: number;
}

export interface JudgeRateLimitRepository {
  /**
   * Takes a call's place on the key (its row is created on the key's first call): how many milliseconds
   * the caller waits before it may send. Every time is the server's (`now()`), so callers' clocks need not
   * agree.
   */
  acquire(key: string, charge: RateLimitCharge): Promise<number>;
  /** Holds every call on the key for `ms` from now (a 429's Retry-After); a shorter pause never shortens a longer one. */
  pause(key: string, ms: number): Promise<void>;
}

/**
 * A call's time is the latest of now, the key's pause and the theoretical arrival times of its next request
 * and token budget; the row moves both on and answers the wait, less the burst tolerance.
 * $1 key, $2 ms per request, $3 ms of the call's tokens, $4 burst tolerance in ms.
 */
const ACQUIRE = /* sql */ `
INSERT INTO judge_rate_limits AS l (key, requests_tat, tokens_tat)
VALUES ($1, now() + $2::float8 * interval '1 ms', now() + $3::float8 * interval '1 ms')
ON CONFLICT (key) DO UPDATE SET
  requests_tat = greatest(now(), l.requests_tat, l.tokens_tat, l.paused_until) + $2::float8 * interval '1 ms',
  tokens_tat = greatest(now(), l.requests_tat, l.tokens_tat, l.paused_until) + $3::float8 * interval '1 ms',
  updated_at = now()
RETURNING greatest(
  0,
  1000 * extract(epoch FROM greatest(
    requests_tat - $2::float8 * interval '1 ms' - $4::float8 * interval '1 ms',
    paused_until
  ) - now())
)::float8 AS wait_ms`;

/** $1 key, $2 the pause in ms. */
const PAUSE = /* sql */ `
INSERT INTO judge_rate_limits AS l (key, paused_until) VALUES ($1, now() + $2::float8 * interval '1 ms')
ON CONFLICT (key) DO UPDATE SET paused_until = greatest(l.paused_until, excluded.paused_until), updated_at = now()`;

export function judgeRateLimitRepository(db: Queryable): JudgeRateLimitRepository {
  return {
    async acquire(key, { requestMs, tokensMs, burstMs }) {
      const { rows } = await db.query<{ wait_ms: number }>(ACQUIRE, [key, requestMs, tokensMs, burstMs]);
      return Number(rows[0]?.wait_ms ?? 0);
    },
    async pause(key, ms) {
      await db.query(PAUSE, [key, ms]);
    },
  };
}
