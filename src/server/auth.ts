// Token authentication: with a token set, every request but the login form needs it, as a bearer header
// (programs) or the HttpOnly cookie the login form sets (browsers). Without one, 401: in the API's shape,
// or, for a browser asking for a page, the sign-in form, which sends it back to that page afterwards.
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { loginPage } from "../web/index.ts";
import { ApiError } from "./api-error.ts";
import { sameSitePath } from "./next-path.ts";
import { sameSecret, sessionValue } from "./token.ts";

export const SESSION_COOKIE = "dramaturg_session";

/**
 * Paths open without the token: the login form, and what it needs to look like the dashboard — its
 * stylesheet and script, which are the package's own files — and the icon a browser asks for on every page.
 */
const OPEN = new Set(["/login", "/assets/dashboard.css", "/assets/dashboard.js", "/favicon.ico"]);

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
    if (wantsPage(c.req.method, c.req.path, c.req.header("accept"))) {
      const url = new URL(c.req.url);
      return c.html(loginPage({ next: sameSitePath(`${url.pathname}${url.search}`) }), 401);
    }
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
