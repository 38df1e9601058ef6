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

/**
 * The AI SDK's header helpers name fetch's global `Headers`, which makes Node load undici (14 ms on Node 20,
 * 19 ms on Node 24) before the first judge request, though the command sends its requests with node:http.
 * In the bundle they are src/judge/provider-headers.ts, which gives the same results without it (a test
 * compares the two); the SDK's own become dead code that the bundler drops. An SDK release that renames them
 * stops the build here, so the swap is looked at again rather than silently lost.
 */
const PROVIDER_UTILS = /[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.js$/;
const SDK_HEADER_HELPERS = ["normalizeHeaders", "withUserAgentSuffix"];

/**
 * Node's modules whose ES-module face reads every export, which runs their lazy getters: on Node 24,
 * node:http's `WebSocket` and the like load undici (the same 19 ms), node:crypto's `webcrypto` loads Web
 * Crypto, node:process's `report` and node:util's getters load modules of their own. The bundle takes these
 * with `require`, which reads an export only when it is used.
 */
const REQUIRED_BUILTINS = new Set(["node:http", "node:https", "node:crypto", "node:process", "node:util"]);

const packageOf = (specifier) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];

/** The import.meta.url rewrite, the externals, zod's translations, the SDK's header helpers and node:http. */
const layout = {
  name: "dramaturg-layout",
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) =>
      REQUIRED_BUILTINS.has(args.path) && args.namespace !== "required-builtin"
        ? { path: args.path, namespace: "required-builtin" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "required-builtin" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: "js",
    }));
    b.onLoad({ filter: PROVIDER_UTILS }, async (args) => {
      let contents = await readFile(args.path, "utf8");
      for (const name of SDK_HEADER_HELPERS) {
        const declaration = `function ${name}(`;
        if (contents.split(declaration).length !== 2)
          throw new Error(
            `bundle-cli: @ai-sdk/provider-utils no longer declares ${name} once; see PROVIDER_UTILS`,
          );
        contents = contents.replace(declaration, `function ${name}$sdk(`);
      }
      const ours = join(SRC, "judge", "provider-headers.ts");
      contents += `\nimport { ${SDK_HEADER_HELPERS.join(", ")} } from ${JSON.stringify(ours)};\n`;
      return { contents, loader: "js", resolveDir: dirname(args.path) };
    });
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
