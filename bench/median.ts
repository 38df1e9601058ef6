// Medians of the benchmarks that time whole processes: of a list of figures, and of a command's wall time
// over fresh spawns.
import { spawnSync } from "node:child_process";

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The median wall milliseconds of `runs` spawns of `command` with `args`, each from spawn to exit, after one
 * that is not counted (it warms the disk cache). A run that exits with a status other than 0 throws.
 */
export function medianWallMs(
  command: string,
  args: readonly string[],
  runs: number,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): number {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    const child = spawnSync(command, args, { ...options, stdio: ["ignore", "ignore", "pipe"] });
    const ms = performance.now() - started;
    if (child.status !== 0)
      throw new Error(`${command} ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
    if (i > 0) times.push(ms);
  }
  return median(times);
}
