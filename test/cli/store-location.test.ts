import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
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

  it("an unknown scheme is bad usage naming --db", () => {
    expect(() =>
      resolveSettings({ flags: { db: "mysql://h/db" }, cwd: folder(), projectFile: false }),
    ).toThrow(/--db: unknown store location "mysql:\/\/h\/db"/);
  });
});
