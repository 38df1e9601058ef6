// A server that cannot listen says which port and what to do, without a stack trace: exit 2 when the user
// named the port, 3 when the default one is taken; `npm run demo:serve` also removes its temp store.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../temp-dir.ts";
import { type CliResult, cli, ROOT } from "./run-cli.ts";

const DEFAULT_PORT = 4477;
const taken: Server[] = [];

/** Listens on 127.0.0.1:`port` (0: any) and returns the port; a port something else holds already is just as taken. */
async function takePort(port = 0): Promise<number> {
  const server = createServer();
  const listening = await new Promise<boolean>((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (!listening) return port;
  taken.push(server);
  return (server.address() as { port: number }).port;
}

let busy: number;
beforeAll(async () => {
  busy = await takePort();
  await takePort(DEFAULT_PORT);
});
afterAll(async () => {
  await Promise.all(taken.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** `npm run demo:serve -- ARGS` as the script runs it, with its temp folders under `tmp`. */
function demoServe(args: string[], tmp: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo-store.ts", "--serve", ...args], {
      cwd: ROOT,
      env: { ...process.env, TMPDIR: tmp },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    // A demo that did start serves until stopped: the test fails on its exit code, not on a timeout.
    const timer = setTimeout(() => child.kill("SIGTERM"), 20_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

const demoFolders = (tmp: string) => readdirSync(tmp).filter((name) => name.startsWith("dramaturg-demo"));

describe("dramaturg serve on a port that is taken", () => {
  it("exits 2 naming the port and the fix when --port named it", async () => {
    const r = await cli(["serve", "--db", "memory://", "--port", String(busy)]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `dramaturg: --port: cannot listen on 127.0.0.1:${busy}: the port is in use (EADDRINUSE); stop what listens there, or choose another port with --port (0 picks a free one)\n`,
    );
  });

  it("exits 3 when the default port is taken", async () => {
    const r = await cli(["serve", "--db", "memory://"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${DEFAULT_PORT}: the port is in use`);
  });
});

describe("npm run demo:serve on a port that is taken", () => {
  it("exits 2 with a plain message when --port named it, and leaves no temp store", async () => {
    const tmp = tempDir("dramaturg-demo-serve-");
    const r = await demoServe(["--port", String(busy)], tmp);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `demo:serve: --port: cannot listen on 127.0.0.1:${busy}: the port is in use (EADDRINUSE); stop what listens there, or choose another port with --port (0 picks a free one)\n`,
    );
    expect(demoFolders(tmp)).toEqual([]);
  }, 30_000);

  it("exits 3 when the default port is taken, and leaves no temp store", async () => {
    const tmp = tempDir("dramaturg-demo-serve-");
    const r = await demoServe([], tmp);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${DEFAULT_PORT}: the port is in use`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(demoFolders(tmp)).toEqual([]);
  }, 30_000);
});
