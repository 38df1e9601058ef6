// The server's access token: long enough not to be guessed, compared in constant time, and never sent back
// or logged. The sign-in cookie is signed with it (session-cookie.ts), never the token itself.
import { createHash, timingSafeEqual } from "node:crypto";
import { InputError } from "../core/index.ts";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * Whether `given` is `expected`, in time that does not depend on where they differ: both are hashed to
 * equal-length digests first, since timingSafeEqual needs equal lengths and a length check would leak.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The environment variable the token is read from by `dramaturg serve`. */
export const TOKEN_ENV = "DRAMATURG_TOKEN";

/**
 * The shortest token accepted. 32 characters of `openssl rand -base64 32` carry about 190 bits: beyond any
 * guessing through the bearer header, which (unlike the sign-in form) is not throttled.
 */
export const MIN_TOKEN_LENGTH = 32;

/** Throws an InputError when a token is set but too short, with the commands that make a good one. */
export function checkToken(token: string | undefined): void {
  if (token === undefined || token === "" || token.length >= MIN_TOKEN_LENGTH) return;
  throw new InputError(
    `the token has ${token.length} characters; it needs at least ${MIN_TOKEN_LENGTH}. Generate one: ${TOKEN_ENV}=$(openssl rand -base64 32), or ${TOKEN_ENV}=$(node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))")`,
    { place: TOKEN_ENV },
  );
}
