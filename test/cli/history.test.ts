import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir } from "../temp-dir.ts";
import { copyDemo, editJson } from "./demo-copy.ts";
import { cli } from "./run-cli.ts";

const folder = useTempDir("dramaturg-history-");
let db: string;

// Two runs of Inés in one store: a baseline, then a check after her persona was edited.
beforeAll(async () => {
  const dir = copyDemo(folder());
  db = join(folder(), "store");
  const scope = [
    "--config",
    join(dir, "dramaturg.yaml"),
    "--db",
    db,
    "--agents",
    "ines",
    "--dimensions",
    "adherence",
  ];
  expect((await cli(["baseline", ...scope, "--out", join(dir, "baselines")])).code).toBe(0);
  editJson(join(dir, "transcript.json"), (t) => {
    t.agents.find((a: { id: string }) => a.id === "ines").persona += " Lately she whistles.";
  });
  expect((await cli(["ci", ...scope])).code).toBe(0);
}, 60_000);

describe("dramaturg history", () => {
  it("gives the agent's points as JSON, marking the baseline and where the persona changed", async () => {
    const r = await cli([
      "history",
      "--agent",
      "ines",
      "--dimension",
      "adherence",
      "--format",
      "json",
      "--db",
      db,
    ]);
    expect(r.code).toBe(0);
    const h = JSON.parse(r.stdout);
    expect(h).toMatchObject({ agent: "ines", dimension: "adherence" });
    expect(h.points).toHaveLength(2);
    for (const p of h.points) expect(p.score).toBeCloseTo(6.79, 1);
    expect(h.points.map((p: { is_baseline: boolean }) => p.is_baseline)).toEqual([true, false]);
    expect(h.points.map((p: { changed: string[] }) => p.changed)).toEqual([[], ["persona"]]);
  });

  it("draws a sparkline and a table with the baseline star and the not-comparable mark", async () => {
    const r = await cli(["history", "--agent", "ines", "--dimension", "adherence", "--db", db]);
    expect(r.stdout).toMatch(/Inés Okafor · adherence · 2 runs {2}▆▆/);
    expect(r.stdout).toMatch(/6\.79\s+fixtures:.*★/);
    expect(r.stdout).toMatch(/⚠ persona/);
  });

  it("an agent the store does not know exits 2", async () => {
    const r = await cli(["history", "--agent", "nobody", "--db", db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--agent: unknown agent "nobody"; the store has .*"ines"/);
  });
});
