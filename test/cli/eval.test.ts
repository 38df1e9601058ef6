import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dir.ts";
import { cli, DEMO as demo, ROOT, spawnCli } from "./run-cli.ts";

function tmp(): string {
  return tempDir("dramaturg-cli-");
}

describe("dramaturg eval", () => {
  it("prints the demo's table and exits 0", async () => {
    const r = await cli(["eval", ...demo, "--db", "memory://"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Dov Marchetti\s+15\s+7\.54\s+7\.88\s+2\.68\s+6\.04\s+0/);
    expect(r.stdout).toMatch(/#on-air\s+3\.00\s+6/);
  });

  it("writes dramaturg.eval-result/v1 JSON with runs and environments", async () => {
    const r = await cli(["eval", ...demo, "--db", "memory://", "--format", "json"]);
    const json = JSON.parse(r.stdout);
    expect(json.format).toBe("dramaturg.eval-result/v1");
    const dov = json.runs.find((x: { agent_id: string }) => x.agent_id === "dov");
    expect(dov).toMatchObject({ status: "completed", sample_size: 15, errored: 0 });
    expect(dov.token_usage).toEqual({ input_tokens: 0, output_tokens: 0 });
    const fluency = dov.dimensions.fluency;
    expect(fluency.propositions.map((p: { id: string }) => p.id)).toContain("dov-catchphrase-tic");
    expect(fluency.propositions[0]).toHaveProperty("verdicts");
    expect(fluency.propositions[0]).toHaveProperty("reasoning");
    const onAir = json.environments.find((e: { channel: string }) => e.channel === "on-air");
    expect(onAir.dimensions.ideas_quantity.count).toBe(6);
    expect(onAir.dimensions.convergence.score).toBe(3);
  });

  it("stores the runs so that `dramaturg runs --format json` lists them", async () => {
    const db = join(tmp(), "store");
    await cli(["eval", ...demo, "--db", db, "--agents", "ines,dov"]);
    const r = await cli(["runs", "--db", db, "--agent", "dov", "--format", "json"]);
    const { runs } = JSON.parse(r.stdout);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ agent_id: "dov", status: "completed", sample_size: 15 });
    expect(runs[0].overall_score).toBeCloseTo(6.04, 2);
  });

  it("a bad transcript exits 2 naming the file and the JSON path, and writes nothing", async () => {
    const dir = tmp();
    const file = join(dir, "bad.json");
    const t = JSON.parse(readFileSync(`${ROOT}examples/ensemble/transcript.json`, "utf8"));
    t.messages[3].at = "yesterday";
    writeFileSync(file, JSON.stringify(t));
    const db = join(dir, "store");
    const r = await cli([
      "eval",
      file,
      "--judge",
      `fixtures:${ROOT}examples/ensemble/judge-fixtures.json`,
      "--db",
      db,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.json:messages\[3\]\.at/);
    const { existsSync } = await import("node:fs");
    expect(existsSync(db)).toBe(false);
  });

  it("an unknown agent exits 2 before the store is created", async () => {
    const db = join(tmp(), "store");
    const r = await cli(["eval", ...demo, "--db", db, "--agents", "nobody"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown agent "nobody"/);
    const { existsSync } = await import("node:fs");
    expect(existsSync(db)).toBe(false);
  });

  it("a misspelt flag exits 2 and suggests the nearest one", async () => {
    const r = await spawnCli(["eval", "--propostions", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--propositions/);
  });

  it("a missing fixture verdict is counted as errored, never scored", async () => {
    const dir = tmp();
    const fixtures = JSON.parse(readFileSync(`${ROOT}examples/ensemble/judge-fixtures.json`, "utf8"));
    fixtures.verdicts = fixtures.verdicts.filter((v: { dimension: string }) => v.dimension !== "fluency");
    writeFileSync(join(dir, "f.json"), JSON.stringify(fixtures));
    const args = [...demo.slice(0, 3), "--judge", `fixtures:${join(dir, "f.json")}`, "--db", "memory://"];
    const r = await cli(["eval", ...args, "--format", "json"]);
    const json = JSON.parse(r.stdout);
    expect(json.totals.errored).toBe(13);
    for (const run of json.runs) expect(run.dimensions.fluency.score).toBeNull();
  });
});
