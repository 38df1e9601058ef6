// `eval` with globs as a user quotes them: the shell leaves the pattern to Dramaturg, which walks it with
// tinyglobby — braces, a folder linking to its parent, node_modules and .git left alone.
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

const TRANSCRIPT = `${ROOT}examples/ensemble/transcript.json`;

/** `eval` of a pattern in `cwd` with the demo's propositions and judge, as JSON. */
const evaluate = (pattern: string, cwd: string) =>
  cli(
    [
      "eval",
      pattern,
      "--propositions",
      `${ROOT}examples/ensemble/propositions`,
      "--judge",
      `fixtures:${ROOT}examples/ensemble/judge-fixtures.json`,
      "--db",
      "memory://",
      "--format",
      "json",
    ],
    { cwd },
  );

/** A folder with the demo transcript at `at`. */
function folderWith(at: string): string {
  const root = tempDir("dramaturg-patterns-");
  mkdirSync(join(root, at, ".."), { recursive: true });
  copyFileSync(TRANSCRIPT, join(root, at));
  return root;
}

describe("eval with a quoted glob", () => {
  it("a globstar over a folder that links to its parent evaluates its transcript once", async () => {
    const root = folderWith("a/b/episode.json");
    symlinkSync("..", join(root, "a/b/up"));
    const r = await evaluate("a/**/*.json", root);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).source).toBe("a/b/episode.json");
  });

  it("a brace pattern finds the transcript in one of its folders", async () => {
    const root = folderWith("t/b/x.json");
    mkdirSync(join(root, "t/a"));
    const r = await evaluate("t/{a,b}/x.json", root);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).source).toBe("t/b/x.json");
  });

  it("a globstar leaves node_modules and .git alone", async () => {
    const root = folderWith("t/x.json");
    for (const folder of ["node_modules/pkg", ".git/x"]) {
      mkdirSync(join(root, folder), { recursive: true });
      writeFileSync(join(root, folder, "package.json"), "not a transcript");
    }
    const r = await evaluate("**/*.json", root);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).source).toBe("t/x.json");
  });
});
