// Copies the files tsc does not emit into dist/, beside the modules that find them by import.meta.url:
// the PGlite worker thread script, the built-in proposition sets and the `dramaturg init` scaffold.
import { cpSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

const ASSETS = ["store/pglite-thread.js", "propositions/builtin", "cli/scaffold"];

for (const asset of ASSETS) {
  const from = `${ROOT}src/${asset}`;
  if (!existsSync(from)) throw new Error(`copy-assets: ${from} is missing`);
  cpSync(from, `${ROOT}dist/${asset}`, { recursive: true });
}
