// `dramaturg online`: rules read from dramaturg.yaml and checked at the edge; only a PostgreSQL store runs
// them; schedule and status against the one CI starts. (A rule's runs and alerts: test/online/online.test.ts.)
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dropFreshDatabases, freshDatabase, postgresSuite, postgresUrl as url } from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli } from "./run-cli.ts";

const folder = useTempDir("dramaturg-online-cli-");

function project(yaml: string): string {
  const dir = folder();
  writeFileSync(join(dir, "dramaturg.yaml"), yaml);
  return dir;
}

const RULE = `judge:
  model: openai-compatible:judge
online:
  - name: voice
    agents: [marta]
    sample: { rate: 0.05 }
    schedule: "*/5 * * * *"
    webhook_env: VOICE_WEBHOOK
`;

describe("dramaturg online, checked at the edge", () => {
  it("refuses a store that is not PostgreSQL, saying why (exit 2)", async () => {
    const r = await cli(["online", "status", "--db", "memory://"], { cwd: project(RULE) });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/PostgreSQL store.*--db postgres:\/\//);
  });

  it("a bad rule in dramaturg.yaml names the file, the line and what was expected (exit 2)", async () => {
    const dir = project(RULE.replace('"*/5 * * * *"', "every five minutes").replace("rate: 0.05", "rate: 5"));
    const r = await cli(["online", "schedule", "--db", "postgres://nobody@127.0.0.1:1/none"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("dramaturg.yaml");
    expect(r.stderr).toMatch(/dramaturg\.yaml:6:\d+: rate: expected a number of 1 or less, got 5/);
  });

  it("a second rule of the same name, or an unknown rule to run, is refused (exit 2)", async () => {
    const twice = project(`${RULE}  - name: voice\n    sample: { messages: 5 }\n    schedule: "0 * * * *"\n`);
    const r = await cli(["online", "schedule", "--db", "postgres://nobody@127.0.0.1:1/none"], { cwd: twice });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a second rule named "voice"/);
    const unknown = await cli(["online", "run", "tone", "--db", "postgres://nobody@127.0.0.1:1/none"], {
      cwd: project(RULE),
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no online rule "tone"; dramaturg.yaml has "voice"/);
  });
});

describe.skipIf(!url)(postgresSuite("dramaturg online on PostgreSQL"), () => {
  afterAll(async () => {
    await dropFreshDatabases();
  });

  it("schedules the rules of dramaturg.yaml, lists them in status, and unschedules a rule taken out", async () => {
    const db = await freshDatabase("dramaturg_online_cli");
    const dir = project(RULE);
    const scheduled = await cli(["online", "schedule", "--db", db], { cwd: dir });
    expect(scheduled.code, scheduled.stderr).toBe(0);
    expect(scheduled.stdout).toContain("scheduled voice: */5 * * * * (UTC)");
    const status = await cli(["online", "status", "--db", db, "--format", "json"], { cwd: dir });
    expect(status.code, status.stderr).toBe(0);
    const json = JSON.parse(status.stdout);
    expect(json.format).toBe("dramaturg.online-status/v1");
    expect(json.rules.map((r: { rule: { name: string } }) => r.rule.name)).toEqual(["voice"]);
    expect((await cli(["online", "status", "--db", db], { cwd: dir })).stdout).toMatch(
      /voice {2}\*\/5 \* \* \* \* {2}5 % of new messages {2}adherence, consistency {2}marta\n {2}no run yet/,
    );
    writeFileSync(join(dir, "dramaturg.yaml"), "judge:\n  model: openai-compatible:judge\n");
    const emptied = await cli(["online", "schedule", "--db", db], { cwd: dir });
    expect(emptied.stdout).toContain("unscheduled voice (no longer in dramaturg.yaml)");
  }, 60_000);
});
