// `dramaturg config agent show|set` and `dramaturg corrections stats` on a PGlite folder store, with
// correction logs added through the library (hand-written, as the action gate would log them).
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CorrectionLogEntry } from "../../src/core/index.ts";
import { openStore } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli } from "./run-cli.ts";

const folder = useTempDir("dramaturg-corrections-");
let db: string;
let project: string;

const check = (agent_id: string, overrides: Partial<CorrectionLogEntry> = {}): CorrectionLogEntry => ({
  agent_id,
  original_text: "Garlic, always garlic.",
  dimension_scores: {
    adherence: { score: 8, reasoning: "in character", passed: true },
    fluency: { score: 6, reasoning: "a little stiff", passed: false },
  },
  similarity_score: 0.2,
  total_score: 14,
  attempt_number: 1,
  outcome: "passed",
  ...overrides,
});

beforeAll(async () => {
  db = join(folder(), "store");
  project = join(folder(), "dramaturg.yaml");
  writeFileSync(
    project,
    "corrections:\n  marta:\n    gate_fluency_enabled: true\n    gate_fluency_threshold: 5\n",
  );
  const store = await openStore(db);
  try {
    await store.corrections.add([
      check("marta"),
      check("marta", { outcome: "passed_after_retry", attempt_number: 2, similarity_score: 0.7 }),
      check("marta", { outcome: "forced_through", total_score: 10 }),
      check("otto", { similarity_score: 0.7 }),
    ]);
  } finally {
    await store.close();
  }
}, 60_000);

describe("dramaturg config agent", () => {
  it("shows the project file's settings for an agent with nothing stored", async () => {
    const r = await cli([
      "config",
      "agent",
      "show",
      "marta",
      "--db",
      db,
      "--config",
      project,
      "--format",
      "json",
    ]);
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout);
    expect(shown).toMatchObject({ agent_id: "marta", source: "project file" });
    expect(shown.config).toMatchObject({
      gate_fluency_enabled: true,
      gate_fluency_threshold: 5,
      gate_adherence_enabled: false,
    });
  });

  it("set then show round-trips, keeping the project file's values in the new stored row", async () => {
    const set = await cli([
      "config",
      "agent",
      "set",
      "marta",
      "gate_adherence_enabled=true",
      "gate_adherence_threshold=6.5",
      "--db",
      db,
      "--config",
      project,
    ]);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/gate_adherence_threshold\s+6\.5/);
    const r = await cli([
      "config",
      "agent",
      "show",
      "marta",
      "--db",
      db,
      "--config",
      project,
      "--format",
      "json",
    ]);
    const shown = JSON.parse(r.stdout);
    expect(shown.source).toBe("store");
    expect(shown.config).toMatchObject({
      gate_adherence_enabled: true,
      gate_adherence_threshold: 6.5,
      gate_fluency_enabled: true,
      gate_fluency_threshold: 5,
    });
  });

  it("the table says where the settings come from", async () => {
    const r = await cli(["config", "agent", "show", "nobody", "--db", db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^agent nobody: the defaults/);
    expect(r.stdout).toMatch(/max_correction_attempts\s+2\n/);
  });

  it("an unknown key exits 2 naming it, and writes nothing", async () => {
    const r = await cli(["config", "agent", "set", "ines", "gate_adherance_enabled=true", "--db", db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /unknown setting "gate_adherance_enabled"; expected one of gate_adherence_enabled/,
    );
    const show = await cli(["config", "agent", "show", "ines", "--db", db, "--format", "json"]);
    expect(JSON.parse(show.stdout).source).toBe("default");
  });

  it("a bad value exits 2 naming the key and what it takes", async () => {
    const r = await cli(["config", "agent", "set", "ines", "gate_fluency_threshold=12", "--db", db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/gate_fluency_threshold=12: expected a number .*9/);
    const flag = await cli(["config", "agent", "set", "ines", "gate_fluency_enabled=yes", "--db", db]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/gate_fluency_enabled=yes: expected true or false/);
  });

  it("bad input creates no store", async () => {
    const nowhere = join(folder(), "never-made");
    const r = await cli(["config", "agent", "set", "ines", "max_action_similarity=2", "--db", nowhere]);
    expect(r.code).toBe(2);
    expect(existsSync(nowhere)).toBe(false);
  });

  it("a mistake in the project file's corrections exits 2 with its file and line", async () => {
    const bad = join(folder(), "bad.yaml");
    writeFileSync(bad, "corrections:\n  marta:\n    gate_fluency_threshold: high\n");
    const r = await cli(["config", "agent", "show", "marta", "--db", db, "--config", bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}:3:`);
    expect(r.stderr).toMatch(/gate_fluency_threshold/);
  });
});

describe("dramaturg corrections stats", () => {
  it("prints the figures as JSON, each agent's similarity judged by its own threshold", async () => {
    const r = await cli(["corrections", "stats", "--db", db, "--format", "json"]);
    expect(r.code).toBe(0);
    const { agent, statistics } = JSON.parse(r.stdout);
    expect(agent).toBeNull();
    expect(statistics).toMatchObject({
      checks: 4,
      original_successes: 2,
      original_success_rate: 0.5,
      first_attempt_failures: 2,
      regeneration_failure_rate: 0.5,
      forced_through: 1,
    });
    expect(statistics.dimensions.fluency).toMatchObject({ n: 4, mean: 6, failures: 4 });
    expect(statistics.similarity).toMatchObject({ n: 4, failures: 2 });
  });

  it("--agent keeps that agent's checks", async () => {
    const r = await cli(["corrections", "stats", "--agent", "otto", "--db", db, "--format", "json"]);
    const { agent, statistics } = JSON.parse(r.stdout);
    expect(agent).toBe("otto");
    expect(statistics).toMatchObject({ checks: 1, original_success_rate: 1, regeneration_failure_rate: 0 });
  });

  it("prints a table of the rates and the dimensions", async () => {
    const r = await cli(["corrections", "stats", "--agent", "marta", "--db", db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^3 gate checks \(agent marta\)/);
    expect(r.stdout).toMatch(/original success rate\s+33\.3%/);
    expect(r.stdout).toMatch(/regeneration failure rate\s+66\.7%/);
    expect(r.stdout).toMatch(/similarity failures\s+1 of 3 checked/);
    expect(r.stdout).toMatch(/fluency\s+3\s+6\.00\s+0\.00\s+3\s+0\s+0/);
  });

  it("an agent with no checks says so", async () => {
    const r = await cli(["corrections", "stats", "--agent", "nobody", "--db", db]);
    expect(r.stdout).toBe("no correction checks stored (agent nobody)\n");
  });

  it("--run with a run id that names no simulation is matched as given", async () => {
    const r = await cli(["corrections", "stats", "--run", "chat-42", "--db", db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("no correction checks stored (all agents, run chat-42)\n");
  });

  it("a folder with no store exits 2", async () => {
    const r = await cli(["corrections", "stats", "--db", join(folder(), "empty")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no store here/);
  });

  it("a --since that is no time exits 2", async () => {
    const r = await cli(["corrections", "stats", "--since", "yesterday-ish", "--db", db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--since must be a date or time/);
  });
});
