// The package.json that `npm pack` and `npm publish` ship, without the `prepare` script: `prepack` runs
// `strip` after the build, `postpack` runs `restore`. In a clone `prepare` builds dist/ at `npm ci`; in the
// tarball dist/ is built and scripts/ is not shipped, so it has nothing to do, and npm 11 warns whoever installs
// the tarball that it is an install script their allowScripts does not cover.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const MANIFEST = join(ROOT, "package.json");
/** The clone's own package.json while a pack is under way: ignored by git, never packed. */
const KEPT = join(ROOT, "node_modules", ".cache", "dramaturg-pack", "package.json");

/** The manifest as packed: the same text (npm's two-space JSON) without `scripts.prepare`. */
export function packedManifest(text) {
  const manifest = JSON.parse(text);
  delete manifest.scripts?.prepare;
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** `strip` before the tarball is made, `restore` after. */
function run(command) {
  if (command === "strip") {
    // A pack that stopped before its postpack left the stripped file and the kept one: keep the clone's.
    if (!existsSync(KEPT)) {
      mkdirSync(dirname(KEPT), { recursive: true });
      writeFileSync(KEPT, readFileSync(MANIFEST));
    }
    writeFileSync(MANIFEST, packedManifest(readFileSync(KEPT, "utf8")));
  } else if (command === "restore") {
    if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
    rmSync(dirname(KEPT), { recursive: true, force: true });
  } else {
    console.error(`pack-manifest: expected strip or restore, got ${command}`);
    process.exit(2);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) run(process.argv[2]);
