// The bundled command's V8 code cache (src/cli/code-cache.ts): where it lives, what names it, that it is made
// when a command ends and taken by the next run, and that a cache it cannot read or write changes nothing but
// speed. The installed bin itself is run twice by .ci/package-check.sh, which checks the cache it leaves.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  type BundledProgram,
  codeCacheFile,
  codeCacheFolders,
  type RunBundledOptions,
  runBundled,
  saveCodeCache,
} from "../../src/cli/code-cache.ts";
import { tempDir } from "../temp-dir.ts";

/** A bundle as the build makes one: a wrapped CommonJS module exporting runCli, importing through __dgImport. */
const PROGRAM = `(function (exports, require, module, __filename, __dirname, __dgImport) {
const { basename } = require("node:path");
exports.runCli = async (argv) => {
  const { sep } = await __dgImport("node:path");
  globalThis.__codeCacheTest = { argv, file: basename(__filename), sep, dir: typeof __dirname };
  return argv.length;
};
})`;

/** Runs `fn`; the exit listeners it added are returned (and removed from the process) instead of left. */
async function catchingExit<T>(fn: () => Promise<T>): Promise<{ result: T; onExit: (() => void)[] }> {
  const before = new Set(process.listeners("exit"));
  const result = await fn();
  const added = process.listeners("exit").filter((l) => !before.has(l));
  for (const listener of added) process.off("exit", listener);
  return { result, onExit: added as (() => void)[] };
}

/** A bundle written in a new temp folder, and the folder for its cache (not made yet). */
function bundle(): { program: BundledProgram; cacheDir: string; options: RunBundledOptions } {
  const dir = tempDir();
  const file = join(dir, "program.cjs");
  writeFileSync(file, PROGRAM);
  const cacheDir = join(dir, "cache");
  return {
    program: { file, hash: "abc123" },
    cacheDir,
    // Its one import is of a built-in, which resolves from anywhere.
    options: { importModule: (specifier) => import(specifier), folders: [cacheDir] },
  };
}

describe("the bundled command's code cache", () => {
  it("runs the bundle, makes the command's cache when it ends, and the next run takes it", async () => {
    const { program, cacheDir, options } = bundle();

    const first = await catchingExit(() => runBundled(program, ["eval", "x"], options));
    expect(first.result).toBe(2);
    expect((globalThis as Record<string, unknown>).__codeCacheTest).toEqual({
      argv: ["eval", "x"],
      file: "program.cjs",
      sep: "/",
      dir: "string",
    });
    // Made when the command ends (the exit listener), not before.
    expect(existsSync(cacheDir)).toBe(false);
    expect(first.onExit).toHaveLength(1);
    first.onExit[0]!();
    const made = readdirSync(cacheDir);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(
      new RegExp(
        `^code-abc123-${process.version}-${process.platform}-${process.arch}-[0-9a-f]{8}-eval\\.v8$`,
      ),
    );

    // The next run of the same command reads it, V8 accepts it, and nothing is written again.
    const second = await catchingExit(() => runBundled(program, ["eval"], options));
    expect(second.result).toBe(1);
    expect(second.onExit).toHaveLength(0);
    // Another command has a cache of its own.
    const other = await catchingExit(() => runBundled(program, ["runs"], options));
    expect(other.onExit).toHaveLength(1);
  });

  it("replaces a cache V8 rejects, and removes the caches of other builds", async () => {
    const { program, cacheDir, options } = bundle();
    mkdirSync(cacheDir);
    const name = codeCacheFile("abc123", ["eval"], [cacheDir])!.candidates[0]!;
    writeFileSync(name, "not a code cache");
    writeFileSync(join(cacheDir, "code-oldbuild-v20.0.0-linux-x64-00000000-eval.v8"), "old");
    writeFileSync(join(cacheDir, "pglite-keep.tar"), "not ours to remove");
    const run = await catchingExit(() => runBundled(program, ["eval"], options));
    expect(run.result).toBe(1);
    expect(run.onExit).toHaveLength(1);
    run.onExit[0]!();
    expect(readdirSync(cacheDir).sort()).toEqual([name.slice(cacheDir.length + 1), "pglite-keep.tar"].sort());
    expect(readFileSync(name).length).toBeGreaterThan(100);
  });

  it("does not give V8 a damaged cache, and writes a new one", async () => {
    const { program, cacheDir, options } = bundle();
    const first = await catchingExit(() => runBundled(program, ["eval"], options));
    first.onExit[0]!();
    const name = join(cacheDir, readdirSync(cacheDir)[0]!);
    const good = readFileSync(name);
    const damaged = Buffer.from(good);
    damaged[damaged.length >> 1]! ^= 0xff;
    writeFileSync(name, damaged);
    const run = await catchingExit(() => runBundled(program, ["eval"], options));
    expect(run.result).toBe(1);
    expect(run.onExit).toHaveLength(1);
    run.onExit[0]!();
    const rewritten = readFileSync(name);
    expect(rewritten.readUInt32LE(0)).toBe(crc32(rewritten.subarray(4)));
  });

  it("writes to the next folder when the first cannot be written, and gives up quietly when none can", () => {
    const dir = tempDir();
    const blocked = join(dir, "a-file");
    writeFileSync(blocked, "a folder cannot be made under a file");
    const script = new Script("(function () { return 42; })");
    script.runInThisContext();
    const { candidates, prefix } = codeCacheFile(
      "abc123",
      ["show"],
      [join(blocked, "cache"), join(dir, "b")],
    )!;
    saveCodeCache(script, candidates, prefix);
    expect(existsSync(candidates[0]!)).toBe(false);
    expect(existsSync(candidates[1]!)).toBe(true);
    // V8 takes what was written, after its CRC-32.
    const written = readFileSync(candidates[1]!);
    expect(written.readUInt32LE(0)).toBe(crc32(written.subarray(4)));
    const again = new Script("(function () { return 42; })", { cachedData: written.subarray(4) });
    expect(again.cachedDataRejected).toBe(false);
    expect(() => saveCodeCache(script, [join(blocked, "x", "y.v8")], prefix)).not.toThrow();
  });

  it("lives in node_modules/.cache/dramaturg of the installing project, or of the checkout; then ~/.cache", () => {
    expect(codeCacheFolders("/p/node_modules/dramaturg/dist/bin/program.cjs", {})).toEqual([
      "/p/node_modules/.cache/dramaturg",
      join(homedir(), ".cache", "dramaturg"),
    ]);
    expect(codeCacheFolders("/src/dramaturg/dist/bin/program.cjs", {})[0]).toBe(
      "/src/dramaturg/node_modules/.cache/dramaturg",
    );
    expect(
      codeCacheFolders("/p/node_modules/dramaturg/dist/bin/program.cjs", { DRAMATURG_CODE_CACHE: "/c" }),
    ).toEqual(["/c"]);
    expect(codeCacheFolders("/p/dist/bin/program.cjs", { DRAMATURG_CODE_CACHE: "off" })).toEqual([]);
    expect(codeCacheFile("abc123", ["eval"], [])).toBeUndefined();
  });

  it("is named by the command's first word, or none", () => {
    const name = (argv: string[]) => codeCacheFile("h", argv, ["/c"])!.candidates[0]!.replace(/.*-/, "");
    expect(name(["eval", "t.json"])).toBe("eval.v8");
    expect(name(["--db", "x"])).toBe("x.v8");
    expect(name(["--version"])).toBe("none.v8");
    expect(name(["../weird/Name"])).toBe("none.v8");
  });
});
