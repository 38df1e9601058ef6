// A new PGlite store (memory://, or a folder that is missing or empty) starts from a pristine data directory:
// initdb run and every migration applied once, dumped as a tar. Running initdb on each open cost 4–5 s and
// ≈ 0.8 GB. The package ships the tar, made at build time (dist/store/pristine/); from src/ (development
// and tests) it is made on first use into node_modules/.cache/dramaturg/. Its name is a hash of what made
// it (the migrations, PGlite's version, how it was made), so a change to any of them makes a new one.
import { createHash, randomBytes } from "node:crypto";
import { constants, readFileSync } from "node:fs";
import { access, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dramaturgCacheFolder } from "../core/cache-folder.ts";
import { contentHash } from "../core/index.ts";
import { MIGRATIONS, type Migration } from "./migrations.ts";
import { migrate } from "./migrator.ts";
import { openPgliteDb } from "./pglite-db.ts";

/**
 * How the directory is made; every store opened from it is written, and read back on each open, so what
 * it holds is kept small. 1 MB WAL segments (PostgreSQL's default is 16 MB, a file mostly of zeros), only
 * the segments a checkpoint still needs, and without the template databases (two thirds of the files):
 * they serve CREATE DATABASE, which an embedded store never runs. Measured: 40 → 15 MB, an open of
 * memory:// ≈ 55 MB less at its peak and ≈ 13% less CPU.
 */
const MAKING = {
  format: 1,
  initdbArgs: ["--wal-segsize=1"],
  settings: ["min_wal_size=2MB"],
  dropped: ["template0", "template1"],
} as const;

/** The file name of the pristine directory for these migrations and this PGlite: `pglite-<hash>.tar`. */
export function pristineName(migrations: readonly Migration[] = MIGRATIONS): string {
  const key = createHash("sha256")
    .update(
      JSON.stringify({
        making: MAKING,
        pglite: pgliteVersion(),
        migrations: migrations.map((m) => [m.version, m.name, contentHash(m.sql)]),
      }),
    )
    .digest("hex")
    .slice(0, 16);
  return `pglite-${key}.tar`;
}

/**
 * Where the built package keeps its pristine directory: beside this module, uncompressed. The package's
 * own tarball compresses it (15 MB → 2.4 MB) as well as a .gz would; read back, a .gz cost as much time
 * to gunzip as it saved reading, and ≈ 30 MB more at the peak of the open.
 */
export function shippedPristineFile(migrations: readonly Migration[] = MIGRATIONS): string {
  return fileURLToPath(new URL(`./pristine/${pristineName(migrations)}`, import.meta.url));
}

/**
 * The cache folder for directories made on first use: `node_modules/.cache/dramaturg/` of the project
 * Dramaturg is installed in, or of Dramaturg's own checkout.
 */
export function pristineCacheFolder(): string {
  return dramaturgCacheFolder(fileURLToPath(new URL(".", import.meta.url)));
}

/** Initdb and every migration, in memory; the data directory as an uncompressed tar. */
export async function makePristineDataDir(
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<Uint8Array> {
  const db = await openPgliteDb(undefined, { initdbArgs: MAKING.initdbArgs, settings: MAKING.settings });
  try {
    await migrate(db, migrations);
    for (const database of MAKING.dropped) {
      await db.exec(`ALTER DATABASE ${database} IS_TEMPLATE false`);
      await db.exec(`DROP DATABASE ${database}`);
    }
    await db.exec("CHECKPOINT");
    return await db.dumpDataDir();
  } finally {
    await db.close();
  }
}

/** Writes `bytes` to `file` whole or not at all: a reader (another process) never sees a part. */
export async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * The pristine data directory in the cache folder, made (and written there) when it is not yet: by
 * whichever processes get there first, each writing whole, the last rename winning with the same bytes.
 * When the folder cannot be written, the directory made stays in memory for this process.
 */
export async function cachedPristineDataDir(
  folder: string = pristineCacheFolder(),
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<{ file: string } | { bytes: Uint8Array }> {
  const file = join(folder, pristineName(migrations));
  if (await readable(file)) return { file };
  const bytes = await makePristineDataDir(migrations);
  try {
    await writeAtomically(file, bytes);
  } catch {
    return { bytes };
  }
  return { file };
}

/** Where this process finds its pristine directory: found (or made) once, read on each open. */
let located: Promise<{ file: string } | { bytes: Uint8Array }> | undefined;

/**
 * The pristine data directory as an uncompressed tar, a buffer of its own on each call (it is handed
 * over to the database thread): the package's, else the cache's, else made now into the cache.
 */
export async function pristineDataDir(): Promise<Uint8Array> {
  located ??= (async () => {
    const shipped = shippedPristineFile();
    return (await readable(shipped)) ? { file: shipped } : cachedPristineDataDir();
  })();
  // A failure (PGlite could not make it) is not kept: the next open tries again.
  const where = await located.catch((error: unknown) => {
    located = undefined;
    throw error;
  });
  if ("bytes" in where) return where.bytes.slice();
  return await readFile(where.file);
}

async function readable(file: string): Promise<boolean> {
  try {
    await access(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

let version: string | undefined;
function pgliteVersion(): string {
  if (version === undefined) {
    try {
      // PGlite's package.json is not among its exports; it sits one folder above its entry module.
      const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
      const manifest = join(dirname(entry), "..", "package.json");
      version = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version ?? "unknown";
    } catch {
      version = "unknown";
    }
  }
  return version;
}
