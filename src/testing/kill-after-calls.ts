// Runs a command (a `dramaturg eval`, say) and SIGKILLs it once the fake server has received a given
// number of requests: the interruption that resume tests and the resume benchmark recover from.
import { spawn } from "node:child_process";
import type { FakeOpenAIServer } from "./fake-openai-server.ts";

export interface KillAfterCallsOptions {
  /** The server the command calls; its request count decides when to kill. */
  server: Pick<FakeOpenAIServer, "stats">;
  /** Kill once the server has received this many requests since the command started. */
  calls: number;
  cwd?: string;
  /** How often the count is checked, in milliseconds. Default 2. */
  pollMs?: number;
}

export interface KilledRun {
  /** Whether the command was killed; false when it ended first. */
  killed: boolean;
  /** Requests the server had received since the start when the kill was sent. */
  callsAtKill: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs `command` (program then arguments, no shell) and SIGKILLs it after `calls` server requests. */
export function killAfterCalls(
  command: readonly string[],
  { server, calls, cwd, pollMs = 2 }: KillAfterCallsOptions,
): Promise<KilledRun> {
  const [program, ...args] = command;
  if (program === undefined) return Promise.reject(new Error("killAfterCalls needs a command"));
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    const start = server.stats.calls;
    let callsAtKill = 0;
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setInterval(() => {
      if (server.stats.calls - start < calls) return;
      clearInterval(timer);
      callsAtKill = server.stats.calls - start;
      child.kill("SIGKILL");
    }, pollMs);
    child.on("error", (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearInterval(timer);
      resolve({ killed: signal === "SIGKILL", callsAtKill, code, signal, stderr });
    });
  });
}
