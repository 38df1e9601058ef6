// A command never imports another command (nor the program that loads them): what two commands share is a
// module of its own beside them in src/cli/. dpdm (`npm run check:cycles`) catches cycles; this catches the
// import that is not yet one.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const COMMANDS = fileURLToPath(new URL("../../src/cli/commands/", import.meta.url));
const PROGRAM = resolve(COMMANDS, "..", "program.ts");

/** Every module a file names, statically or through `import()`, with type-only imports left out. */
function importedSpecifiers(source: string): string[] {
  const found: string[] = [];
  const statics = /^\s*(import|export)\s+(?!type\s)[^;]*?\sfrom\s+["']([^"']+)["']/gm;
  for (const m of source.matchAll(statics)) found.push(m[2]!);
  for (const m of source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push(m[1]!);
  return found;
}

describe("command modules", () => {
  const files = readdirSync(COMMANDS).filter((f) => f.endsWith(".ts"));

  it("finds the commands and their imports", () => {
    expect(files).toContain("eval.ts");
    expect(importedSpecifiers('import { a } from "./x.ts";\nconst m = await import("../y.ts");')).toEqual([
      "./x.ts",
      "../y.ts",
    ]);
    expect(importedSpecifiers('import type { A } from "./x.ts";')).toEqual([]);
  });

  it("no command imports another command or the program", () => {
    const offending = files.flatMap((file) =>
      importedSpecifiers(readFileSync(join(COMMANDS, file), "utf8"))
        .filter((s) => s.startsWith("."))
        .map((s) => resolve(dirname(join(COMMANDS, file)), s))
        .filter((target) => dirname(target) === resolve(COMMANDS) || target === PROGRAM)
        .map((target) => `${file} imports ${target.slice(resolve(COMMANDS, "..").length + 1)}`),
    );
    expect(offending).toEqual([]);
  });
});
