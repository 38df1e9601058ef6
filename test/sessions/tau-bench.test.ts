// τ-bench's published trajectories read as they are (test/fixtures/tau-bench, MIT): every record a session of
// its task and trial, pass^k over the file the leaderboard's row, every tool call checked against the
// airline tools' schemas, bad records refused with their place, no judge anywhere.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeSession, SESSION_FORMATS, SESSION_IMPORTERS } from "../../src/sessions/index.ts";
import { cli } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";

const FIXTURES = "test/fixtures/tau-bench";
const TOOLS = `${FIXTURES}/airline-tools.json`;
/** The repository's leaderboard, Airline, "TC (gpt-4o)": Pass^1…Pass^4. */
const PUBLISHED = { 1: 0.42, 2: 0.273, 3: 0.22, 4: 0.2 };

const dir = useTempDir("dramaturg-tau-bench-");
let file: string;
let records: { task_id: number; trial: number; reward: number; traj: { role: string }[] }[];

beforeAll(() => {
  const text = gunzipSync(readFileSync(`${FIXTURES}/gpt-4o-airline.json.gz`)).toString("utf8");
  records = JSON.parse(text);
  file = join(dir(), "gpt-4o-airline.json");
  writeFileSync(file, text);
});

describe("τ-bench's historical trajectories", () => {
  it("read as 200 sessions of 50 tasks × 4 trials, pass^k equal to the published leaderboard row", async () => {
    const result = await analyzeSession(file);
    expect(result.sources[0]!.from).toBe("tau-bench");
    expect(result.analyses).toHaveLength(200);
    expect(result.pass_k).toMatchObject({ tasks: 50, runs_per_task: 4 });
    for (const [k, published] of Object.entries(PUBLISHED))
      expect(result.pass_k!.pass_k[k]!.toFixed(3), `pass^${k}`).toBe(published.toFixed(3));
    // Each record keeps its task, its trial and its success (reward 1) in the session.
    const fifth = records[5]!;
    const analysis = result.analyses.find(
      (a) => a.session_id === `task-${fifth.task_id}-trial-${fifth.trial}`,
    )!;
    expect(analysis.task_id).toBe(String(fifth.task_id));
    expect(analysis.task_completion).toBe(fifth.reward >= 1);
  });

  it("checks every one of the 1,164 tool calls against the airline tools' schemas, without a judge", async () => {
    const result = await analyzeSession(file, { tools: TOOLS });
    const calls = result.analyses.reduce((n, a) => n + a.tool_calls.total, 0);
    const unchecked = result.analyses.reduce((n, a) => n + a.tool_calls.unchecked, 0);
    expect(calls).toBe(records.flatMap((r) => r.traj).filter((m) => m.role === "tool").length);
    expect(calls).toBe(1164);
    expect(unchecked).toBe(0);
    // gpt-4o once sends flight fields the tool does not declare: the one finding in the file.
    const findings = result.analyses.flatMap((a) => a.tool_validation);
    expect(findings.map((f) => [f.tool_name, f.type])).toEqual([
      ["update_reservation_flights", "hallucinated_parameter"],
    ]);
    expect(result.analyses.every((a) => a.judge.spec === "none")).toBe(true);
  });

  it("prints the leaderboard's figures to three decimals and says the success rule", async () => {
    const run = await cli(["session", "analyze", file, "--db", "memory://"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "pass^k over 50 task(s), 4 runs each: k=1 0.420 · k=2 0.273 · k=3 0.220 · k=4 0.200",
    );
    expect(run.stdout).toContain("a record succeeded when its reward is at least 1 (τ-bench's rule");
  });

  it("takes another success reward: at 0 every record succeeded", async () => {
    const run = await cli([
      "session",
      "analyze",
      file,
      "--from",
      "tau-bench",
      "--success-reward",
      "0",
      "--format",
      "json",
      "--db",
      "memory://",
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).pass_k.pass_k).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 });
  });

  it("refuses a success reward that is not a number, and a record whose chat log is broken, naming the place", async () => {
    const bad = await cli(["session", "analyze", file, "--success-reward", "most", "--db", "memory://"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--success-reward must be a number, got "most"');
    const broken = join(dir(), "broken.json");
    const [first, second] = records;
    writeFileSync(
      broken,
      JSON.stringify([first, { ...second, traj: [second!.traj[0], { role: "robot", content: "beep" }] }]),
    );
    const run = await cli(["session", "analyze", broken, "--db", "memory://"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${broken}:[1].traj[1].role`);
    expect(run.stdout).toBe("");
  });

  it("is one of the formats --from and the API name, in the order the importers are tried", () => {
    expect(SESSION_IMPORTERS.map((i) => i.name)).toEqual([...SESSION_FORMATS]);
    expect(SESSION_FORMATS).toContain("tau-bench");
  });
});
