// One temp folder for the whole run: TMPDIR points the test workers, and the CLI processes they start,
// into it. At the end it is removed; anything left in it but the compile caches of the CLI processes
// (tsx's, and Node 22+'s node-compile-cache, which the CLI turns on) is a folder a test did not remove
// (make them with test/temp-dir.ts), and fails the run.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const VARIABLES = ["TMPDIR", "TMP", "TEMP"] as const;
/** What the CLI processes the tests start leave by design: tsx's cache, and Node's module compile cache. */
const COMPILE_CACHES = /^(tsx-|node-compile-cache$)/;

export function setup(): () => void {
  const saved = VARIABLES.map((name) => [name, process.env[name]] as const);
  const run = mkdtempSync(join(tmpdir(), "dramaturg-test-run-"));
  for (const name of VARIABLES) process.env[name] = run;
  return () => {
    for (const [name, value] of saved)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    const left = readdirSync(run).filter((entry) => !COMPILE_CACHES.test(entry));
    rmSync(run, { recursive: true, force: true, maxRetries: 3 });
    if (left.length > 0)
      throw new Error(
        `tests left behind in the temp folder: ${left.join(", ")} (make temp folders with tempDir() or useTempDir() of test/temp-dir.ts)`,
      );
  };
}
