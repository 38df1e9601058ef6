// `dramaturg serve` as a user runs it: refused on a public host without a token (exit 2), and a real
// process that serves, prints its URL (never the token) and stops cleanly on SIGTERM.
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BIN, cli, ROOT } from "./run-cli.ts";

afterEach(() => {
  vi.unstubAllEnvs();
});

/** Starts `dramaturg serve` and resolves with its URL once it prints it; the caller stops it. */
function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, "serve", "--db", "memory://", "--port", "0", ...args], {
    cwd: ROOT,
    env: { ...process.env, DRAMATURG_TOKEN: "", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d) => {
      stdout += d;
      const found = stdout.match(/http:\/\/\S+?(?=[ )])/)?.[0];
      if (found) resolve(found);
    });
    exited.then(() => reject(new Error(`serve exited before listening: ${stderr}`)));
  });
  return { child, url, exited, output: () => stdout + stderr };
}

describe("dramaturg serve", () => {
  it("refuses --host 0.0.0.0 without DRAMATURG_TOKEN: exit 2 and what to do", async () => {
    vi.stubEnv("DRAMATURG_TOKEN", "");
    const r = await cli(["serve", "--host", "0.0.0.0", "--db", "memory://"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to serve on 0\.0\.0\.0 without a token/);
    expect(r.stderr).toMatch(/DRAMATURG_TOKEN/);
  });

  it("refuses a port that is not a port: exit 2 naming --port", async () => {
    const r = await cli(["serve", "--port", "70000", "--db", "memory://"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--port/);
  });

  it("serves on loopback, prints its URL and stops with exit 0 on SIGTERM", async () => {
    const server = serve([]);
    try {
      const url = await server.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${url}/api/runs`)).status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
    }
    expect(await server.exited).toBe(0);
  });

  it("with a token on a public host, asks every request for it and never prints it", async () => {
    const token = "do-not-print-this-token-0123456789abcdef";
    const server = serve(["--host", "0.0.0.0"], { DRAMATURG_TOKEN: token });
    try {
      const port = new URL(await server.url).port;
      expect((await fetch(`http://127.0.0.1:${port}/api/agents`)).status).toBe(401);
      const ok = await fetch(`http://127.0.0.1:${port}/api/agents`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.status).toBe(200);
    } finally {
      server.child.kill("SIGTERM");
    }
    expect(await server.exited).toBe(0);
    expect(server.output()).not.toContain(token);
  });
});
