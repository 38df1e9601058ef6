// The files a user's paths and globs name (transcripts, conversation jobs, session files): a path that
// exists is taken as written; a glob goes through tinyglobby, never into node_modules or .git unless the
// pattern names them, never round a symlink loop, and each file comes once however many names reach it.
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, isAbsolute, resolve, sep } from "node:path";
import type * as Tinyglobby from "tinyglobby";
import { nearestName } from "./edit-distance.ts";
import { InputError } from "./errors.ts";
import { shownPath } from "./shown-path.ts";

let tinyglobby: typeof Tinyglobby | undefined;

/**
 * tinyglobby (with fdir and picomatch), required at the first path that is not a file: importing the library
 * does not load it. The bundled command makes this literal call a bundled require (scripts/bundle-cli.mjs).
 */
function globbing(): typeof Tinyglobby {
  tinyglobby ??= createRequire(import.meta.url)("tinyglobby") as typeof Tinyglobby;
  return tinyglobby;
}

/** Folders a glob does not walk into unless the pattern names them: dependencies and version control. */
const WALKED_PAST = ["node_modules", ".git"] as const;

export interface FilePatternOptions {
  /** What the files are, for messages: `transcript file`, `conversation job file`. */
  noun: string;
}

/**
 * Every file the patterns name, in the order given (a glob's matches sorted), each once. A plain path that
 * does not exist, or a glob that matches nothing, is an InputError naming it; a missing file a typo away
 * from one in its folder gets "did you mean …?".
 */
export function expandFilePatterns(patterns: readonly string[], { noun }: FilePatternOptions): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  for (const pattern of patterns)
    for (const file of expandPattern(pattern, noun)) {
      const real = realPath(file);
      if (seen.has(real)) continue;
      seen.add(real);
      files.push(file);
    }
  return files;
}

function expandPattern(pattern: string, noun: string): string[] {
  // A file whose name has glob characters in it (`notes [old].json`) is still that file.
  if (existsSync(pattern)) return [pattern];
  const { globSync, isDynamicPattern } = globbing();
  if (!isDynamicPattern(pattern))
    throw new InputError(`no such ${noun}${didYouMean(pattern)}`, { file: asWritten(pattern) });
  const { base, rest } = splitPattern(pattern);
  // From its static folder: the ignores are relative to where the glob starts, and that folder's own name
  // is a path (brackets and all), not a pattern.
  const named = new Set(rest.split("/"));
  const matches = globSync(rest, {
    cwd: base,
    absolute: true,
    expandDirectories: false,
    onlyFiles: true,
    ignore: WALKED_PAST.filter((folder) => !named.has(folder)).map((folder) => `**/${folder}/**`),
  }).sort();
  const real = new Map<string, string>();
  const realOf = (path: string) => {
    let r = real.get(path);
    if (r === undefined) real.set(path, (r = realPath(path)));
    return r;
  };
  // fdir follows a link back up the tree once before it notices: those matches are the same files again
  // under a longer name, or files outside the pattern's folder. A path that goes round a loop is dropped.
  const found = matches.filter((file) => !throughLoop(file, base, realOf));
  // One name per file: its own (not a link's), else the first.
  const byReal = new Map<string, string>();
  for (const file of found) {
    const r = realOf(file);
    const kept = byReal.get(r);
    if (kept === undefined || (kept !== r && file === r)) byReal.set(r, file);
  }
  const unique = found.filter((file) => byReal.get(realOf(file)) === file);
  if (unique.length === 0)
    throw new InputError(`no ${noun} matches this pattern`, { file: asWritten(pattern) });
  return unique;
}

/** A glob as the folder it starts from (the absolute path up to its first segment with glob syntax) and the rest. */
function splitPattern(pattern: string): { base: string; rest: string } {
  const parts = resolve(pattern).split(sep);
  const found = parts.findIndex((part) => globbing().isDynamicPattern(part));
  const first = found < 0 ? parts.length - 1 : found;
  return { base: parts.slice(0, first).join(sep) || sep, rest: parts.slice(first).join("/") };
}

/**
 * Whether a match's path, below the glob's base, passes through a link to a folder it is already in (the
 * link's target is its own folder or an ancestor of it): the same folder entered a second time.
 */
function throughLoop(file: string, base: string, realOf: (path: string) => string): boolean {
  for (let folder = dirname(file); folder.length > base.length; ) {
    const parent = dirname(folder);
    const target = realOf(folder);
    const around = realOf(parent);
    if (around === target || around.startsWith(target.endsWith(sep) ? target : `${target}${sep}`))
      return true;
    folder = parent;
  }
  return false;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** ` (did you mean transcripts/example.json?)` when the folder has a file a typo away, else "". */
function didYouMean(path: string): string {
  const folder = dirname(path);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => {
      try {
        return statSync(`${folder}${sep}${name}`).isFile();
      } catch {
        return false;
      }
    });
  } catch {
    return "";
  }
  const name = basename(path);
  const near = nearestName(name, names);
  // The suggestion keeps the path as the user wrote it, only the file's name changed.
  return near ? `; did you mean ${asWritten(path.slice(0, path.length - name.length) + near)}?` : "";
}

/**
 * A path as the user wrote it: a relative one as it is; an absolute one (the CLI resolves its arguments)
 * relative to the working folder when inside it.
 */
function asWritten(path: string): string {
  return isAbsolute(path) ? shownPath(path) : path;
}
