import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveSettings } from "../../src/cli/settings.ts";
import { cli, DEMO } from "./run-cli.ts";

const cwd = mkdtempSync(join(tmpdir(), "dramaturg-db-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe("--db as the one store-location parser reads it", () => {
  it("--db memory: evaluates in memory and leaves no folder on disk", async () => {
    const r = await cli(["eval", ...DEMO, "--db", "memory:"], { cwd });
    expect(r.code).toBe(0);
    expect(existsSync(join(cwd, "memory:"))).toBe(false);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("POSTGRES://… from a flag, the environment or the project file stays a URL, never a folder", () => {
    const url = "POSTGRES://ci@db.internal/dramaturg";
    expect(resolveSettings({ flags: { db: url }, cwd, projectFile: false }).settings.db).toBe(url);
    expect(
      resolveSettings({ flags: {}, cwd, env: { DRAMATURG_DB: url }, projectFile: false }).settings.db,
    ).toBe(url);
  });

  it("an unknown scheme is bad usage naming --db", () => {
    expect(() => resolveSettings({ flags: { db: "mysql://h/db" }, cwd, projectFile: false })).toThrow(
      /--db: unknown store location "mysql:\/\/h\/db"/,
    );
  });
});
