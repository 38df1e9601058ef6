// What `import("dramaturg")` loads: of the package's dependencies only zod (the formats' exported schemas);
// every other loads at its first use, so that importing the library stays fast (docs/performance.md).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "./temp-dir.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Records every module URL the child's imports resolve to, one a line, in the file `initialize` is given. */
const RECORDING_HOOKS = `
import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + "\\n");
  return resolved;
}`;

/** The packages under node_modules that importing `entry` (through tsx, as the tests run src/) loads. */
function packagesLoadedBy(entry: string): string[] {
  const log = join(tempDir(), "resolved.txt");
  const script = `
import { register } from "node:module";
import { register as registerTsx } from "tsx/esm/api";
registerTsx();
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RECORDING_HOOKS)}`)}, { data: { log: ${JSON.stringify(log)} } });
await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});`;
  execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, stdio: "pipe" });
  const packages = new Set<string>();
  for (const url of readFileSync(log, "utf8").split("\n")) {
    const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
    if (name) packages.add(name);
  }
  return [...packages].sort();
}

describe("importing the main entry", () => {
  it("loads zod alone of the package's dependencies: cel-js, tinyglobby, yaml, ajv and the AI SDK wait for their first use", () => {
    expect(packagesLoadedBy("src/index.ts")).toEqual(["zod"]);
  });
});
