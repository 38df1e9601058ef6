// startServer on a real socket (127.0.0.1, a free port): it answers over HTTP, refuses a non-loopback host
// without a token before opening anything, and closes its store and connections.
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { checkHost, isLoopback, startServer } from "../../src/server/index.ts";
import { openStore } from "../../src/store/index.ts";

describe("startServer", () => {
  it("serves the API on 127.0.0.1 and stops when closed", async () => {
    const server = await startServer({ db: "memory://", port: 0 });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${server.url}/api/runs`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ runs: [], next_cursor: null });
    } finally {
      await server.close();
    }
    await expect(fetch(`${server.url}/api/runs`)).rejects.toThrow();
  });

  it("leaves a store it was given open", async () => {
    const store = await openStore("memory://");
    const server = await startServer({ db: store, port: 0 });
    await server.close();
    expect(await store.runs.list()).toEqual([]);
    await store.close();
  });

  it("refuses a host other than loopback without a token", async () => {
    const refused = await startServer({ db: "memory://", host: "0.0.0.0", port: 0 }).catch((e) => e);
    expect(InputError.isInstance(refused)).toBe(true);
    expect(refused.place).toBe("--host");
    expect(refused.message).toMatch(/DRAMATURG_TOKEN/);
  });

  it("serves a host other than loopback with a token, and asks for it", async () => {
    const server = await startServer({
      db: "memory://",
      host: "0.0.0.0",
      port: 0,
      token: "a-token-for-this-test-0123456789abcdef",
    });
    try {
      const port = new URL(server.url).port;
      expect((await fetch(`http://127.0.0.1:${port}/api/runs`)).status).toBe(401);
      const authorized = await fetch(`http://127.0.0.1:${port}/api/runs`, {
        headers: { authorization: "Bearer a-token-for-this-test-0123456789abcdef" },
      });
      expect(authorized.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("the host check", () => {
  it.each(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"])("%s is loopback", (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  it.each(["0.0.0.0", "::", "192.168.1.20", "example.com"])("%s is not loopback", (host) => {
    expect(isLoopback(host)).toBe(false);
    expect(() => checkHost(host, undefined)).toThrow(/refusing to serve/);
    expect(() => checkHost(host, "")).toThrow(/refusing to serve/);
    expect(() => checkHost(host, "a-token")).not.toThrow();
  });
});
