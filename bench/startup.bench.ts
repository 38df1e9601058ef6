// Start-up of the compiled package, as a user's shell sees it: `dramaturg --help`, `dramaturg --version` and
// importing the main entry from plain Node, each a fresh process timed from spawn to exit (median of 10 after
// one warm-up). Builds dist/ first, so the figures are of the JavaScript that ships, not of tsx.
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CLI_BIN } from "./cli-run.bench.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

export interface StartupFigures {
  runs: number;
  /** Median wall milliseconds of each command. */
  help_ms: number;
  version_ms: number;
  import_ms: number;
  node: string;
}

function medianWallMs(args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const started = performance.now();
    const child = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    const ms = performance.now() - started;
    if (child.status !== 0) throw new Error(`node ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
    if (i > 0) times.push(ms); // the first run warms the disk cache
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  return times.length % 2 ? times[mid]! : (times[mid - 1]! + times[mid]!) / 2;
}

export async function benchStartup(runs = 10): Promise<StartupFigures> {
  execFileSync("npm", ["run", "--silent", "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const main = CLI_BIN;
  const entry = pathToFileURL(`${ROOT}dist/index.js`).href;
  return {
    runs,
    help_ms: medianWallMs([main, "--help"], runs),
    version_ms: medianWallMs([main, "--version"], runs),
    import_ms: medianWallMs(["--input-type=module", "-e", `await import(${JSON.stringify(entry)})`], runs),
    node: process.version,
  };
}
