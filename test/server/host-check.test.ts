// The Host header against DNS rebinding: a request naming a host this server does not answer to gets 421
// before any route runs — the API in its error shape, a page as a short page, a POST storing nothing — while
// the loopback names, the bound host and every allowed host pass.

import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { acceptedHosts, hostAccepted, parseHostName } from "../../src/server/host-check.ts";
import { createServerApp, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";

const SESSION = readFileSync(new URL("../../examples/sessions/refund.session.json", import.meta.url), "utf8");

/** A response's JSON body, read loosely: the tests check its fields. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are plain JSON
const json = (response: Response): Promise<any> => response.json();

let store: Store;
beforeAll(async () => {
  store = await openStore("memory://");
});
afterAll(() => store.close());

/** A request through app.request() with the Host header a browser would send. */
const asHost = (
  app: ReturnType<typeof createServerApp>,
  host: string,
  path: string,
  init: RequestInit = {},
) => app.request(path, { ...init, headers: { ...(init.headers as Record<string, string>), host } });

/** A raw HTTP request to a started server with any Host header (fetch does not let one set it). */
function rawRequest(url: string, host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a server bound to loopback", () => {
  const app = () => createServerApp({ store, host: "127.0.0.1" });

  it("answers an API route for a foreign Host with 421 in the API's error shape", async () => {
    const response = await asHost(app(), "attacker.example", "/api/agents");
    expect(response.status).toBe(421);
    const body = await json(response);
    expect(body.error.code).toBe("misdirected_request");
    expect(body.error.message).toContain('"attacker.example"');
    expect(body.error.message).toContain("--allowed-host");
  });

  it("answers a page for a foreign Host with a short 421 page that escapes the name", async () => {
    const response = await asHost(app(), "attacker.example:4477", "/agents", {
      headers: { accept: "text/html" },
    });
    expect(response.status).toBe(421);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain("<code>attacker.example:4477</code>");
    expect(page).not.toMatch(/<script/i);
    expect(response.headers.get("content-security-policy")).toMatch(/default-src 'self'/);
  });

  it("refuses a POST from a foreign Host and stores nothing", async () => {
    const own = await openStore("memory://");
    const app_ = createServerApp({ store: own, host: "127.0.0.1" });
    const post = await asHost(app_, "rebound.attacker.example", "/api/sessions/analyze?judge=none", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: SESSION,
    });
    expect(post.status).toBe(421);
    expect(await (await asHost(app_, "127.0.0.1", "/api/sessions")).json()).toEqual({
      sessions: [],
      next_cursor: null,
    });
    // The same POST naming this server is stored: the 421 was the Host, not the body.
    const ok = await asHost(app_, "127.0.0.1:4477", "/api/sessions/analyze?judge=none", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: SESSION,
    });
    expect(ok.status).toBe(200);
    expect((await json(await asHost(app_, "localhost", "/api/sessions"))).sessions).toHaveLength(1);
    await own.close();
  });

  it.each(["127.0.0.1", "127.0.0.1:4477", "localhost", "LOCALHOST:80", "localhost.", "[::1]", "[::1]:4477"])(
    "lets the loopback name %s through",
    async (host) => {
      expect((await asHost(app(), host, "/api/runs")).status).toBe(200);
    },
  );

  it.each([
    "attacker.example",
    "127.0.0.1.attacker.example",
    "localhost.attacker.example",
    "",
    "a b",
    "[::2]",
  ])("refuses the Host %j", async (host) => {
    expect((await asHost(app(), host, "/api/runs")).status).toBe(421);
  });
});

describe("allowed hosts", () => {
  it("an allowed name passes on any port; one with a port only on that port", async () => {
    const app = createServerApp({
      store,
      host: "127.0.0.1",
      allowedHosts: ["dashboard.example.com", "evals.example.com:8443", "fd00::5"],
    });
    expect((await asHost(app, "dashboard.example.com", "/api/runs")).status).toBe(200);
    expect((await asHost(app, "Dashboard.Example.com:4477", "/api/runs")).status).toBe(200);
    expect((await asHost(app, "evals.example.com:8443", "/api/runs")).status).toBe(200);
    expect((await asHost(app, "evals.example.com", "/api/runs")).status).toBe(421);
    expect((await asHost(app, "evals.example.com:4477", "/api/runs")).status).toBe(421);
    expect((await asHost(app, "[fd00::5]:4477", "/api/runs")).status).toBe(200);
    expect((await asHost(app, "example.com", "/api/runs")).status).toBe(421);
  });

  it.each(["http://x.example", "x.example:0", "x.example:70000", "a b", "", "x.example/path", "-x.example"])(
    "a malformed allowed host %j is an InputError naming --allowed-host",
    (host) => {
      const error = (() => {
        try {
          createServerApp({ store, allowedHosts: [host] });
        } catch (e) {
          return e;
        }
      })();
      expect(InputError.isInstance(error)).toBe(true);
      expect((error as InputError).place).toBe("--allowed-host");
    },
  );
});

describe("the bound host", () => {
  it("a server bound to a name or an address answers to it, with or without the port", async () => {
    const app = createServerApp({ store, host: "10.1.2.3" });
    expect((await asHost(app, "10.1.2.3", "/api/runs")).status).toBe(200);
    expect((await asHost(app, "10.1.2.3:4477", "/api/runs")).status).toBe(200);
    expect((await asHost(app, "10.1.2.4", "/api/runs")).status).toBe(421);
  });

  it.each(["0.0.0.0", "::"])(
    "bound to the wildcard %s, only loopback names and allowed hosts pass",
    async (host) => {
      const app = createServerApp({ store, host, allowedHosts: ["evals.internal"] });
      expect((await asHost(app, "0.0.0.0", "/api/runs")).status).toBe(421);
      expect((await asHost(app, "[::]", "/api/runs")).status).toBe(421);
      expect((await asHost(app, "192.168.1.20", "/api/runs")).status).toBe(421);
      expect((await asHost(app, "evals.internal:4477", "/api/runs")).status).toBe(200);
      expect((await asHost(app, "localhost:4477", "/api/runs")).status).toBe(200);
    },
  );

  it("without host options (a library's app.request), the app answers as on loopback", async () => {
    const app = createServerApp({ store });
    expect((await app.request("/api/runs")).status).toBe(200);
    expect((await app.request("http://127.0.0.1/api/runs")).status).toBe(200);
    expect((await app.request("http://attacker.example/api/runs")).status).toBe(421);
  });
});

describe("a started server", () => {
  it("refuses a foreign Host on the socket and lets an allowed one through", async () => {
    const server = await startServer({ db: store, port: 0, allowedHosts: ["dashboard.example.com"] });
    try {
      const refused = await rawRequest(server.url, "attacker.example", "/api/agents");
      expect(refused.status).toBe(421);
      expect(JSON.parse(refused.body).error.code).toBe("misdirected_request");
      expect((await rawRequest(server.url, "dashboard.example.com", "/api/agents")).status).toBe(200);
      expect((await fetch(`${server.url}/api/agents`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("answers to the address it is bound to", async () => {
    // 127.0.0.2 is loopback (no token needed) but not one of the loopback names: only the bound host lets it in.
    const server = await startServer({ db: store, host: "127.0.0.2", port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      expect((await fetch(`${server.url}/api/agents`)).status).toBe(200);
      expect((await rawRequest(server.url, "127.0.0.3", "/api/agents")).status).toBe(421);
    } finally {
      await server.close();
    }
  });

  it("a malformed allowed host refuses to start", async () => {
    const refused = await startServer({ db: "memory://", port: 0, allowedHosts: ["not a host"] }).catch(
      (e) => e,
    );
    expect(InputError.isInstance(refused)).toBe(true);
    expect(refused.place).toBe("--allowed-host");
  });
});

describe("host names", () => {
  it("are read with an optional port, lower-cased, a trailing dot dropped", () => {
    expect(parseHostName("Example.COM.:8080")).toEqual({ name: "example.com", port: 8080 });
    expect(parseHostName("[::1]")).toEqual({ name: "[::1]" });
    expect(parseHostName("::1")).toBeUndefined();
    expect(parseHostName("[nonsense]")).toBeUndefined();
    expect(hostAccepted("x.example:1", acceptedHosts("127.0.0.1", ["x.example:1"]))).toBe(true);
    expect(hostAccepted("x.example:2", acceptedHosts("127.0.0.1", ["x.example:1"]))).toBe(false);
  });
});
