// Runs a command (a `dramaturg eval`, say) and signals it (SIGKILL unless told otherwise) once the fake
// server has received a given number of requests: the interruptions that resume tests recover from.
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
  /** The signal to send. Default SIGKILL (a crash); SIGINT is a Ctrl-C the command may handle. */
  signal?: NodeJS.Signals;
}

export interface KilledRun {
  /** Whether the signal was sent (and, for SIGKILL, ended the command); false when the command ended first. */
  killed: boolean;
  /** Requests the server had received since the start when the kill was sent. */
  callsAtKill: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** Milliseconds from the signal to the command's exit (0 when none was sent). */
  exitMs: number;
}

/** Runs `command` (program then arguments, no shell) and signals it after `calls` server requests. */
export function killAfterCalls(
  command: readonly string[],
  { server, calls, cwd, pollMs = 2, signal: send = "SIGKILL" }: KillAfterCallsOptions,
): Promise<KilledRun> {
  const [program, ...args] = command;
  if (program === undefined) return Promise.reject(new Error("killAfterCalls needs a command"));
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    const start = server.stats.calls;
    let callsAtKill = 0;
    let sentAt = 0;
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setInterval(() => {
      if (server.stats.calls - start < calls) return;
      clearInterval(timer);
      callsAtKill = server.stats.calls - start;
      sentAt = Date.now();
      child.kill(send);
    }, pollMs);
    child.on("error", (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearInterval(timer);
      const killed = send === "SIGKILL" ? signal === "SIGKILL" : sentAt > 0;
      resolve({ killed, callsAtKill, code, signal, stderr, exitMs: sentAt ? Date.now() - sentAt : 0 });
    });
  });
}
