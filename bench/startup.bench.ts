// Start-up of the compiled package, as a user's shell sees it: `dramaturg --help`, `dramaturg --version` and
// importing the main entry from plain Node, each a fresh process timed from spawn to exit (median of 10 after
// one warm-up), beside `node -e 0`: the floor every figure includes, through which a slower machine's figures
// compare. Builds dist/ first, so the figures are of the JavaScript that ships, not of tsx.
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CLI_BIN } from "./cli-run.bench.ts";
import { medianWallMs } from "./median.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

export interface StartupFigures {
  runs: number;
  /** Median wall milliseconds of each command. */
  help_ms: number;
  version_ms: number;
  import_ms: number;
  /** Median wall milliseconds of `node -e 0`: this machine's floor, which every figure above includes. */
  node_ms: number;
  node: string;
}

export async function benchStartup(runs = 10): Promise<StartupFigures> {
  execFileSync("npm", ["run", "--silent", "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
  const main = CLI_BIN;
  const entry = pathToFileURL(`${ROOT}dist/index.js`).href;
  return {
    runs,
    help_ms: medianWallMs(process.execPath, [main, "--help"], runs, { cwd: ROOT }),
    version_ms: medianWallMs(process.execPath, [main, "--version"], runs, { cwd: ROOT }),
    import_ms: medianWallMs(
      process.execPath,
      ["--input-type=module", "-e", `await import(${JSON.stringify(entry)})`],
      runs,
      { cwd: ROOT },
    ),
    node_ms: medianWallMs(process.execPath, ["-e", "0"], runs, { cwd: ROOT }),
    node: process.version,
  };
}
