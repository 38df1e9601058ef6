// Temporary folders for tests, each removed when the test (or the file or describe block) that made it
// ends, so a run leaves the system temp folder as it found it. Every test makes its folders here.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, onTestFinished } from "vitest";

/** A new empty folder under the system temp folder, removed when the current test ends (in a test or a `beforeEach`). */
export function tempDir(prefix = "dramaturg-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    onTestFinished(() => removeDir(dir));
  } catch (error) {
    removeDir(dir);
    throw new Error("tempDir() is for a test or a beforeEach; at file or describe level use useTempDir()", {
      cause: error,
    });
  }
  return dir;
}

/**
 * A folder shared by the tests of a file or describe block: made before the first, removed after the
 * last (after the block's own afterAll hooks, which may still close stores inside it). Call it at file or
 * describe level, before the hooks that use it; the getter returns the folder while the tests run.
 */
export function useTempDir(prefix = "dramaturg-test-"): () => string {
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (dir) removeDir(dir);
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error("useTempDir(): the folder exists only while the block's tests run");
    return dir;
  };
}

function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
