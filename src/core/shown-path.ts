// How a path is shown (results, messages): relative to the working directory when it is inside it
// (shorter, and the same on every machine), as given otherwise.
import { isAbsolute, relative } from "node:path";

export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
