// What bundling changes in a module that finds its files by `import.meta.url` (the PGlite thread script and
// data directory, built-in propositions and scenarios, the `init` scaffold, the dashboard's assets, packages
// resolved by `createRequire`), undone for both bundles: the library's (scripts/bundle-library.mjs) and the
// command's (scripts/bundle-cli.mjs). Each module's `import.meta.url` becomes the URL of its place in dist/
// (src/store/pglite-db.ts → dist/store/pglite-db.js), where copy-assets puts the files it looks for beside it.
// Which output file a module lands in is known only after the build (the library's is split in chunks), so
// the load step leaves a marker and the output step turns it into a URL relative to that output file.
import { dirname, join, relative, sep } from "node:path";

const MARKER = /__dgModuleUrl\("([^"]+)"\)/g;

/** A module's source with `import.meta.url` marked as the place in `dist` of `file`, a module under `src`. */
export function markModuleUrl(contents, file, src) {
  if (!file.startsWith(src + sep) || !contents.includes("import.meta.url")) return contents;
  const place = relative(src, file).split(sep).join("/").replace(/\.ts$/, ".js");
  return contents.replaceAll("import.meta.url", `__dgModuleUrl(${JSON.stringify(place)})`);
}

/**
 * An output file's text with each marker replaced by the module's URL, found from `base` (an expression for
 * the URL of the output file itself: `import.meta.url`, or the CommonJS bundle's own).
 */
export function placeModuleUrls(text, outputFile, dist, base) {
  return text.replace(MARKER, (_marker, place) => {
    const path = relative(dirname(outputFile), join(dist, place)).split(sep).join("/");
    return `new URL(${JSON.stringify(path.startsWith(".") ? path : `./${path}`)}, ${base}).href`;
  });
}
