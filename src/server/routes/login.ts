// Signing in and out of a server started with a token. The token, typed once, becomes a session cookie
// (HttpOnly, SameSite=Strict, Secure over https, a fresh signed value each time, expiring), and the browser
// goes back to the page it asked for (`next`, a same-site path only). Wrong tokens are throttled per client.
// Signing out ends the session on the server too, in the store, so a copy of the cookie stops working, after
// a restart and on every server process on that store as well.
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { loginPage, postedFromThisSite, signInThrottledPage, signOutPage } from "../../web/index.ts";
import { sameSitePath } from "../next-path.ts";
import { SESSION_COOKIE, type SessionCookies } from "../session-cookie.ts";
import { type SignInThrottle, signInClient } from "../sign-in-throttle.ts";
import { sameSecret } from "../token.ts";

export interface LoginRoutesOptions {
  token: string;
  sessions: SessionCookies;
  throttle: SignInThrottle;
}

export function loginRoutes({ token, sessions, throttle }: LoginRoutesOptions): Hono {
  const app = new Hono();
  app.get("/login", (c) => c.html(loginPage({ next: sameSitePath(c.req.query("next")) })));
  app.post("/login", async (c) => {
    const client = signInClient(c);
    const wait = throttle.retryAfter(client);
    if (wait !== undefined) {
      c.header("Retry-After", String(wait));
      return c.html(signInThrottledPage({ retryAfter: wait }), 429);
    }
    const body = await c.req.parseBody();
    const given = typeof body.token === "string" ? body.token : "";
    const next = sameSitePath(body.next);
    if (!sameSecret(given, token)) {
      throttle.failed(client);
      return c.html(loginPage({ next, failed: true }), 401);
    }
    throttle.succeeded(client);
    setCookie(c, SESSION_COOKIE, sessions.issue(), {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      maxAge: sessions.maxAge,
      secure: new URL(c.req.url).protocol === "https:",
    });
    return c.redirect(next, 303);
  });
  app.get("/logout", (c) => c.html(signOutPage()));
  app.post("/logout", async (c) => {
    // SameSite=Strict already keeps the cookie off a cross-site post, so a forged one could not end the
    // session on the server; refusing it also keeps it from clearing the browser's copy. The page it gets
    // instead is the sign-out button, for the user to press.
    if (!postedFromThisSite(c.req)) return c.html(signOutPage(), 403);
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie !== undefined) await sessions.signOut(cookie);
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: new URL(c.req.url).protocol === "https:" });
    return c.redirect("/login", 303);
  });
  return app;
}
