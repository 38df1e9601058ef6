// `npm ci` / `npm install` in a clone, and `npm i -D git+https://…`, run `prepare`: build dist/ so that
// `npx dramaturg` works at once. Only when it is missing or older than a source file: npx links a project's
// root into its cache and runs `prepare` again there, which must not rebuild (or break) a fresh dist/.
import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BUILT = join(ROOT, "dist", "bin", "dramaturg.cjs");

/** The newest modification time of a file under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const sources = Math.max(newest(join(ROOT, "src")), newest(join(ROOT, "scripts")));
if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= sources) {
  console.log("prepare: dist/ is up to date");
} else {
  execSync("npm run build", { cwd: ROOT, stdio: "inherit" });
}
