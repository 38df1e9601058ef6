// Token authentication: with a token set, every request but the login form needs it, as a bearer header
// (programs) or the HttpOnly cookie the login form sets (browsers). Without one, 401 in the API's shape.
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { ApiError } from "./api-error.ts";
import { sameSecret, sessionValue } from "./token.ts";

export const SESSION_COOKIE = "dramaturg_session";

/** Paths open without the token: the login form itself. */
const OPEN = new Set(["/login"]);

export function requireToken(token: string): MiddlewareHandler {
  const cookieValue = sessionValue(token);
  return async (c, next) => {
    if (OPEN.has(c.req.path)) return next();
    const header = c.req.header("authorization");
    const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    const cookie = getCookie(c, SESSION_COOKIE);
    const ok =
      (bearer !== undefined && sameSecret(bearer, token)) ||
      (cookie !== undefined && sameSecret(cookie, cookieValue));
    if (ok) return next();
    c.header("WWW-Authenticate", 'Bearer realm="dramaturg"');
    const error = new ApiError(
      401,
      "unauthorized",
      header || cookie
        ? "the token is not valid"
        : "a token is required: send Authorization: Bearer <token>, or sign in at /login",
    );
    return c.json(error.body, 401);
  };
}
