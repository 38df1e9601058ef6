// Ctrl-C while an evaluation's store still opens: a second Ctrl-C waits until the evaluation is in the
// store, so that the run can be resumed; a third quits at once and says there is nothing to resume.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const CHILD = fileURLToPath(new URL("./interrupt-child.ts", import.meta.url));

function start(): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], { stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { child, output: () => output, exited };
}

async function until(check: () => boolean, what: string): Promise<void> {
  // Generous: a loaded CI machine can take seconds to start a TypeScript child.
  for (const deadline = Date.now() + 25_000; Date.now() < deadline; ) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Starts the child and presses Ctrl-C twice, each once the one before has been answered. */
async function startAndPressTwice() {
  const run = start();
  await until(() => run.output().includes("ready"), "the child");
  run.child.kill("SIGINT");
  await until(() => run.output().includes("finishing the judge calls"), "the first Ctrl-C");
  run.child.kill("SIGINT");
  await until(() => run.output().includes("stopping as soon as the store holds"), "the second Ctrl-C");
  return run;
}

describe("Ctrl-C before the store holds the evaluation", () => {
  it("a second Ctrl-C waits for the evaluation to be stored, then quits with a run to resume", async () => {
    const { child, output, exited } = await startAndPressTwice();
    // Still running: nothing to resume yet, so it does not quit.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(child.exitCode).toBeNull();
    child.stdin!.write("open\n");
    expect(await exited).toBe(130);
    expect(output()).toMatch(/stopped at once; `dramaturg eval --resume` completes the run/);
    expect(output()).not.toMatch(/before the store had the evaluation/);
  }, 60_000);

  it("a third Ctrl-C quits at once and says there is nothing to resume", async () => {
    const { child, output, exited } = await startAndPressTwice();
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(output()).toMatch(/before the store had the evaluation: nothing to resume; run the command again/);
    expect(output()).not.toMatch(/completes the run/);
  }, 60_000);
});
