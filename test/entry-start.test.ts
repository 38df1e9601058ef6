// What `import("dramaturg")` loads: of the package's dependencies only zod (the formats' exported schemas);
// every other loads at its first use; and of ours, in the built package, a dozen files that esbuild's code
// splitting made, not one per module (scripts/bundle-library.mjs), so that importing the library stays fast
// (docs/design/performance.md).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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

/** The module URLs that importing `entry` resolves, through tsx for src/ (as the tests run it) or plain Node. */
function urlsLoadedBy(entry: string): string[] {
  const log = join(tempDir(), "resolved.txt");
  const script = `
import { register } from "node:module";
${entry.startsWith("src/") ? 'import { register as registerTsx } from "tsx/esm/api";\nregisterTsx();' : ""}
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RECORDING_HOOKS)}`)}, { data: { log: ${JSON.stringify(log)} } });
await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});`;
  execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, stdio: "pipe" });
  return [...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))];
}

/** The packages under node_modules that importing `entry` loads. */
function packagesLoadedBy(entry: string): string[] {
  const packages = new Set<string>();
  for (const url of urlsLoadedBy(entry)) {
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

// Of the package as it ships (npm run build; npm ci builds it in a clone).
describe.skipIf(!existsSync(join(ROOT, "dist/index.js")))("the built main entry", () => {
  it("loads a dozen files of ours, not one per module: the entries are split in shared chunks", () => {
    const ours = urlsLoadedBy("dist/index.js").filter((url) =>
      url.startsWith(pathToFileURL(join(ROOT, "dist")).href),
    );
    expect(ours.length).toBeGreaterThan(1);
    expect(ours.length).toBeLessThanOrEqual(20);
  });

  it("loads zod alone of the package's dependencies, as the sources do", () => {
    expect(packagesLoadedBy("dist/index.js")).toEqual(["zod"]);
  });

  it("shares its modules with the other entries: an error from dramaturg/calibration is the InputError of dramaturg", async () => {
    const { InputError } = await import(pathToFileURL(join(ROOT, "dist/index.js")).href);
    const { readLabels } = await import(pathToFileURL(join(ROOT, "dist/entries/calibration.js")).href);
    let thrown: unknown;
    try {
      readLabels([tempDir()]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InputError);
  });
});
