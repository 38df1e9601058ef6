// The login form of a server started with a token: the token, typed once, becomes an HttpOnly,
// SameSite=Strict cookie (a value derived from it), so a browser can read the pages and call the API.
import { Hono } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { SESSION_COOKIE } from "../auth.ts";
import { sameSecret, sessionValue } from "../token.ts";

// Static markup, no script and no inline style (the CSP allows neither); nothing from the request is echoed.
const form = (failed: boolean) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Dramaturg · sign in</title></head>
<body><main><h1>Dramaturg</h1>
${failed ? "<p>That token is not valid.</p>\n" : ""}<form method="post" action="/login">
<label>Token <input type="password" name="token" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form></main></body></html>
`;

export function loginRoutes(token: string): Hono {
  const app = new Hono();
  app.get("/login", (c) => c.html(form(false)));
  app.post("/login", async (c) => {
    const body = await c.req.parseBody();
    const given = typeof body.token === "string" ? body.token : "";
    if (!sameSecret(given, token)) return c.html(form(true), 401);
    setCookie(c, SESSION_COOKIE, sessionValue(token), {
      httpOnly: true,
      sameSite: "Strict",
      path: "/",
      secure: new URL(c.req.url).protocol === "https:",
    });
    return c.redirect("/", 303);
  });
  app.post("/logout", (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.redirect("/login", 303);
  });
  return app;
}
