// `dramaturg serve --baselines DIR`: the folder the drift charts draw against is read and checked when the
// server starts, so a wrong one is bad input (exit 2, naming it), not a page that quietly lacks its lines.
import { describe, expect, it } from "vitest";
import { cli } from "../cli/run-cli.ts";

describe("dramaturg serve --baselines", () => {
  it("a folder that is not there is exit 2, naming it", async () => {
    const r = await cli(["serve", "--db", "memory://", "--port", "0", "--baselines", "no-such-baselines"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no-such-baselines");
    expect(r.stderr).toMatch(/baselines folder not found/);
  });

  it("a folder without agent baselines is exit 2", async () => {
    const r = await cli([
      "serve",
      "--db",
      "memory://",
      "--port",
      "0",
      "--baselines",
      "examples/ensemble/propositions",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no agent baselines/);
  });
});
