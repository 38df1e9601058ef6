// The same commands on a real PostgreSQL server (the store's second backend). CI starts one and sets
// DRAMATURG_TEST_POSTGRES_URL; a plain checkout has none, so these tests are skipped there (see test/postgres.ts).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminQuery, postgresSuite, postgresUrl as url } from "../postgres.ts";
import { cli, DEMO } from "./run-cli.ts";

const schema = `dramaturg_cli_${randomBytes(6).toString("hex")}`;
let db: string;

describe.skipIf(!url)(postgresSuite("dramaturg on PostgreSQL"), () => {
  beforeAll(async () => {
    await adminQuery(`CREATE SCHEMA ${schema}`);
    const u = new URL(url!);
    u.searchParams.set("options", `-c search_path=${schema}`);
    db = u.toString();
  });

  afterAll(async () => {
    await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  it("evaluates the demo, stores its runs and lists them, as on PGlite", async () => {
    const args = ["eval", ...DEMO, "--db", db, "--format", "json"];
    const r = await cli(args);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.runs.find((x: { agent_id: string }) => x.agent_id === "dov").overall_score).toBeCloseTo(
      6.04,
      2,
    );
    const runs = JSON.parse(
      (await cli(["runs", "--db", db, "--agent", "dov", "--format", "json"])).stdout,
    ).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ agent_id: "dov", status: "completed", errored: 0 });
  });
});
