// The sign-in cookie: each sign-in issues a fresh value — the time it was issued and a random nonce, signed
// with an HMAC keyed by the token — that the server accepts until it expires or is signed out. It is never
// the token, a new token invalidates every cookie (the key changed), and nothing is stored per session:
// only the nonces of sessions signed out before their expiry, until that expiry, in the store — so a
// sign-out holds across restarts and for every server process on the store.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { InputError } from "../core/index.ts";
import type { SignedOutSessionRepository } from "../store/index.ts";

export const SESSION_COOKIE = "dramaturg_session";

/** Default lifetime of a session: a working day. */
export const DEFAULT_SESSION_TTL_SECONDS = 12 * 60 * 60;

/** The longest session: a month bounds how long a copied cookie stays useful. */
export const MAX_SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

/** How far in the future an issue time may lie (clocks that stepped back) before the cookie is refused. */
const CLOCK_SKEW_MS = 60_000;

/** `<issued ms>.<nonce: 16 bytes>.<HMAC-SHA256>`, both base64url without padding. */
const VALUE = /^(\d{1,15})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export interface SessionCookiesOptions {
  /** The server's token: the HMAC key. */
  token: string;
  /** Where sign-outs are kept: the store's, shared by every server on it. */
  signedOut: SignedOutSessionRepository;
  /** How long a session lasts, in seconds. */
  ttlSeconds?: number;
  /** The clock, in milliseconds since the epoch; tests pass one they move. */
  now?: () => number;
}

export interface SessionCookies {
  /** Seconds a new cookie lives: its Max-Age. */
  readonly maxAge: number;
  /** A new cookie value, different on every call. */
  issue(): string;
  /** Whether a cookie value was issued with this token, has not expired and was not signed out. */
  valid(value: string): Promise<boolean>;
  /** Signs a session out: its value is refused from now on, even by a client that kept a copy. */
  signOut(value: string): Promise<void>;
}

export function sessionCookies({
  token,
  signedOut,
  ttlSeconds = DEFAULT_SESSION_TTL_SECONDS,
  now = Date.now,
}: SessionCookiesOptions): SessionCookies {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 60 || ttlSeconds > MAX_SESSION_TTL_SECONDS)
    throw new InputError(
      `a session lasts a whole number of seconds from 60 to ${MAX_SESSION_TTL_SECONDS} (30 days), got ${ttlSeconds}`,
      { place: "--session-ttl" },
    );
  const ttl = ttlSeconds * 1000;
  const mac = (issued: string, nonce: string) =>
    createHmac("sha256", token).update(`dramaturg.session/v2\n${issued}\n${nonce}`).digest();
  /** The issue time and nonce of a genuine, unexpired value; undefined for anything else. */
  const read = (value: string): { issued: number; nonce: string } | undefined => {
    const match = VALUE.exec(value);
    if (!match) return undefined;
    const [, issued, nonce, signature] = match as unknown as [string, string, string, string];
    if (!timingSafeEqual(Buffer.from(signature, "base64url"), mac(issued, nonce))) return undefined;
    const at = Number(issued);
    const t = now();
    return t - at < ttl && at <= t + CLOCK_SKEW_MS ? { issued: at, nonce } : undefined;
  };

  return {
    maxAge: ttlSeconds,
    issue() {
      const issued = String(Math.floor(now()));
      const nonce = randomBytes(16).toString("base64url");
      return `${issued}.${nonce}.${mac(issued, nonce).toString("base64url")}`;
    },
    async valid(value) {
      const session = read(value);
      return session !== undefined && !(await signedOut.has(session.nonce));
    },
    async signOut(value) {
      const session = read(value);
      if (session === undefined) return;
      // Kept until the session would have expired anyway; by then its cookie is refused for its age.
      await signedOut.forgetExpired(new Date(now()).toISOString());
      await signedOut.add(session.nonce, new Date(session.issued + ttl).toISOString());
    },
  };
}
