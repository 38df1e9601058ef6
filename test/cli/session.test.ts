// `dramaturg session analyze` as a user runs it: the seed's response as JSON, a table, and bad input.
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

const dir = useTempDir("dramaturg-session-");
const FAULTS = `${ROOT}test/fixtures/sessions/four-faults.session.json`;

describe("dramaturg session analyze", () => {
  it("--format json prints the seed's response with the tool findings and latency", async () => {
    const r = await cli([
      "session",
      "analyze",
      FAULTS,
      "--judge",
      "none",
      "--format",
      "json",
      "--db",
      "memory://",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const a = JSON.parse(r.stdout);
    for (const key of [
      "overall_score",
      "coordination_score",
      "intent_drift_score",
      "per_agent_scores",
      "turn_results",
      "conversation",
      "tool_validation",
      "latency",
    ])
      expect(a).toHaveProperty(key);
    expect(a.tool_validation.filter((f: { type: string }) => f.type !== "tool_error")).toHaveLength(4);
    expect(a.per_agent_scores.booker.issues).toContain(
      "Tool parameter hallucination in turn 0 (search_flights: passengers.pets)",
    );
    expect(a.sources).toEqual([{ file: FAULTS, from: "session", sessions: 1, notes: [] }]);
  });

  it("the table names each finding with its turn, agent and tool", async () => {
    const r = await cli(["session", "analyze", FAULTS, "--db", "memory://"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/HIGH {3}turn 1 router book_flight: unauthorized_tool/);
    expect(r.stdout).toMatch(/Check booker's tool calls against the tools' schemas/);
  });

  it("bad input exits 2 naming the file and the JSON path, and prints no analysis", async () => {
    const file = join(dir(), "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        agents: [{ id: "a" }],
        turns: [{ user_message: "x", agent_interactions: [{ agent_id: "b" }] }],
      }),
    );
    const r = await cli(["session", "analyze", file, "--format", "json", "--db", join(dir(), "bad-store")]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`${file}:turns[0].agent_interactions[0].agent_id: unknown agent "b"`);
    expect(existsSync(join(dir(), "bad-store"))).toBe(false);
  });

  it("an OTLP file that is not a trace exits 2 and names the file", async () => {
    const file = join(dir(), "metrics.json");
    writeFileSync(file, JSON.stringify({ resourceMetrics: [] }));
    const r = await cli(["session", "analyze", file, "--db", join(dir(), "metrics-store")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}: an OTLP metrics export, not a trace`);
    expect(existsSync(join(dir(), "metrics-store"))).toBe(false);
  });

  it("schema session prints the format's JSON Schema", async () => {
    const r = await cli(["schema", "session"]);
    expect(r.code, r.stderr).toBe(0);
    const schema = JSON.parse(r.stdout);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["agents", "turns", "task_id"]));
  });
});

describe("dramaturg session analyze --judge", () => {
  const REFUND = `${ROOT}examples/sessions/refund.session.json`;
  const FIXTURES = `fixtures:${ROOT}examples/sessions/refund.judge-fixtures.json`;

  it("judges with replayed fixtures and prints the scores, the judge's requests and the recommendations", async () => {
    const r = await cli(["session", "analyze", REFUND, "--judge", FIXTURES, "--db", "memory://"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/overall 0\.88 · coordination 0\.89 · intent drift 0\.11 · task completed true/);
    expect(r.stdout).toMatch(/planner {13}0\.89 {6}1\.00 {7}0\.67/);
    // A fixture judge sends no request to a provider.
    expect(r.stdout).toMatch(/judge fixtures:.*: 0 request\(s\), 0 model call\(s\)/);
    expect(r.stdout).toMatch(/- Agent planner's reasoning could be more structured/);
  });

  it("a judge spec it cannot build is bad input (exit 2) before anything is judged", async () => {
    const r = await cli([
      "session",
      "analyze",
      REFUND,
      "--judge",
      "nonsense",
      "--db",
      join(dir(), "nonsense"),
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(existsSync(join(dir(), "nonsense"))).toBe(false);
  });

  it("an analysis is stored: sessions lists it and show reprints it without the input file", async () => {
    const db = join(dir(), "store");
    const analyzed = await cli([
      "session",
      "analyze",
      REFUND,
      "--judge",
      FIXTURES,
      "--db",
      db,
      "--format",
      "json",
    ]);
    expect(analyzed.code, analyzed.stderr).toBe(0);
    const { evaluation_id: id, ...first } = JSON.parse(analyzed.stdout);
    const listed = await cli(["sessions", "--db", db, "--format", "json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const [row] = JSON.parse(listed.stdout).analyses;
    expect(row).toMatchObject({ id, status: "completed", sessions: 1, judge: FIXTURES });
    expect(row.scores[0].overall_score).toBeCloseTo(first.analyses[0].overall_score, 10);
    const table = await cli(["sessions", "--db", db]);
    expect(table.stdout).toContain(id.slice(0, 8));
    const shown = await cli(["show", id.slice(0, 8), "--db", db, "--format", "json"]);
    expect(shown.code, shown.stderr).toBe(0);
    const { evaluation_id: again, ...reprinted } = JSON.parse(shown.stdout);
    expect(again).toBe(id);
    expect(reprinted).toEqual(first);
  });
});

describe("dramaturg session analyze --resume", () => {
  it("says there is nothing to resume when the analysis completed, and needs no files", async () => {
    const db = join(dir(), "resume-store");
    const FIXTURES = `fixtures:${ROOT}examples/sessions/refund.judge-fixtures.json`;
    const first = await cli([
      "session",
      "analyze",
      `${ROOT}examples/sessions/refund.session.json`,
      "--judge",
      FIXTURES,
      "--db",
      db,
    ]);
    expect(first.code, first.stderr).toBe(0);
    const again = await cli(["session", "analyze", "--resume", "--db", db]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no interrupted session evaluation to resume in this store/);
  });
});

describe("dramaturg session analyze --concurrency", () => {
  let projects = 0;
  /** Two sessions (twelve judge calls) judged by a slow model, with the project file and flags given. */
  async function judgedCallsInFlight(project: string, ...flags: string[]) {
    const server = await startFakeOpenAIServer({ latencyMs: 40 });
    try {
      const config = join(dir(), `concurrency-${++projects}.yaml`);
      writeFileSync(config, project);
      const files = ["one", "two"].map((name) => join(dir(), `${name}.session.json`));
      for (const file of files) copyFileSync(`${ROOT}examples/sessions/refund.session.json`, file);
      const r = await cli([
        "session",
        "analyze",
        ...files,
        "--judge",
        "openai-compatible:judge",
        "--judge-base-url",
        server.url,
        "--db",
        "memory://",
        "--config",
        config,
        ...flags,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(server.stats.calls).toBe(12);
      return server.stats.maxInFlight;
    } finally {
      await server.close();
    }
  }

  it("keeps the project file's judge.concurrency when the flag is not given", async () => {
    expect(await judgedCallsInFlight("judge:\n  concurrency: 2\n")).toBe(2);
  });

  it("a --concurrency flag wins over the project file", async () => {
    expect(await judgedCallsInFlight("judge:\n  concurrency: 2\n", "--concurrency", "1")).toBe(1);
  });

  it("a --concurrency that is not a whole number from 1 to 256 is bad input (exit 2)", async () => {
    const r = await cli(["session", "analyze", FAULTS, "--db", "memory://", "--concurrency", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--concurrency must be a whole number from 1 to 256, got "0"/);
  });
});
