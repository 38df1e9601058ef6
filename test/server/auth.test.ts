// A server with a token: every API route refuses requests without it (401), and takes it as a bearer
// header or as the HttpOnly cookie the login form sets. The token never comes back in a response.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { sessionCookies } from "../../src/server/session-cookie.ts";
import { sameSecret } from "../../src/server/token.ts";
import { openStore, type Store } from "../../src/store/index.ts";

/** A response's JSON body, read loosely: the tests check its fields. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are plain JSON
const json = (response: Response): Promise<any> => response.json();

const TOKEN = "s3cret-token-for-tests-0123456789";
const ANY_ID = "00000000-0000-4000-8000-000000000000";

/** Every API route, with a request that would otherwise get past authentication. */
const ROUTES: [method: string, path: string][] = [
  ["GET", "/api/runs"],
  ["GET", `/api/runs/${ANY_ID}`],
  ["GET", "/api/agents"],
  ["GET", "/api/agents/marta/history"],
  ["GET", "/api/sessions"],
  ["GET", `/api/sessions/${ANY_ID}`],
  ["POST", "/api/sessions/analyze?judge=none"],
  ["GET", "/api/conversations"],
  ["GET", `/api/conversations/${ANY_ID}`],
  ["GET", "/api/corrections"],
  ["POST", "/api/traces"],
  ["GET", "/api/openapi.json"],
];

/** Every dashboard page. */
const PAGES = [
  "/",
  "/agents",
  "/agents/marta",
  "/runs",
  `/runs/${ANY_ID}`,
  "/sessions",
  `/sessions/${ANY_ID}`,
  "/conversations",
  `/conversations/${ANY_ID}`,
  "/corrections",
];

/** What a browser sends as Accept on a page. */
const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

let store: Store;
let app: ReturnType<typeof createServerApp>;

beforeAll(async () => {
  store = await openStore("memory://");
  app = createServerApp({ store, token: TOKEN });
});
afterAll(() => store.close());

const request = (method: string, path: string, headers: Record<string, string> = {}) =>
  app.request(path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: method === "POST" ? "{}" : undefined,
  });

describe("a server started with a token", () => {
  it("serves the sign-in page's stylesheet and script and the icon without it, and no page or API route", async () => {
    const css = await request("GET", "/assets/dashboard.css", { accept: "text/css,*/*;q=0.1" });
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect((await request("GET", "/assets/dashboard.js")).status).toBe(200);
    expect((await request("GET", "/favicon.ico")).status).toBe(204);
    expect((await request("GET", "/agents", { accept: BROWSER })).status).toBe(401);
    expect((await request("GET", "/assets/../api/agents")).status).toBe(401);
  });

  it.each(ROUTES)("%s %s without the token is a 401 in the error shape", async (method, path) => {
    const response = await request(method, path);
    expect(response.status).toBe(401);
    expect((await json(response)).error.code).toBe("unauthorized");
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it.each(ROUTES)("%s %s with a wrong bearer token is a 401", async (method, path) => {
    expect((await request(method, path, { authorization: "Bearer not-the-token" })).status).toBe(401);
  });

  it("the right bearer token is let through", async () => {
    const response = await request("GET", "/api/runs", { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ runs: [], next_cursor: null });
  });

  it("the OpenAPI document says the API takes a bearer token", async () => {
    const doc = await json(await request("GET", "/api/openapi.json", { authorization: `Bearer ${TOKEN}` }));
    expect(doc.components.securitySchemes.bearer).toEqual({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(JSON.stringify(doc)).not.toContain(TOKEN);
  });

  it("the login form sets an HttpOnly, SameSite=Strict cookie that is not the token", async () => {
    const login = await app.request("/login", {
      method: "POST",
      body: new URLSearchParams({ token: TOKEN }),
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toContain(TOKEN);
    const response = await request("GET", "/api/runs", { cookie: cookie.split(";")[0]! });
    expect(response.status).toBe(200);
  });

  it("the login form with a wrong token sets no cookie", async () => {
    const login = await app.request("/login", {
      method: "POST",
      body: new URLSearchParams({ token: "guess" }),
    });
    expect(login.status).toBe(401);
    expect(login.headers.get("set-cookie")).toBeNull();
  });

  it("the login form itself is open, carries no script and does not echo the token", async () => {
    const page = await app.request("/login");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<form method="post" action="\/login">/);
    expect(html).not.toMatch(/<script/i);
  });

  it("a cookie made for another token is a 401", async () => {
    const response = await request("GET", "/api/runs", {
      cookie: `dramaturg_session=${sessionCookies({ token: "another-token-0123456789abcdefghij", signedOut: store.signedOutSessions }).issue()}`,
    });
    expect(response.status).toBe(401);
  });
});

describe("a browser without the token", () => {
  it.each(PAGES)("GET %s is a 401 whether or not it asks for HTML", async (path) => {
    expect((await request("GET", path)).status).toBe(401);
    expect((await request("GET", path, { accept: BROWSER })).status).toBe(401);
  });

  it("a page asked for as HTML gets the sign-in form, which will send it back to that page", async () => {
    const response = await request("GET", "/runs?agent=marta&limit=5", { accept: BROWSER });
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toMatch(/<form method="post" action="\/login"/);
    expect(page).toContain('<input type="hidden" name="next" value="/runs?agent=marta&amp;limit=5">');
    expect(page).toContain('href="/assets/dashboard.css"');
    expect(page).not.toMatch(/<script/i);
  });

  it("an API route asked for as HTML still gets the JSON 401", async () => {
    const response = await request("GET", "/api/runs", { accept: BROWSER });
    expect(response.status).toBe(401);
    expect((await json(response)).error.code).toBe("unauthorized");
  });

  it("signing in goes back to the page asked for", async () => {
    const login = await app.request("/login", {
      method: "POST",
      body: new URLSearchParams({ token: TOKEN, next: "/sessions?agent=planner" }),
    });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/sessions?agent=planner");
  });

  it("a next that leaves the site sends the browser to the dashboard instead", async () => {
    const login = await app.request("/login", {
      method: "POST",
      body: new URLSearchParams({ token: TOKEN, next: "//evil.example/phish" }),
    });
    expect(login.headers.get("location")).toBe("/");
  });

  it("a wrong token keeps the page to go back to in the form", async () => {
    const login = await app.request("/login", {
      method: "POST",
      body: new URLSearchParams({ token: "guess", next: "/corrections" }),
    });
    expect(login.status).toBe(401);
    const page = await login.text();
    expect(page).toContain("That token is not valid.");
    expect(page).toContain('name="next" value="/corrections"');
  });
});

describe("comparing tokens", () => {
  it("equal tokens match and any difference, in content or length, does not", () => {
    expect(sameSecret(TOKEN, TOKEN)).toBe(true);
    expect(sameSecret(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(sameSecret(TOKEN.slice(0, -1), TOKEN)).toBe(false);
    expect(sameSecret("", TOKEN)).toBe(false);
  });
});
