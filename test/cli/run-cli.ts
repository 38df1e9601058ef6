// Runs the CLI in-process (fast) or as a real process (exit codes, signals), capturing its output.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { vi } from "vitest";
import { runCli } from "../../src/cli/program.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BIN = `${ROOT}bin/dramaturg.js`;

/** The bundled example's transcript, propositions and hand-written fixture judge, as eval arguments. */
export const DEMO = [
  `${ROOT}examples/ensemble/transcript.json`,
  "--propositions",
  `${ROOT}examples/ensemble/propositions`,
  "--judge",
  `fixtures:${ROOT}examples/ensemble/judge-fixtures.json`,
];

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Calls the CLI in this process with stdout and stderr captured. */
export async function cli(args: string[], { cwd }: { cwd?: string } = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  });
  const previous = process.cwd();
  if (cwd) process.chdir(cwd);
  try {
    const code = await runCli(args);
    return { code, stdout, stderr };
  } finally {
    if (cwd) process.chdir(previous);
    out.mockRestore();
    err.mockRestore();
  }
}

/** Runs `dramaturg` as a child process. */
export function spawnCli(
  args: string[],
  { cwd = ROOT, env = {} }: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A `dramaturg` process that runs until stopped (a worker, a server); `stop()` sends SIGTERM and resolves with its exit code and stderr. */
export function startCliProcess(args: string[], { env = {} }: { env?: Record<string, string> } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    async stop() {
      child.kill("SIGTERM");
      return { code: await exited, stderr };
    },
  };
}

/**
 * The flags of a command whose agents and judge are models on (fake) OpenAI-compatible servers, and its
 * store: what `simulate` and `experiment run` take after their world or scenario.
 */
export function modelFlags({ agents, judge, db }: { agents: string; judge: string; db: string }): string[] {
  return [
    "--model",
    "openai-compatible:agents",
    "--base-url",
    agents,
    "--judge",
    "openai-compatible:judge",
    "--judge-base-url",
    judge,
    "--db",
    db,
  ];
}
