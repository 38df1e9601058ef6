// Signing in and out of a server with a token: wrong tokens throttled per client (the 21st within a minute
// gets 429, even when right), session cookies that are new on every sign-in, expire and end at sign-out,
// and a sign-out that a foreign page cannot post. Time is a clock the tests move, never a real minute.

import type { Context } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp, startServer } from "../../src/server/index.ts";
import { sessionCookies } from "../../src/server/session-cookie.ts";
import { SignInThrottle, signInClient } from "../../src/server/sign-in-throttle.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { tempDir } from "../temp-dir.ts";

const TOKEN = "sign-in-test-token-0123456789abcdef";
const BROWSER = "text/html,application/xhtml+xml,*/*;q=0.8";

/** A response's JSON body, read loosely: the tests check its fields. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are plain JSON
const json = (response: Response): Promise<any> => response.json();

let store: Store;
beforeAll(async () => {
  store = await openStore("memory://");
});
afterAll(() => store.close());

/** An app with a clock the test moves (milliseconds). */
function appWithClock(options: { sessionTtl?: number } = {}) {
  const clock = { now: Date.UTC(2025, 0, 1) };
  const app = createServerApp({ store, token: TOKEN, now: () => clock.now, ...options });
  const signIn = (token: string, init: { url?: string; headers?: Record<string, string> } = {}) =>
    app.request(init.url ?? "/login", {
      method: "POST",
      body: new URLSearchParams({ token }),
      headers: init.headers,
    });
  return { app, clock, signIn };
}

/** The `name=value` of a Set-Cookie header. */
const cookieOf = (response: Response) => response.headers.get("set-cookie")!.split(";")[0]!;

describe("the sign-in throttle", () => {
  it("refuses the 21st wrong token within a minute with 429 and Retry-After", async () => {
    const { signIn, clock } = appWithClock();
    for (let i = 0; i < 20; i++) {
      expect((await signIn(`wrong-${i}`)).status).toBe(401);
      clock.now += 1000;
    }
    const refused = await signIn("wrong-21");
    expect(refused.status).toBe(429);
    // The first wrong try was 20 s ago: the window of 60 s frees a try in 40 s.
    expect(refused.headers.get("retry-after")).toBe("40");
    expect(await refused.text()).toContain("Try again in 40 seconds");
    expect(refused.headers.get("set-cookie")).toBeNull();
  });

  it("refuses the right token too while throttled, and takes it once the window has passed", async () => {
    const { signIn, clock } = appWithClock();
    for (let i = 0; i < 20; i++) await signIn("wrong");
    const locked = await signIn(TOKEN);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("set-cookie")).toBeNull();
    clock.now += 59_000;
    expect((await signIn(TOKEN)).status).toBe(429);
    clock.now += 1_001;
    const open = await signIn(TOKEN);
    expect(open.status).toBe(303);
    expect(open.headers.get("set-cookie")).toMatch(/^dramaturg_session=/);
  });

  it("counts wrong tries in a sliding window: 19 an hour ago do not add to 20 now", async () => {
    const { signIn, clock } = appWithClock();
    for (let i = 0; i < 19; i++) await signIn("wrong");
    clock.now += 3_600_000;
    for (let i = 0; i < 20; i++) expect((await signIn("wrong")).status).toBe(401);
    expect((await signIn("wrong")).status).toBe(429);
  });

  it("a right token clears a client's wrong ones", async () => {
    const { signIn } = appWithClock();
    for (let i = 0; i < 19; i++) await signIn("wrong");
    expect((await signIn(TOKEN)).status).toBe(303);
    for (let i = 0; i < 20; i++) expect((await signIn("wrong")).status).toBe(401);
  });

  it("throttles each client on its own: another address still signs in", async () => {
    const server = await startServer({ db: store, port: 0, token: TOKEN });
    try {
      const port = new URL(server.url).port;
      const post = (from: string, token: string) =>
        postFrom(`http://127.0.0.1:${port}/login`, from, new URLSearchParams({ token }).toString());
      for (let i = 0; i < 20; i++) expect(await post("127.0.0.1", "wrong")).toBe(401);
      expect(await post("127.0.0.1", "wrong")).toBe(429);
      expect(await post("127.0.0.2", TOKEN)).toBe(303);
    } finally {
      await server.close();
    }
  });

  it("remembers a bounded number of clients, forgetting the stalest first", () => {
    let now = 0;
    const throttle = new SignInThrottle({ limit: 2, maxClients: 3, now: () => now });
    for (const client of ["a", "b", "c"]) throttle.failed(client);
    throttle.failed("a");
    throttle.failed("a");
    expect(throttle.retryAfter("a")).toBe(60);
    now += 1000;
    throttle.failed("d"); // full: "b", the least recently wrong, goes
    expect(throttle.clients).toBe(3);
    throttle.failed("b");
    expect(throttle.retryAfter("b")).toBeUndefined();
    now += 61_000;
    throttle.failed("e"); // full again: every client's tries are old, all but "e" go
    expect(throttle.clients).toBe(1);
  });

  it("counts an IPv6 client by its /64 and a mapped IPv4 one by its address", () => {
    const from = (remoteAddress: string) =>
      signInClient({ env: { incoming: { socket: { remoteAddress } } } } as unknown as Context);
    expect(from("2001:db8:1:2:aaaa::1")).toBe(from("2001:db8:1:2:bbbb:cccc:dddd:eeee"));
    expect(from("2001:db8:1:2::1")).not.toBe(from("2001:db8:1:3::1"));
    expect(from("::ffff:10.0.0.7")).toBe("10.0.0.7");
    expect(signInClient({ env: undefined } as unknown as Context)).toBe("local");
  });
});

describe("session cookies", () => {
  it("two sign-ins give two different cookies, both valid, neither the token", async () => {
    const { app, signIn } = appWithClock();
    const first = cookieOf(await signIn(TOKEN));
    const second = cookieOf(await signIn(TOKEN));
    expect(first).not.toBe(second);
    for (const cookie of [first, second]) {
      expect(cookie).not.toContain(TOKEN);
      expect((await app.request("/api/runs", { headers: { cookie } })).status).toBe(200);
    }
  });

  it("a cookie is HttpOnly, SameSite=Strict and lives 12 hours; Secure only over https", async () => {
    const { signIn } = appWithClock();
    const plain = (await signIn(TOKEN)).headers.get("set-cookie")!;
    expect(plain).toMatch(/HttpOnly/);
    expect(plain).toMatch(/SameSite=Strict/);
    expect(plain).toMatch(/Max-Age=43200/);
    expect(plain).not.toMatch(/Secure/);
    const secure = (await signIn(TOKEN, { url: "https://localhost/login" })).headers.get("set-cookie")!;
    expect(secure).toMatch(/; Secure/);
  });

  it("an expired cookie gets the sign-in page for a page and 401 from the API", async () => {
    const { app, clock, signIn } = appWithClock();
    const cookie = cookieOf(await signIn(TOKEN));
    clock.now += 12 * 3600_000 - 1000;
    expect((await app.request("/agents", { headers: { cookie, accept: BROWSER } })).status).toBe(200);
    clock.now += 1000;
    const page = await app.request("/agents", { headers: { cookie, accept: BROWSER } });
    expect(page.status).toBe(401);
    expect(await page.text()).toMatch(/<form method="post" action="\/login"/);
    const api = await app.request("/api/runs", { headers: { cookie } });
    expect(api.status).toBe(401);
    expect((await json(api)).error.message).toMatch(/expired/);
  });

  it("sessionTtl sets how long a cookie lives", async () => {
    const { app, clock, signIn } = appWithClock({ sessionTtl: 1800 });
    const response = await signIn(TOKEN);
    expect(response.headers.get("set-cookie")).toMatch(/Max-Age=1800/);
    clock.now += 1_800_000;
    expect((await app.request("/api/runs", { headers: { cookie: cookieOf(response) } })).status).toBe(401);
  });

  it("a tampered cookie, or one signed with another token, is refused", async () => {
    const { app, clock, signIn } = appWithClock();
    const cookie = cookieOf(await signIn(TOKEN));
    const [name, value] = cookie.split("=") as [string, string];
    const [issued, nonce, mac] = value.split(".") as [string, string, string];
    clock.now += 3_600_000;
    // Reissued an hour later, to live longer: the signature no longer matches.
    const later = `${name}=${clock.now}.${nonce}.${mac}`;
    const otherNonce = `${name}=${issued}.${"A".repeat(22)}.${mac}`;
    const other = `${name}=${sessionCookies({ token: "another-token-0123456789abcdefghij", signedOut: store.signedOutSessions, now: () => clock.now }).issue()}`;
    expect((await app.request("/api/runs", { headers: { cookie } })).status).toBe(200);
    for (const bad of [later, otherNonce, other, `${name}=${TOKEN}`, `${name}=`])
      expect((await app.request("/api/runs", { headers: { cookie: bad } })).status).toBe(401);
  });

  it("a restart with the same token keeps every cookie; a new token invalidates them all", async () => {
    const { clock, signIn } = appWithClock();
    const cookie = cookieOf(await signIn(TOKEN));
    const restart = (token: string) => createServerApp({ store, token, now: () => clock.now });
    expect((await restart(TOKEN).request("/api/runs", { headers: { cookie } })).status).toBe(200);
    expect((await restart(`${TOKEN}-rotated`).request("/api/runs", { headers: { cookie } })).status).toBe(
      401,
    );
  });

  it("a session lifetime out of range is refused", () => {
    expect(() => createServerApp({ store, token: TOKEN, sessionTtl: 0 })).toThrow(/--session-ttl/);
    expect(() => createServerApp({ store, token: TOKEN, sessionTtl: 1.5 })).toThrow(/--session-ttl/);
  });
});

describe("signing out", () => {
  it("every page's navigation ends with a sign-out link when visitors sign in, and has none without a token", async () => {
    const { app, signIn } = appWithClock();
    const cookie = cookieOf(await signIn(TOKEN));
    const page = await (await app.request("/agents", { headers: { cookie } })).text();
    expect(page).toMatch(
      /<nav aria-label="sections">[\s\S]*<a class="sign-out" href="\/logout">Sign out<\/a><\/nav>/,
    );
    const open = createServerApp({ store });
    const plain = await (await open.request("/agents")).text();
    expect(plain).toContain('<nav aria-label="sections">');
    expect(plain).not.toContain("Sign out");
    expect(plain).not.toContain("<!--account-->");
  });

  it("GET /logout is a page with a sign-out form and no script", async () => {
    const { app } = appWithClock();
    const page = await app.request("/logout", { headers: { accept: BROWSER } });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toMatch(/<form method="post" action="\/logout">/);
    expect(text).not.toMatch(/<script/i);
  });

  it("POST /logout clears the cookie, redirects to /login and ends that session only", async () => {
    const { app, signIn } = appWithClock();
    const cookie = cookieOf(await signIn(TOKEN));
    const other = cookieOf(await signIn(TOKEN));
    const out = await app.request("/logout", { method: "POST", headers: { cookie } });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/login");
    expect(out.headers.get("set-cookie")).toMatch(/^dramaturg_session=; Max-Age=0; Path=\//);
    // A copy of the cookie kept after signing out no longer works; another sign-in's does.
    expect((await app.request("/api/runs", { headers: { cookie } })).status).toBe(401);
    expect((await app.request("/api/runs", { headers: { cookie: other } })).status).toBe(200);
  });

  it("a signed-out cookie's copy is refused by a second server on the same store", async () => {
    const { app, clock, signIn } = appWithClock();
    const cookie = cookieOf(await signIn(TOKEN));
    const other = cookieOf(await signIn(TOKEN));
    await app.request("/logout", { method: "POST", headers: { cookie } });
    expect((await app.request("/api/runs", { headers: { cookie } })).status).toBe(401);
    const second = createServerApp({ store, token: TOKEN, now: () => clock.now });
    expect((await second.request("/api/runs", { headers: { cookie } })).status).toBe(401);
    expect((await second.request("/api/runs", { headers: { cookie: other } })).status).toBe(200);
  });

  it("a signed-out cookie's copy stays refused after a restart on the store's folder", async () => {
    const folder = tempDir("dramaturg-sign-out-");
    const now = () => Date.UTC(2025, 0, 1);
    const before = await openStore(folder);
    const app = createServerApp({ store: before, token: TOKEN, now });
    const signIn = async () =>
      cookieOf(await app.request("/login", { method: "POST", body: new URLSearchParams({ token: TOKEN }) }));
    const cookie = await signIn();
    const other = await signIn();
    await app.request("/logout", { method: "POST", headers: { cookie } });
    await before.close();
    const after = await openStore(folder);
    try {
      const restarted = createServerApp({ store: after, token: TOKEN, now });
      expect((await restarted.request("/api/runs", { headers: { cookie } })).status).toBe(401);
      expect((await restarted.request("/api/runs", { headers: { cookie: other } })).status).toBe(200);
    } finally {
      await after.close();
    }
  });

  it("a sign-out posted from another origin is refused and ends nothing", async () => {
    const { app, signIn } = appWithClock();
    const cookie = cookieOf(await signIn(TOKEN));
    const forged = await app.request("/logout", {
      method: "POST",
      headers: { cookie, origin: "https://attacker.example" },
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.get("set-cookie")).toBeNull();
    expect((await app.request("/api/runs", { headers: { cookie } })).status).toBe(200);
    const own = await app.request("/logout", {
      method: "POST",
      headers: { cookie, origin: "http://localhost" },
    });
    expect(own.status).toBe(303);
  });

  it("signing out without a session still clears and redirects", async () => {
    const { app } = appWithClock();
    const out = await app.request("/logout", { method: "POST" });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/login");
  });
});

/** The status of a form POST sent from a given local address (loopback has the whole 127/8 on Linux). */
async function postFrom(url: string, localAddress: string, body: string): Promise<number> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", localAddress, headers: { "content-type": "application/x-www-form-urlencoded" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
