// One temp folder for the whole run: TMPDIR points the test workers, and the CLI processes they start,
// into it. At the end it is removed; anything left in it but tsx's compile cache (the CLI processes')
// is a folder a test did not remove (make them with test/temp-dir.ts), and fails the run.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const VARIABLES = ["TMPDIR", "TMP", "TEMP"] as const;

export function setup(): () => void {
  const saved = VARIABLES.map((name) => [name, process.env[name]] as const);
  const run = mkdtempSync(join(tmpdir(), "dramaturg-test-run-"));
  for (const name of VARIABLES) process.env[name] = run;
  return () => {
    for (const [name, value] of saved)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    const left = readdirSync(run).filter((entry) => !entry.startsWith("tsx-"));
    rmSync(run, { recursive: true, force: true, maxRetries: 3 });
    if (left.length > 0)
      throw new Error(
        `tests left behind in the temp folder: ${left.join(", ")} (make temp folders with tempDir() or useTempDir() of test/temp-dir.ts)`,
      );
  };
}
