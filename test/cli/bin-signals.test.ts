// SIGTERM to the `dramaturg` bin's process stops the worker it runs: no process of its tree is left (what a
// service manager or `kill PID` relies on). Both bins run the command in the process the shell started (their
// shebang's `env` execs node), so there is no child to forward the signal to; one that a future bin spawned
// would have to go with it. Linux (/proc). PostgreSQL, for the worker.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { dropFreshDatabases, freshDatabase, postgresSuite, postgresUrl as url } from "../postgres.ts";
import { ROOT } from "./run-cli.ts";

const BINS = {
  "the clone's bin (bin/dramaturg.js)": `${ROOT}bin/dramaturg.js`,
  "the published bin (dist/bin/dramaturg.cjs, built by npm ci)": `${ROOT}dist/bin/dramaturg.cjs`,
};

/** The live processes whose parent is `pid`, and theirs (zombies, already dead, left out). */
function descendants(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ")".
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(ppid) === pid && state !== "Z") children.push(Number(entry));
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

describe.skipIf(!url)(postgresSuite("SIGTERM to the dramaturg bin"), () => {
  afterAll(() => dropFreshDatabases());

  for (const [name, bin] of Object.entries(BINS))
    it.skipIf(!existsSync(bin))(
      `${name}: a worker drains and exits 0, and no process of its tree is left`,
      async () => {
        const db = await freshDatabase("dramaturg_binsig");
        // Run as a service manager runs it: the file itself, its shebang finding node on PATH.
        const child = spawn(bin, ["worker", "--db", db], {
          cwd: ROOT,
          env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
        });
        let stderr = "";
        child.stderr.on("data", (d) => (stderr += d));
        const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
        const until = Date.now() + 20_000;
        while (!stderr.includes("taking jobs from") && Date.now() < until) await sleep(50);
        expect(stderr).toContain("taking jobs from");
        const tree = [child.pid!, ...descendants(child.pid!)];
        child.kill("SIGTERM");
        expect(await exited, stderr).toBe(0);
        const deadline = Date.now() + 5_000;
        while (tree.some(alive) && Date.now() < deadline) await sleep(50);
        expect(tree.filter(alive)).toEqual([]);
      },
      30_000,
    );
});
