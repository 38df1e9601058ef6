// A command is thin (settings in, one library call, render): no file of src/cli/commands is over 250 lines.
// What makes one longer belongs in the library folder of its kind, or in a module of its own in src/cli/.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const COMMANDS = fileURLToPath(new URL("../../src/cli/commands/", import.meta.url));
const MOST_LINES = 250;

/** Lines as an editor counts them: a last line without its newline counts too. */
const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

describe("command files", () => {
  const files = readdirSync(COMMANDS).filter((f) => f.endsWith(".ts"));

  it("counts lines as an editor does", () => {
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount("a\nb")).toBe(2);
    expect(files).toContain("experiment.ts");
  });

  it(`no command file is over ${MOST_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file, lines: lineCount(readFileSync(join(COMMANDS, file), "utf8")) }))
      .filter(({ lines }) => lines > MOST_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
