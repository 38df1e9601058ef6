// Runs the bundled command (dist/bin/program.cjs) with V8's code cache kept on disk. Compiling the command's
// JavaScript was the largest part of its start-up left: ≈ 26 ms to parse the modules on Node 20, more for the
// functions compiled while it runs. A code cache made after a run holds those functions compiled, and the
// next run of the same command starts from it: the first judge request ≈ 50 ms sooner on Node 20 and 24
// (design notes, "The command from V8's code cache"). Node's own compile cache (Node 22+) keeps only what is
// compiled before a module runs, which made no difference here.
//
// The cache is one file per command (`eval`, `serve`, …), made when a run of that command ends and there is
// none that V8 accepts, in `node_modules/.cache/dramaturg/` of the project Dramaturg is installed in (or of
// its checkout), else `~/.cache/dramaturg/`. Its name holds what V8 checks only in part: the bundle's hash
// (made at build time), Node's version, the platform and the process's V8 flags. DRAMATURG_CODE_CACHE=off
// turns it off; DRAMATURG_CODE_CACHE=/some/folder puts it there.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import zlib from "node:zlib";
import { dramaturgCacheFolder } from "../core/cache-folder.ts";

/**
 * CRC-32 of the cache's bytes, written before them: V8 (release builds) does not checksum a code cache, and a
 * damaged one could crash it. Node 20.15 and later have it; before, the command runs without a cache.
 */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

export interface BundledProgram {
  /**
   * The bundle: ASCII text, a function expression `(function (exports, require, module, __filename, __dirname,
   * __dgImport) { … })` around a CommonJS module whose `exports.runCli(argv)` runs the command
   * (scripts/bundle-cli.mjs).
   */
  file: string;
  /** A hash of the bundle's content, made when it was built. */
  hash: string;
}

export interface RunBundledOptions {
  /**
   * Loads an ES module for the bundle (its `import()` of packages left out of it), resolved from the bundle's
   * folder: the caller's own `import`, written beside the bundle (src/cli/bin.ts).
   */
  importModule: (specifier: string) => Promise<unknown>;
  /** Where the code cache may live, in order of preference; default {@link codeCacheFolders}. */
  folders?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
}

/** Runs the bundled command with `argv`; resolves to its exit code. */
export async function runBundled(
  program: BundledProgram,
  argv: string[],
  { importModule, folders, env = process.env }: RunBundledOptions,
): Promise<number> {
  const cache = crc32
    ? codeCacheFile(program.hash, argv, folders ?? codeCacheFolders(program.file, env))
    : undefined;
  // ASCII, so latin1 reads it as it is, into a one-byte string, without decoding UTF-8.
  const source = readFileSync(program.file, "latin1");
  let cachedData: Buffer | undefined;
  let found: string | undefined;
  for (const file of cache?.candidates ?? []) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue;
    }
    found = file;
    // A damaged file is not given to V8; this run writes a new one.
    if (bytes.length > 4 && crc32!(bytes.subarray(4)) === bytes.readUInt32LE(0))
      cachedData = bytes.subarray(4);
    break;
  }
  const script = new Script(source, { filename: program.file, cachedData });
  const module: { exports: { runCli?: (argv: string[]) => Promise<number> } } = { exports: {} };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper(
    module.exports,
    createRequire(program.file),
    module,
    program.file,
    dirname(program.file),
    importModule,
  );
  if (cache && (cachedData === undefined || script.cachedDataRejected))
    // Made when the command ends, so that it holds what the run compiled, not only the top level.
    process.once("exit", () => saveCodeCache(script, cache.candidates, cache.prefix, found));
  const runCli = module.exports.runCli;
  if (typeof runCli !== "function") throw new Error(`${program.file} does not export runCli`);
  return runCli(argv);
}

/**
 * Where the code cache may live: `node_modules/.cache/dramaturg/` of the project the bundle is installed in
 * (or of Dramaturg's checkout), then `~/.cache/dramaturg/`; a folder named by DRAMATURG_CODE_CACHE instead;
 * none when it is `off`.
 */
export function codeCacheFolders(
  bundleFile: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const setting = env.DRAMATURG_CODE_CACHE;
  if (setting === "off" || setting === "0") return [];
  if (setting) return [setting];
  const folders = [dramaturgCacheFolder(dirname(bundleFile))];
  try {
    folders.push(join(homedir(), ".cache", "dramaturg"));
  } catch {}
  return folders;
}

/**
 * The cache file of this command in each folder, or undefined when there is no folder. The name holds the
 * bundle's hash, Node's version, the platform, a hash of the V8 flags and the command (its first word).
 */
export function codeCacheFile(
  hash: string,
  argv: readonly string[],
  folders: readonly string[],
): { candidates: string[]; prefix: string } | undefined {
  if (folders.length === 0) return undefined;
  const command = argv.find((a) => !a.startsWith("-"));
  const word = command && /^[a-z][a-z-]{0,31}$/.test(command) ? command : "none";
  const flags = fnv1a(process.execArgv.join("\n"));
  const prefix = `code-${hash}-`;
  const name = `${prefix}${process.version}-${process.platform}-${process.arch}-${flags}-${word}.v8`;
  return { candidates: folders.map((folder) => join(folder, name)), prefix };
}

/**
 * Writes the script's code cache to the first folder that takes it, whole or not at all (a temp file renamed),
 * and removes caches of other builds of the command there. Never throws: a cache not written costs the next
 * run its compile time, nothing else.
 */
export function saveCodeCache(
  script: Script,
  candidates: readonly string[],
  prefix: string,
  rejected?: string,
): void {
  let data: Buffer;
  try {
    const code = script.createCachedData();
    const header = Buffer.alloc(4);
    header.writeUInt32LE(crc32!(code), 0);
    data = Buffer.concat([header, code]);
  } catch {
    return;
  }
  for (const file of candidates) {
    const folder = dirname(file);
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      mkdirSync(folder, { recursive: true });
      writeFileSync(temporary, data);
      renameSync(temporary, file);
    } catch {
      try {
        rmSync(temporary, { force: true });
      } catch {}
      continue;
    }
    try {
      for (const entry of readdirSync(folder))
        if (entry.startsWith("code-") && entry.endsWith(".v8") && !entry.startsWith(prefix))
          rmSync(join(folder, entry), { force: true });
      // A cache V8 rejected elsewhere (another folder) is replaced by this one.
      if (rejected !== undefined && rejected !== file) rmSync(rejected, { force: true });
    } catch {}
    return;
  }
}

/** 32-bit FNV-1a of a string, as 8 hex digits. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}
