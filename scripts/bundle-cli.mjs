// Bundles the `dramaturg` command into dist/bin/ (the package's bin): its modules and the pure-JavaScript
// packages it loads (zod, commander, yaml, the AI SDK) in a few files instead of ≈ 230, which is ≈ 50 ms of
// the command's start-up on Node 20 (module resolution, reading and linking; docs/design-notes.md). The
// library stays as tsc wrote it (dist/*.js); the bundle is made from the same sources after it.
//
// Two things a bundle would change, undone here:
// - `import.meta.url`: a module finds its files beside it (the PGlite thread script, the pristine data
//   directory, built-in propositions, the `init` scaffold, the dashboard's assets). In the bundle every
//   module's `import.meta.url` is replaced by the URL of its compiled file in dist/, so each finds the
//   files copy-assets put there, and a `createRequire` resolves packages from where it did.
// - `require` of Node's modules from a bundled CommonJS package: an ES module has no `require`, so the
//   bundle defines one (createRequire) at its top.
import { existsSync } from "node:fs";
import { chmod, readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");
const OUT = join(DIST, "bin");
const ENTRY = "dramaturg.js";

/**
 * Packages left to Node at run time: those that load files of their own (PGlite's WebAssembly and data),
 * have native or optional parts (pg, neo4j-driver, kuzu-wasm), generate code that requires its own modules
 * (ajv), or only tests and tools use. They resolve from dist/, as the library's modules do.
 */
const EXTERNAL = [
  "@electric-sql/pglite",
  "pg",
  "pg-boss",
  "neo4j-driver",
  "kuzu-wasm",
  "ajv",
  "ajv-formats",
  "playwright-core",
  "vitest",
  "tsx",
];

/**
 * The library requires yaml (CommonJS, ≈ 60 files) at its first parse, so that importing dramaturg does not
 * load it. In the bundle the same lazy require becomes esbuild's: yaml's modules are in the bundle and run at
 * that first call, instead of being resolved, read and compiled one by one (≈ 8 ms of an eval's start-up).
 */
const LAZY_YAML = 'createRequire(import.meta.url)("yaml")';

/**
 * zod's index of its 60-odd translations of error messages (≈ 370 kB of the bundle, read and run before the
 * first request) is replaced by English alone: zod's default, the only one the command uses.
 */
const ZOD_LOCALES = /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/;

const packageOf = (specifier) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];

/** The import.meta.url rewrite, the externals and zod's translations. */
const layout = {
  name: "dramaturg-layout",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("node:") || EXTERNAL.includes(packageOf(args.path)))
        return { path: args.path, external: true };
      return undefined;
    });
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      const path = join(args.resolveDir, args.path);
      return ZOD_LOCALES.test(path) ? { path, namespace: "zod-english" } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: "zod-english" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      resolveDir: dirname(args.path),
      loader: "js",
    }));
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      let contents = (await readFile(args.path, "utf8")).replaceAll(LAZY_YAML, 'require("yaml")');
      if (args.path.startsWith(SRC + sep) && contents.includes("import.meta.url")) {
        const compiled = join(DIST, relative(SRC, args.path)).replace(/\.ts$/, ".js");
        if (!existsSync(compiled))
          throw new Error(`bundle-cli: ${compiled} is missing; run tsc first (npm run build does)`);
        const fromBundle = relative(OUT, compiled).split(sep).join("/");
        contents = contents.replaceAll(
          "import.meta.url",
          `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`,
        );
      }
      return { contents, loader: "ts" };
    });
  },
};

const result = await build({
  entryPoints: { dramaturg: join(SRC, "cli", "main.ts") },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: "chunk-[hash]",
  banner: {
    js: 'import { createRequire as __dramaturgRequire } from "node:module"; const require = __dramaturgRequire(import.meta.url);',
  },
  metafile: true,
  logLevel: "warning",
  plugins: [layout],
});

await chmod(join(OUT, ENTRY), 0o755);
const outputs = Object.values(result.metafile.outputs);
const kb = Math.round(outputs.reduce((sum, o) => sum + o.bytes, 0) / 1024);
console.log(`bundle-cli: ${relative(ROOT, join(OUT, ENTRY))} and ${outputs.length - 1} more files, ${kb} kB`);
