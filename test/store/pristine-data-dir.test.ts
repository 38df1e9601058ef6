// The pristine data directory a new PGlite store starts from: fully migrated, keyed by what made it, and
// made safely by processes that find no cache at the same time.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { MIGRATIONS, migrationStatus } from "../../src/store/index.ts";
import { openPgliteDb } from "../../src/store/pglite-db.ts";
import { cachedPristineDataDir, pristineDataDir, pristineName } from "../../src/store/pristine-data-dir.ts";

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe("the pristine data directory", () => {
  test("a database opened from it, not migrated again, has every migration applied with matching checksums", async () => {
    const db = await openPgliteDb(undefined, { dataDir: pristineDataDir });
    try {
      const status = await migrationStatus(db);
      expect(status.applied.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(status).toMatchObject({ current: MIGRATIONS.length, pending: [], changed: [] });
    } finally {
      await db.close();
    }
  });

  test("its name changes when a migration is added or edited", () => {
    const base = pristineName(MIGRATIONS);
    const added = [...MIGRATIONS, { version: MIGRATIONS.length + 1, name: "more", sql: "SELECT 1" }];
    const edited = MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    expect(pristineName(added)).not.toBe(base);
    expect(pristineName(edited)).not.toBe(base);
    expect(pristineName(MIGRATIONS)).toBe(base);
  });

  test("two first-time opens at once, with no cache yet, both succeed and leave one whole file", async () => {
    const cache = await mkdtemp(join(tmpdir(), "dramaturg-pristine-"));
    folders.push(cache);
    const [first, second] = await Promise.all([cachedPristineDataDir(cache), cachedPristineDataDir(cache)]);
    const file = join(cache, pristineName());
    expect(first).toEqual({ file });
    expect(second).toEqual({ file });
    expect(await readdir(cache)).toEqual([pristineName()]);
    const tar = await readFile(file);
    const db = await openPgliteDb(undefined, { dataDir: async () => tar });
    try {
      expect((await migrationStatus(db)).pending).toEqual([]);
    } finally {
      await db.close();
    }
  }, 180_000);
});
