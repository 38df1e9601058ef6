// Token authentication: with a token set, every request but the sign-in and sign-out forms needs it, as a
// bearer header (programs) or a session cookie the sign-in form issued (browsers; see session-cookie.ts).
// Without one, 401: in the API's shape, or, for a browser asking for a page, the sign-in form, which sends
// it back to that page afterwards. An expired, signed-out or tampered cookie is no cookie.
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { loginPage } from "../web/index.ts";
import { ApiError } from "./api-error.ts";
import { sameSitePath } from "./next-path.ts";
import { SESSION_COOKIE, type SessionCookies } from "./session-cookie.ts";
import { sameSecret } from "./token.ts";

/**
 * Paths open without the token: the sign-in and sign-out forms, and what they need to look like the
 * dashboard — its stylesheet and script, which are the package's own files — and the icon a browser asks
 * for on every page.
 */
const OPEN = new Set(["/login", "/logout", "/assets/dashboard.css", "/assets/dashboard.js", "/favicon.ico"]);

export function requireToken(token: string, sessions: SessionCookies): MiddlewareHandler {
  return async (c, next) => {
    if (OPEN.has(c.req.path)) return next();
    const header = c.req.header("authorization");
    const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
    const cookie = getCookie(c, SESSION_COOKIE);
    const ok =
      (bearer !== undefined && sameSecret(bearer, token)) ||
      (cookie !== undefined && (await sessions.valid(cookie)));
    if (ok) return next();
    c.header("WWW-Authenticate", 'Bearer realm="dramaturg"');
    if (wantsPage(c.req.method, c.req.path, c.req.header("accept"))) {
      const url = new URL(c.req.url);
      return c.html(loginPage({ next: sameSitePath(`${url.pathname}${url.search}`) }), 401);
    }
    const error = new ApiError(
      401,
      "unauthorized",
      header
        ? "the token is not valid"
        : cookie
          ? "the session has expired or ended: sign in again at /login, or send Authorization: Bearer <token>"
          : "a token is required: send Authorization: Bearer <token>, or sign in at /login",
    );
    return c.json(error.body, 401);
  };
}

/** A browser on a page: a GET outside the API that accepts HTML. Programs and API calls get JSON. */
function wantsPage(method: string, path: string, accept: string | undefined): boolean {
  return (
    (method === "GET" || method === "HEAD") &&
    path !== "/api" &&
    !path.startsWith("/api/") &&
    accept !== undefined &&
    /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept)
  );
}
