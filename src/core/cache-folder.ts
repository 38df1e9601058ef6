// Where Dramaturg keeps what it makes on first use and reuses after (the store's pristine data directory,
// the command's code cache): `node_modules/.cache/dramaturg/` of the project it is installed in, or of its
// own checkout. Only node:path, so that the command's bin can use it before anything else is loaded.
import { join, sep } from "node:path";

/**
 * The cache folder, found from `dir`: a folder two levels inside the package (dist/bin, dist/store,
 * src/store, …). Installed, that is the `node_modules` that holds the package; in a checkout, its own.
 */
export function dramaturgCacheFolder(dir: string): string {
  const installed = dir.lastIndexOf(`${sep}node_modules${sep}`);
  const modules =
    installed >= 0
      ? dir.slice(0, installed + `${sep}node_modules`.length)
      : join(dir, "..", "..", "node_modules");
  return join(modules, ".cache", "dramaturg");
}
