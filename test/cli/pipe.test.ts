// The command as the writer of a pipe whose reader has gone (`dramaturg schema transcript | head -1`).
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BIN, ROOT } from "./run-cli.ts";

describe("a closed pipe on stdout", () => {
  it("ends the command quietly with exit 0, not an unhandled EPIPE", async () => {
    const child = spawn(process.execPath, [BIN, "schema", "transcript"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The reader goes before the command writes: its first write fails with EPIPE.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
