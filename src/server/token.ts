// The server's access token: compared in constant time, and never sent back or logged. The login cookie
// holds a value derived from the token (an HMAC), not the token itself.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * Whether `given` is `expected`, in time that does not depend on where they differ: both are hashed to
 * equal-length digests first, since timingSafeEqual needs equal lengths and a length check would leak.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The login cookie's value for a token: proves the token was given without being it. */
export function sessionValue(token: string): string {
  return createHmac("sha256", token).update("dramaturg.session/v1").digest("base64url");
}

/** The environment variable the token is read from by `dramaturg serve`. */
export const TOKEN_ENV = "DRAMATURG_TOKEN";
