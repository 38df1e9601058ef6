// Bundles the `dramaturg` command into dist/bin/ (the package's bin): its modules and the pure-JavaScript
// packages it loads (zod, commander, yaml, the AI SDK) in one file instead of ≈ 230, which is ≈ 50 ms of
// the command's start-up on Node 20 (module resolution, reading and linking; docs/design/performance.md). The
// library is built apart (scripts/bundle-library.mjs); this bundle is made from the same sources after it.
//
// The bundle, dist/bin/program.cjs, is a CommonJS script that the bin, dist/bin/dramaturg.cjs
// (src/cli/bin.ts), compiles with V8's code cache kept on disk (src/cli/code-cache.ts); the bin holds the
// bundle's hash, which names the cache. The few `import()` of packages left out of the bundle become calls of
// the `__dgImport` the bin hands in: a script compiled by node:vm has no module loader of its own.
//
// A module's `import.meta.url` is the URL of its place in dist/, as in the library (scripts/module-urls.mjs), so
// each finds the files copy-assets put there, and a `createRequire` resolves packages from where it did.
import { createHash } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { markModuleUrl, placeModuleUrls } from "./module-urls.mjs";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");
const OUT = join(DIST, "bin");
const ENTRY = "dramaturg.cjs";
const PROGRAM = "program.cjs";
/** The script's wrapper; the bin calls the function it evaluates to (src/cli/code-cache.ts). */
const PROGRAM_HEAD = '(function (exports, require, module, __filename, __dirname, __dgImport) {"use strict";';
const PROGRAM_TAIL = "\n})";

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
 * The library requires yaml (CommonJS, ≈ 60 files) at its first parse, cel-js at a job's first expression and
 * tinyglobby at the first glob, so that importing dramaturg does not load them. In the bundle the same lazy
 * require becomes esbuild's: their modules are in the bundle and run at that first call, instead of being
 * resolved, read and compiled one by one (≈ 8 ms of an eval's start-up for yaml).
 */
const LAZY_REQUIRE = /createRequire\(import\.meta\.url\)\("(yaml|@marcbachmann\/cel-js|tinyglobby)"\)/g;

/**
 * The AI SDK's header helpers name fetch's global `Headers`, which makes Node load undici (14 ms on Node 20,
 * 19 ms on Node 24) before the first judge request, though the command sends its requests with node:http.
 * In the bundle they are src/judge/provider-headers.ts, which gives the same results without it (a test
 * compares the two); the SDK's own become dead code that the bundler drops. An SDK release that renames them
 * stops the build here, so the swap is looked at again rather than silently lost.
 */
const PROVIDER_UTILS = /[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.js$/;
const SDK_HEADER_HELPERS = ["normalizeHeaders", "withUserAgentSuffix"];

const packageOf = (specifier) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];

/** The import.meta.url rewrite, the externals and the SDK's header helpers. */
const layout = {
  name: "dramaturg-layout",
  setup(b) {
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
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = (await readFile(args.path, "utf8"))
        .replace(LAZY_REQUIRE, 'require("$1")')
        // import() of what is left out of the bundle goes through the bin (see the header).
        .replace(/\bimport\((["'])([^"'\n]+)\1\)/g, (call, _quote, specifier) =>
          specifier.startsWith("node:") || EXTERNAL.includes(packageOf(specifier))
            ? `__dgImport(${JSON.stringify(specifier)})`
            : call,
        );
      const contents = markModuleUrl(source, args.path, SRC);
      return { contents, loader: "ts" };
    });
  },
};

// The command, as one CommonJS script. Node's modules are required, as CommonJS does: their ES-module face
// would read every export, running lazy getters that load modules of their own (on Node 24 node:http's
// `WebSocket` loads undici, ≈ 19 ms).
/** The bundle and the bin: both CommonJS scripts in dist/bin/. */
const COMMONJS = {
  outdir: OUT,
  outExtension: { ".js": ".cjs" },
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  logLevel: "warning",
};
const program = await build({
  ...COMMONJS,
  entryPoints: { program: join(SRC, "cli", "program.ts") },
  define: { "import.meta.url": "__dgUrl" },
  banner: { js: 'var __dgUrl = require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
  write: false,
  plugins: [layout],
});
const [output] = program.outputFiles;
const text = placeModuleUrls(output.text, join(OUT, PROGRAM), DIST, "__dgUrl");
// ASCII only, so that the bin reads it as latin1: a one-byte string without UTF-8 decoding, 2 ms against 15–22
// for the 4.2 MB on Node 20. esbuild escapes what is outside ASCII in strings and names; comments keep theirs.
const ascii = text.replace(/[\u0080-\u{10ffff}]/gu, (c) => {
  const point = c.codePointAt(0);
  return point > 0xffff ? `\\u{${point.toString(16)}}` : `\\u${point.toString(16).padStart(4, "0")}`;
});
// Wrapped as Node wraps a CommonJS module, with `import()` handed in as `__dgImport` (src/cli/code-cache.ts).
const code = `${PROGRAM_HEAD}${ascii}${PROGRAM_TAIL}`;
// An `import("…")` left in the bundle (a package's own, of something left out) would fail at run time: a
// script compiled by node:vm cannot import. Ours became __dgImport (onLoad above).
const left = /\bimport\((?=["'`])/.exec(code);
if (left)
  throw new Error(
    `bundle-cli: ${PROGRAM} has an import( at ${left.index}: ${code.slice(left.index, left.index + 80)}`,
  );
await mkdir(OUT, { recursive: true });
await writeFile(join(OUT, PROGRAM), code);
const hash = createHash("sha256").update(code).digest("hex").slice(0, 16);

// The bin: compiles the bundle with its code cache (src/cli/bin.ts, src/cli/code-cache.ts). CommonJS, like
// the bundle (see bin.ts).
await build({
  ...COMMONJS,
  entryPoints: { dramaturg: join(SRC, "cli", "bin.ts") },
  define: { DRAMATURG_PROGRAM_HASH: JSON.stringify(hash) },
});

await chmod(join(OUT, ENTRY), 0o755);
const kb = Math.round(Buffer.byteLength(code) / 1024);
console.log(`bundle-cli: ${relative(ROOT, join(OUT, ENTRY))} and ${PROGRAM} (${kb} kB, ${hash})`);
