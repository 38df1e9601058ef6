import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { requireQueueLocation } from "../../src/cli/queued-experiment.ts";
import { resolveSettings } from "../../src/cli/settings.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO } from "./run-cli.ts";

const folder = useTempDir("dramaturg-db-");

describe("--db as the one store-location parser reads it", () => {
  it("--db memory: evaluates in memory and leaves no folder on disk", async () => {
    const r = await cli(["eval", ...DEMO, "--db", "memory:"], { cwd: folder() });
    expect(r.code).toBe(0);
    expect(existsSync(join(folder(), "memory:"))).toBe(false);
    expect(readdirSync(folder())).toEqual([]);
  });

  it("POSTGRES://… from a flag, the environment or the project file stays a URL, never a folder", () => {
    const url = "POSTGRES://ci@db.internal/dramaturg";
    expect(resolveSettings({ flags: { db: url }, cwd: folder(), projectFile: false }).settings.db).toBe(url);
    expect(
      resolveSettings({ flags: {}, cwd: folder(), env: { DRAMATURG_DB: url }, projectFile: false }).settings
        .db,
    ).toBe(url);
  });

  it("--db postgres:/host/db (one slash) exits 2 suggesting postgres://host/db and creates no folder", async () => {
    const r = await cli(["eval", ...DEMO, "--db", "postgres:/host/db"], { cwd: folder() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--db: .*did you mean postgres:\/\/host\/db\?/);
    expect(readdirSync(folder())).toEqual([]);
  });

  it("an unknown scheme is bad usage naming --db", () => {
    expect(() =>
      resolveSettings({ flags: { db: "mysql://h/db" }, cwd: folder(), projectFile: false }),
    ).toThrow(/--db: unknown store location "mysql:\/\/h\/db"/);
  });

  it("--queue takes POSTGRES://… as the parser does and refuses a folder", () => {
    expect(() => requireQueueLocation("POSTGRES://ci@db.internal/dramaturg")).not.toThrow();
    expect(() => requireQueueLocation(join(folder(), "store"))).toThrow(/--queue needs a PostgreSQL store/);
  });
});
