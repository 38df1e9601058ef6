// Copies the files the build does not emit into dist/, beside the places of the modules that find them by
// import.meta.url (scripts/module-urls.mjs): the PGlite worker thread script, the built-in proposition sets and
// scenarios, the `dramaturg init` scaffold and the dashboard's stylesheet and script; then makes the pristine PGlite data directory that
// new stores start from (dist/store/pristine/).
import { cpSync, existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

const ASSETS = [
  "store/pglite-thread.js",
  "propositions/builtin",
  "experiments/scenarios",
  "cli/scaffold",
  "web/assets",
];

for (const asset of ASSETS) {
  const from = `${ROOT}src/${asset}`;
  if (!existsSync(from)) throw new Error(`copy-assets: ${from} is missing`);
  cpSync(from, `${ROOT}dist/${asset}`, { recursive: true });
}

// With the built store (dist/store/pristine-data-dir.js, an entry of scripts/bundle-library.mjs for this) and its
// thread script in place: the same code that reads the directory makes it.
const pristine = await import(pathToFileURL(`${ROOT}dist/store/pristine-data-dir.js`).href);
const tar = await pristine.makePristineDataDir();
await pristine.writeAtomically(pristine.shippedPristineFile(), tar);
