// The login form of a server started with a token: the token, typed once, becomes an HttpOnly,
// SameSite=Strict cookie (a value derived from it), so a browser can read the pages and call the API.
// After signing in, the browser goes back to the page it asked for (`next`, a same-site path only).
import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { loginPage } from "../../web/index.ts";
import { SESSION_COOKIE } from "../auth.ts";
import { sameSitePath } from "../next-path.ts";
import { sameSecret, sessionValue } from "../token.ts";

export function loginRoutes(token: string): Hono {
  const app = new Hono();
  app.get("/login", (c) => c.html(loginPage({ next: sameSitePath(c.req.query("next")) })));
  app.post("/login", async (c) => {
    const body = await c.req.parseBody();
    const given = typeof body.token === "string" ? body.token : "";
    const next = sameSitePath(body.next);
    if (!sameSecret(given, token)) return c.html(loginPage({ next, failed: true }), 401);
    setCookie(c, SESSION_COOKIE, sessionValue(token), {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: new URL(c.req.url).protocol === "https:",
    });
    return c.redirect(next, 303);
  });
  app.post("/logout", (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.redirect("/login", 303);
  });
  return app;
}
