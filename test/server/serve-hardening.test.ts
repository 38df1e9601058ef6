// `dramaturg serve` and startServer refuse what would weaken them before opening anything — a short token
// (with the commands that make a good one), a malformed --allowed-host or --session-ttl: exit 2 — and a
// served process lets an --allowed-host through while refusing any other Host with 421.
import { spawn } from "node:child_process";
import { request } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { createServerApp, startServer } from "../../src/server/index.ts";
import { openStore } from "../../src/store/index.ts";
import { BIN, cli, ROOT } from "../cli/run-cli.ts";

const SHORT = "0123456789abcdef0123456789abcde"; // 31 characters
const LONG = "serve-hardening-token-0123456789abcdef";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("a token shorter than 32 characters", () => {
  it("refuses startServer before it opens the store, with a way to make one", async () => {
    const refused = await startServer({ db: "memory://", port: 0, token: SHORT }).catch((e) => e);
    expect(InputError.isInstance(refused)).toBe(true);
    expect(refused.place).toBe("DRAMATURG_TOKEN");
    expect(refused.message).toMatch(/has 31 characters; it needs at least 32/);
    expect(refused.message).toContain("openssl rand -base64 32");
  });

  it("refuses createServerApp, and 32 characters are enough", async () => {
    const store = await openStore("memory://");
    try {
      expect(() => createServerApp({ store, token: SHORT })).toThrow(/at least 32/);
      expect(() => createServerApp({ store, token: `${SHORT}x` })).not.toThrow();
    } finally {
      await store.close();
    }
  });

  it("makes dramaturg serve exit 2 with the hint, on loopback too", async () => {
    vi.stubEnv("DRAMATURG_TOKEN", "abc");
    const r = await cli(["serve", "--db", "memory://", "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/DRAMATURG_TOKEN: the token has 3 characters; it needs at least 32/);
    expect(r.stderr).toContain("openssl rand -base64 32");
    expect(r.stderr).not.toContain("abc");
  });
});

describe("dramaturg serve's flags", () => {
  it.each([
    [["--allowed-host", "http://dashboard.example.com"], "--allowed-host"],
    [["--allowed-host", "ok.example", "--allowed-host", "bad host"], "--allowed-host"],
    [["--session-ttl", "12"], "--session-ttl"],
    [["--session-ttl", "0m"], "--session-ttl"],
    [["--session-ttl", "31d"], "--session-ttl"],
  ])("%j is exit 2 naming %s", async (flags, place) => {
    const r = await cli(["serve", "--db", "memory://", "--port", "0", ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${place}:`);
  });

  it("--allowed-host lets that name through and --session-ttl sets the cookie's life", async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        "serve",
        "--db",
        "memory://",
        "--port",
        "0",
        "--allowed-host",
        "dashboard.example.com",
        "--session-ttl",
        "30m",
      ],
      { cwd: ROOT, env: { ...process.env, DRAMATURG_TOKEN: LONG } },
    );
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d) => {
          out += d;
          const found = out.match(/http:\/\/\S+?(?=[ )])/)?.[0];
          if (found) resolve(found);
        });
        exited.then(() => reject(new Error("serve exited before listening")));
      });
      const auth = { authorization: `Bearer ${LONG}` };
      expect((await get(url, "/api/agents", { host: "dashboard.example.com", ...auth })).status).toBe(200);
      expect((await get(url, "/api/agents", { host: "attacker.example", ...auth })).status).toBe(421);
      const login = await fetch(`${url}/login`, {
        method: "POST",
        body: new URLSearchParams({ token: LONG }),
        redirect: "manual",
      });
      expect(login.headers.get("set-cookie")).toMatch(/Max-Age=1800/);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});

/** A GET with any headers, Host included (fetch does not let one set Host). */
function get(url: string, path: string, headers: Record<string, string>): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode! }));
    });
    req.on("error", reject);
    req.end();
  });
}
