// Kills `dramaturg eval` with SIGKILL half way, then `dramaturg eval --resume` finishes it: the stored
// scores equal an uninterrupted run's, with no duplicate rows, no extra runs, and no needless calls.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.ts";
import {
  type FakeOpenAIServer,
  killAfterCalls,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { BIN, ROOT, spawnCli } from "./run-cli.ts";

const dir = useTempDir("dramaturg-resume-");
let server: FakeOpenAIServer;
let transcriptFile: string;
const CONCURRENCY = 4;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ latencyMs: 25 });
  transcriptFile = join(dir(), "transcript.json");
  writeFileSync(
    transcriptFile,
    JSON.stringify(syntheticTranscript({ messages: 40, agents: 2, channels: 1 })),
  );
});

afterAll(async () => {
  await server.close();
});

const evalArgs = (db: string, dimensions = "adherence,consistency,fluency") => [
  "eval",
  transcriptFile,
  "--judge",
  "openai-compatible:fake-model",
  "--judge-base-url",
  server.url,
  "--db",
  db,
  "--concurrency",
  String(CONCURRENCY),
  "--dimensions",
  dimensions,
  "--no-progress",
];

async function storedVerdicts(db: string) {
  const store = await openStore(db);
  try {
    const evaluations = await store.evaluations.list({ kind: "persona" });
    const runs = await store.runs.list({});
    const rows = evaluations.length ? await store.scores.forEvaluation(evaluations[0]!.id) : [];
    return { evaluations, runs, rows };
  } finally {
    await store.close();
  }
}

/** Runs eval and SIGKILLs it once the server has received `after` calls; fails if it ended first. */
async function killAfter(args: string[], after: number): Promise<void> {
  const run = await killAfterCalls([process.execPath, BIN, ...args], { server, calls: after, cwd: ROOT });
  if (!run.killed) throw new Error(`eval ended before it was killed (exit ${run.code}): ${run.stderr}`);
}

describe("resume after SIGKILL", () => {
  it("finishes in place with the scores of an uninterrupted run and only the missing calls", async () => {
    // The reference: one uninterrupted run.
    const whole = join(dir(), "whole");
    const before = server.stats.calls;
    const reference = await spawnCli([...evalArgs(whole), "--format", "json"]);
    expect(reference.code, reference.stderr).toBe(0);
    const wholeCalls = server.stats.calls - before;

    // The same run killed half way.
    const killed = join(dir(), "killed");
    await killAfter(evalArgs(killed), Math.floor(wholeCalls / 2));
    const partial = await storedVerdicts(killed);
    expect(partial.evaluations[0]!.status).toBe("running");
    const storedBefore = partial.rows.filter((r) => r.status !== "errored").length;
    expect(storedBefore).toBeGreaterThan(0);
    expect(storedBefore).toBeLessThan(wholeCalls);

    // The evaluation kept its transcript: the resume needs no file, and `show` reprints the result.
    const moved = join(dir(), "moved-away.json");
    renameSync(transcriptFile, moved);
    const beforeResume = server.stats.calls;
    let resumed: Awaited<ReturnType<typeof spawnCli>>;
    let shown: Awaited<ReturnType<typeof spawnCli>>;
    try {
      resumed = await spawnCli(["eval", "--resume", "--db", killed, "--no-progress", "--format", "json"]);
      expect(resumed.code, resumed.stderr).toBe(0);
      shown = await spawnCli(["show", "--db", killed, "--format", "json"]);
    } finally {
      renameSync(moved, transcriptFile);
    }
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(resumed.stdout);
    const resumeCalls = server.stats.calls - beforeResume;
    const missing = wholeCalls - storedBefore;
    // Only missing verdicts are judged (some may even come from the verdict cache, written before the kill).
    expect(
      resumeCalls,
      `resume made ${resumeCalls} calls for ${missing} missing verdicts`,
    ).toBeLessThanOrEqual(missing);
    // Both parts together: at most one uninterrupted run plus what the kill lost: the calls on the wire (the
    // concurrency) and the answers in hand not yet stored, one per worker at most. A worker's slot is freed
    // when its answer arrives, before the answer is parsed and stored (src/judge/answered.ts), and the run
    // keeps twice the concurrency of workers (workersFor).
    const killedCalls = beforeResume - before - wholeCalls;
    expect(
      killedCalls + resumeCalls,
      `killed part ${killedCalls} + resume ${resumeCalls} calls`,
    ).toBeLessThanOrEqual(wholeCalls + CONCURRENCY + 2 * CONCURRENCY);

    const a = await storedVerdicts(whole);
    const b = await storedVerdicts(killed);
    expect(b.evaluations).toHaveLength(1);
    expect(b.evaluations[0]!.status).toBe("completed");
    expect(b.runs).toHaveLength(2);
    expect(b.runs.every((r) => r.status === "completed")).toBe(true);
    // No duplicate rows: one per verdict key, as many as the uninterrupted run.
    expect(new Set(b.rows.map((r) => r.verdict_key)).size).toBe(b.rows.length);
    expect(b.rows).toHaveLength(a.rows.length);
    const scores = (rows: typeof a.rows) =>
      Object.fromEntries(rows.map((r) => [r.verdict_key, [r.status, r.raw_score, r.score]]));
    expect(scores(b.rows)).toEqual(scores(a.rows));
    const overall = (runs: typeof a.runs) =>
      Object.fromEntries(runs.map((r) => [r.agent_id, r.overall_score]));
    expect(overall(b.runs)).toEqual(overall(a.runs));
    expect(JSON.parse(resumed.stdout).runs.map((r: { overall_score: number }) => r.overall_score)).toEqual(
      JSON.parse(reference.stdout).runs.map((r: { overall_score: number }) => r.overall_score),
    );
  }, 120_000);

  it("a completed evaluation is not resumed again", async () => {
    const db = join(dir(), "done");
    const first = await spawnCli(evalArgs(db, "fluency"));
    expect(first.code, first.stderr).toBe(0);
    const again = await spawnCli(["eval", "--resume", "--db", db, "--no-progress"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no interrupted (persona )?evaluation/);
  }, 60_000);
});
