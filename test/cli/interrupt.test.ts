// Ctrl-C during `dramaturg eval` against a slow judge: the calls in flight finish, what was judged is
// kept, the run is marked interrupted with a resume hint and exit 130, and --resume completes it with
// the scores of an uninterrupted run.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeOpenAIServer,
  killAfterCalls,
  startFakeOpenAIServer,
  syntheticTranscript,
} from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { BIN, ROOT, spawnCli } from "./run-cli.ts";

const folder = useTempDir("dramaturg-interrupt-");
let slow: FakeOpenAIServer;
let fast: FakeOpenAIServer;
let dir: string;
let transcript: string;

beforeAll(async () => {
  slow = await startFakeOpenAIServer({ latencyMs: 400 });
  fast = await startFakeOpenAIServer();
  dir = folder();
  transcript = join(dir, "transcript.json");
  writeFileSync(transcript, JSON.stringify(syntheticTranscript({ messages: 12, agents: 2, channels: 1 })));
});

afterAll(async () => {
  await slow.close();
  await fast.close();
});

const evalArgs = (server: FakeOpenAIServer, db: string) => [
  "eval",
  transcript,
  "--judge",
  "openai-compatible:fake-model",
  "--judge-base-url",
  server.url,
  "--db",
  db,
  "--dimensions",
  "adherence",
  "--concurrency",
  "2",
  "--no-progress",
];

const overall = (json: string) =>
  Object.fromEntries(
    JSON.parse(json).runs.map((r: { agent_id: string; overall_score: number }) => [
      r.agent_id,
      r.overall_score,
    ]),
  );

describe("Ctrl-C during an evaluation", () => {
  it("keeps what was judged, says how to resume, exits 130; --resume completes it", async () => {
    const reference = await spawnCli([...evalArgs(fast, join(dir, "whole")), "--format", "json"]);
    expect(reference.code, reference.stderr).toBe(0);

    const db = join(dir, "interrupted");
    const callsBefore = slow.stats.calls;
    const run = await killAfterCalls([process.execPath, BIN, ...evalArgs(slow, db)], {
      server: slow,
      calls: 4,
      cwd: ROOT,
      signal: "SIGINT",
    });
    expect(run.killed, run.stderr).toBe(true);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toMatch(/finishing the judge calls in flight/);
    expect(run.stderr).toMatch(
      /interrupted after (\d+) of (\d+) verdicts; `dramaturg eval --resume [0-9a-f]{8}` completes it/,
    );
    const [, done, total] = /interrupted after (\d+) of (\d+)/.exec(run.stderr)!;
    expect(Number(done)).toBeGreaterThan(0);
    expect(Number(done)).toBeLessThan(Number(total));
    // The calls in flight (two, 400 ms each) finish within the grace: every call the judge received is a
    // kept verdict (one call per verdict here, as in the reference run), none aborted when the grace ended.
    const calls = slow.stats.calls - callsBefore;
    expect(JSON.parse(reference.stdout).totals.calls).toBe(Number(total));
    expect(Number(done), run.stderr).toBe(calls);
    // Nothing waits for the rest: its calls, two at a time, would take far longer than the run took to exit
    // (a bound of the rest's judge time alone, so that a loaded machine's slower exit does not fail it).
    const rest = ((Number(total) - Number(done)) / 2) * 400;
    expect(rest).toBeGreaterThan(4_000);
    expect(run.exitMs).toBeLessThan(rest);

    const runs = await spawnCli(["runs", "--db", db, "--format", "json"]);
    expect(JSON.parse(runs.stdout).runs.map((r: { status: string }) => r.status)).toEqual([
      "interrupted",
      "interrupted",
    ]);
    const shown = await spawnCli(["show", "--db", db]);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toMatch(/is interrupted; .*--resume/);

    const resumed = await spawnCli(["eval", "--resume", "--db", db, "--no-progress", "--format", "json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const result = JSON.parse(resumed.stdout);
    expect(result.totals.resumed.reused_verdicts).toBe(Number(done));
    expect(overall(resumed.stdout)).toEqual(overall(reference.stdout));
  }, 60_000);

  it("a second Ctrl-C quits at once, and the run is still resumable", async () => {
    const db = join(dir, "twice");
    const child = spawn(process.execPath, [BIN, ...evalArgs(slow, db)], { cwd: ROOT });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const start = slow.stats.calls;
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (slow.stats.calls - start < 2) return;
        clearInterval(poll);
        child.kill("SIGINT");
        setTimeout(() => child.kill("SIGINT"), 50);
        resolve();
      }, 2);
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/stopped at once; `dramaturg eval --resume` completes the run/);
    const resumed = await spawnCli(["eval", "--resume", "--db", db, "--no-progress", "--format", "json"]);
    expect(resumed.code, resumed.stderr).toBe(0);
  }, 60_000);
});
