// A judge's rate limit: before each model call the LLM judge acquires a request and an estimate of its tokens
// from its key's limiter, settles the estimate with the call's real usage after it, and pauses the limiter
// when the provider answers 429 with Retry-After. Limits are kept per key (provider, model, a digest of the
// API key): here in this process's memory, or shared by every worker through PostgreSQL (rate-limit/).
import { createHash } from "node:crypto";
import { InputError } from "../core/index.ts";

/** A provider's limit on one key: requests and tokens per minute (at least one of them). */
export interface RateLimit {
  /** Most requests a minute (every call: retries and double-check turns included). */
  requestsPerMinute?: number;
  /** Most tokens a minute, input and output together (estimated before a call, settled after it). */
  tokensPerMinute?: number;
}

/** What a call got from its limiter; settled once the call's real usage is known. */
export interface RateLimitPermit {
  /** The tokens the call really used (input + output): the limit is charged the difference from the estimate. */
  settle(tokens: number): void;
}

/** One key's limiter, under one limit; every judge calling with the key shares what it keeps. */
export interface JudgeRateLimiter {
  /** Resolves once a request of about `tokens` tokens may be sent; rejects with `signal`'s reason. */
  acquire(tokens: number, signal?: AbortSignal): Promise<RateLimitPermit>;
  /** The provider asked to wait `ms` (429 Retry-After): nobody sharing the key is given a time before then. */
  pause(ms: number): Promise<void>;
}

/** Where limits are kept: this process's memory ({@link LocalRateLimits}) or a shared database. */
export interface RateLimitBackend {
  /** The limiter of `key` under `limit` (acquirers of one key may give different limits; each is spaced by its own). */
  limiter(key: string, limit: RateLimit): JudgeRateLimiter;
}

/**
 * How early a call may go before its exact slot: a small burst after an idle moment (at 3,000 requests a
 * minute, 5 requests and the first slot's) that spares each call a sleep's jitter, and that adds at most about
 * 1 % to a 10-second window at that limit.
 */
export const RATE_LIMIT_BURST_MS = 100;

/** Tokens of output assumed per claim before the answer is known (settled with the real usage after it). */
const ANSWER_TOKENS_PER_CLAIM = 128;

/**
 * The key a limit is kept under: provider, model and a digest (sha256, 16 hex digits) of the API key — never
 * the key. Judges on the same key share the limit, as the provider counts it.
 */
export function rateLimitKey(provider: string, model: string, apiKey = ""): string {
  const digest = createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
  return `${provider}:${model}:${digest}`;
}

/** A rate limit as given by a library caller: at least one positive whole number, or an InputError. */
export function checkRateLimit(limit: RateLimit): RateLimit {
  const { requestsPerMinute: requests, tokensPerMinute: tokens } = limit;
  for (const [name, value] of [
    ["requestsPerMinute", requests],
    ["tokensPerMinute", tokens],
  ] as const)
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      throw new InputError(`rateLimit.${name} must be a whole number of at least 1, got ${value}`);
  if (requests === undefined && tokens === undefined)
    throw new InputError("rateLimit needs requestsPerMinute, tokensPerMinute or both");
  return limit;
}

/** The tokens a call is expected to use: its prompt at about four characters a token, and its answers. */
export function estimateTokens(promptCharacters: number, claims = 1): number {
  return Math.ceil(promptCharacters / 4) + ANSWER_TOKENS_PER_CLAIM * Math.max(1, claims);
}

/** Milliseconds between requests, and per token, under a limit (0 where the limit says nothing). */
export function spacingOf({ requestsPerMinute, tokensPerMinute }: RateLimit): {
  perRequestMs: number;
  perTokenMs: number;
} {
  return {
    perRequestMs: requestsPerMinute ? 60_000 / requestsPerMinute : 0,
    perTokenMs: tokensPerMinute ? 60_000 / tokensPerMinute : 0,
  };
}

interface LocalState {
  /** Theoretical arrival times (GCRA) of the next request and of the next token budget, epoch ms. */
  requestsTat: number;
  tokensTat: number;
  pausedUntil: number;
}

/**
 * Limits kept in this process's memory (stores that are not PostgreSQL: memory://, PGlite). GCRA, as the
 * shared limiter in PostgreSQL: a call's time is the latest of now, the pause and both theoretical arrival
 * times; it moves the request time on by 60 s / requests per minute and the token time by its tokens' share
 * of a minute, and sleeps until its time (less the burst tolerance).
 */
export class LocalRateLimits implements RateLimitBackend {
  private readonly states = new Map<string, LocalState>();
  private readonly clock: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor({
    clock = Date.now,
    sleep = sleepAbortably,
  }: {
    /** Epoch milliseconds; injectable so tests need not wait. */
    clock?: () => number;
    /** Must reject with the signal's reason when it aborts. */
    sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  } = {}) {
    this.clock = clock;
    this.sleep = sleep;
  }

  limiter(key: string, limit: RateLimit): JudgeRateLimiter {
    let state = this.states.get(key);
    if (!state) {
      state = { requestsTat: -Infinity, tokensTat: -Infinity, pausedUntil: -Infinity };
      this.states.set(key, state);
    }
    const kept = state;
    const { perRequestMs, perTokenMs } = spacingOf(checkRateLimit(limit));
    return {
      acquire: async (tokens, signal) => {
        signal?.throwIfAborted();
        const now = this.clock();
        const go = Math.max(now, kept.requestsTat, kept.tokensTat, kept.pausedUntil);
        kept.requestsTat = go + perRequestMs;
        kept.tokensTat = go + tokens * perTokenMs;
        const wait = Math.max(go - RATE_LIMIT_BURST_MS, kept.pausedUntil) - now;
        if (wait > 0) await this.sleep(wait, signal);
        let settled = false;
        return {
          settle: (used) => {
            if (settled) return;
            settled = true;
            kept.tokensTat += (used - tokens) * perTokenMs;
          },
        };
      },
      pause: async (ms) => {
        kept.pausedUntil = Math.max(kept.pausedUntil, this.clock() + ms);
      },
    };
  }
}

/** This process's limits: the default of every judge given a rate limit and no backend. */
export const processRateLimits: RateLimitBackend = new LocalRateLimits();

/**
 * A backend loaded when its first limiter is first used (the PostgreSQL one, whose driver a run that never
 * calls a model should not load).
 */
export function deferredRateLimits(load: () => Promise<RateLimitBackend>): RateLimitBackend {
  let loaded: Promise<RateLimitBackend> | undefined;
  return {
    limiter(key, limit) {
      checkRateLimit(limit);
      let inner: Promise<JudgeRateLimiter> | undefined;
      const ready = () => {
        loaded ??= load();
        inner ??= loaded.then((backend) => backend.limiter(key, limit));
        return inner;
      };
      return {
        acquire: async (tokens, signal) => (await ready()).acquire(tokens, signal),
        pause: async (ms) => (await ready()).pause(ms),
      };
    },
  };
}

/** Waits `ms`; rejects with the signal's reason when it aborts first. */
export function sleepAbortably(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
