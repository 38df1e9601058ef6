// Builds the library's JavaScript, dist/**/*.js: every entry of package.json's `exports` in one esbuild build
// with code splitting, so that `import("dramaturg")` loads a dozen files of ours instead of ≈ 175 (their
// resolution, reading and compiling was most of its start-up: docs/design/performance.md). A module is in one
// output file across the entries (a class is the same class from `dramaturg` and `dramaturg/testing`), and a
// lazy `import()` of ours is a chunk loaded at its first use. Every package stays in node_modules. tsc writes
// the .d.ts files beside, where `exports.types` points (tsconfig.build.json).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { markModuleUrl, placeModuleUrls } from "./module-urls.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");

const manifest = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
/** dist/entries/queue.js → entries/queue: the output's name, and its source under src/. */
const entries = Object.values(manifest.exports)
  .map((target) => target.import)
  .filter(Boolean)
  .map((file) => file.replace(/^\.\/dist\//, "").replace(/\.js$/, ""));
// Not an export: scripts/copy-assets.mjs makes the pristine data directory with it.
entries.push("store/pristine-data-dir");

const result = await build({
  entryPoints: Object.fromEntries(entries.map((name) => [name, join(SRC, `${name}.ts`)])),
  outdir: DIST,
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  write: false,
  logLevel: "warning",
  plugins: [
    {
      name: "dramaturg-module-urls",
      setup(b) {
        b.onLoad({ filter: /\.ts$/ }, async (args) => ({
          contents: markModuleUrl(await readFile(args.path, "utf8"), args.path, SRC),
          loader: "ts",
        }));
      },
    },
  ],
});
for (const output of result.outputFiles) {
  await mkdir(dirname(output.path), { recursive: true });
  await writeFile(output.path, placeModuleUrls(output.text, output.path, DIST, "import.meta.url"));
}
console.log(`bundle-library: ${entries.length} entries and their chunks in ${relative(ROOT, DIST)}/`);
