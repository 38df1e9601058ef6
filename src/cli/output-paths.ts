// Where a command will write, checked before it does any work: a run that found out at its end that
// `--out no-such-dir/out.json` cannot be written has spent its model calls for nothing (and with memory://,
// lost its results). One check for every command's output flags.
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { InputError } from "../core/index.ts";

/**
 * Refuses, as bad input naming the flag, any output path whose folder does not exist or cannot be written,
 * or that names a folder. `files` maps each flag (`--out`) to its value; unset flags are skipped.
 * `folders` are flags that name an output folder, created if missing: their nearest existing parent must
 * be a writable folder.
 */
export function checkOutputPaths(
  files: Record<string, string | undefined>,
  folders: Record<string, string | undefined> = {},
): void {
  for (const [flag, path] of Object.entries(files)) {
    if (path === undefined || path === "-") continue;
    const kind = kindOf(path);
    if (kind === "folder")
      throw new InputError(`${path} is a folder; expected a file to write`, { place: flag });
    writableFolder(flag, dirname(resolve(path)), path);
  }
  for (const [flag, path] of Object.entries(folders)) {
    if (path === undefined) continue;
    const kind = kindOf(path);
    if (kind === "file")
      throw new InputError(`${path} is a file; expected a folder to write into`, { place: flag });
    let existing = resolve(path);
    while (kindOf(existing) === undefined && dirname(existing) !== existing) existing = dirname(existing);
    writableFolder(flag, existing, path);
  }
}

function kindOf(path: string): "file" | "folder" | undefined {
  try {
    return statSync(path).isDirectory() ? "folder" : "file";
  } catch {
    return undefined;
  }
}

function writableFolder(flag: string, folder: string, path: string): void {
  const kind = kindOf(folder);
  if (kind === undefined)
    throw new InputError(`cannot write ${path}: the folder ${folder} does not exist (create it first)`, {
      place: flag,
    });
  if (kind === "file")
    throw new InputError(`cannot write ${path}: ${folder} is a file, not a folder`, { place: flag });
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new InputError(`cannot write ${path}: the folder ${folder} is not writable`, { place: flag });
  }
}
