// τ²-bench's results files read as its `Results` model writes them (test/fixtures/tau2-bench, see its README: a
// published leaderboard run whose pass^1 is its submission's, and a HAND-WRITTEN file in that shape for the rest):
// every simulation a session of its task and trial, success by τ²-bench's rule (reward 1), pass^k hand-computed,
// the agent's tool calls checked against the environment's tool_defs, the user's own calls and the infrastructure
// errors left out as τ²-bench leaves them, the directory format read like the single file, bad input placed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { analyzeSession } from "../../src/sessions/index.ts";
import { cli } from "../cli/run-cli.ts";
import { useTempDir } from "../temp-dir.ts";

const FILE = "test/fixtures/tau2-bench/hand-written-airline.json";
interface Simulation {
  id: string;
  task_id: string;
  trial: number;
  reward_info: { reward: number } | null;
  messages: { role: string; tool_calls?: { name: string }[] | null }[] | null;
}
const results = (): { simulations: Simulation[]; [key: string]: unknown } =>
  JSON.parse(readFileSync(FILE, "utf8"));

/** τ²-bench's pass^k (its metrics/agent_metrics.py): the mean over tasks of C(successes, k) / C(trials, k). */
function passK(successes: number[], trials: number, k: number): number {
  const choose = (n: number, r: number): number => (r > n ? 0 : r === 0 ? 1 : (choose(n - 1, r - 1) * n) / r);
  return successes.reduce((sum, s) => sum + choose(s, k) / choose(trials, k), 0) / successes.length;
}

const dir = useTempDir("dramaturg-tau2-bench-");

describe("τ²-bench's results files", () => {
  it("reads a published leaderboard run and gives its submission's pass^1 (airline, 56.0 %)", async () => {
    const file = join(dir(), "toolorchestra-airline.json");
    writeFileSync(
      file,
      gunzipSync(readFileSync("test/fixtures/tau2-bench/toolorchestra-airline-1trial.json.gz")),
    );
    const result = await analyzeSession(file);
    expect(result.sources[0]!.from).toBe("tau2-bench");
    expect(result.analyses).toHaveLength(50);
    expect(result.pass_k).toMatchObject({ tasks: 50, runs_per_task: 1 });
    expect(result.pass_k!.pass_k[1]).toBeCloseTo(0.56, 12);
    expect(result.analyses.filter((a) => a.task_completion === true)).toHaveLength(28);
    // Its tool_defs are null: the calls are left unchecked (and the notes say why), not all "unauthorized".
    const calls = result.analyses.reduce((n, a) => n + a.tool_calls.total, 0);
    expect(calls).toBeGreaterThan(500);
    expect(result.analyses.reduce((n, a) => n + a.tool_calls.unchecked, 0)).toBe(calls);
    expect(result.analyses.flatMap((a) => a.tool_validation)).toEqual([]);
    expect(result.sources[0]!.notes.join("\n")).toContain("gives no tool_defs");
  });

  it("reads each simulation as a session of its task and trial; pass^k is τ²-bench's over the rewarded ones", async () => {
    const result = await analyzeSession(FILE);
    expect(result.sources[0]!.from).toBe("tau2-bench");
    // Nine simulations, one ended by an infrastructure error: eight sessions, two tasks × four trials.
    expect(result.analyses).toHaveLength(8);
    expect(result.pass_k).toMatchObject({ tasks: 2, runs_per_task: 4 });
    const rewarded = results().simulations.filter((s) => s.reward_info);
    const successes = ["0", "1"].map(
      (task) => rewarded.filter((s) => s.task_id === task && s.reward_info!.reward === 1).length,
    );
    expect(successes).toEqual([4, 2]);
    for (const k of [1, 2, 3, 4]) expect(result.pass_k!.pass_k[k]).toBeCloseTo(passK(successes, 4, k), 12);
    expect(result.pass_k!.pass_k[2]).toBeCloseTo(7 / 12, 12);
    const third = result.analyses.find((a) => a.session_id === "task-1-trial-1")!;
    expect(third.task_id).toBe("1");
    expect(third.task_completion).toBe(false);
  });

  it("checks the agent's calls against the environment's tool_defs; the simulated user's calls are counted apart", async () => {
    const result = await analyzeSession(FILE);
    const agentCalls = results()
      .simulations.flatMap((s) => s.messages ?? [])
      .filter((m) => m.role === "assistant")
      .flatMap((m) => m.tool_calls ?? []);
    expect(result.analyses.reduce((n, a) => n + a.tool_calls.total, 0)).toBe(agentCalls.length);
    expect(result.analyses.reduce((n, a) => n + a.tool_calls.unchecked, 0)).toBe(0);
    // Trial 2 of task 1 sends `reservation` where the schema wants `reservation_id`.
    const findings = result.analyses.flatMap((a) => a.tool_validation.map((f) => [a.session_id, f.type]));
    expect(findings).toEqual([
      ["task-1-trial-2", "hallucinated_parameter"],
      ["task-1-trial-2", "missing_required_parameter"],
    ]);
    expect(result.sources[0]!.notes).toEqual(
      expect.arrayContaining([
        "1 simulation(s) ended by an infrastructure error: left out, as τ²-bench does",
        "1 tool call(s) made by the simulated user: not the agent's, not validated",
      ]),
    );
  });

  it("reads the directory format (results.json, simulations/ beside it) as the single file", async () => {
    const folder = join(dir(), "run");
    mkdirSync(join(folder, "simulations"), { recursive: true });
    const { simulations, ...meta } = results();
    // Written in reverse, listed in order by the index: the index's order is the one read.
    for (const s of [...simulations].reverse())
      writeFileSync(join(folder, "simulations", `${s.id}.json`), JSON.stringify(s));
    writeFileSync(
      join(folder, "results.json"),
      JSON.stringify({ ...meta, simulations: [], simulation_index: simulations.map((s) => ({ id: s.id })) }),
    );
    const single = await analyzeSession(FILE);
    for (const path of [folder, join(folder, "results.json")]) {
      const read = await analyzeSession(path);
      expect(read.analyses.map((a) => a.session_id)).toEqual(single.analyses.map((a) => a.session_id));
      expect(read.pass_k).toEqual(single.pass_k);
    }
  });

  it("prints pass^k and the success rule; --success-reward 0 makes every rewarded simulation a success", async () => {
    const run = await cli(["session", "analyze", FILE, "--db", "memory://"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "pass^k over 2 task(s), 4 runs each: k=1 0.750 · k=2 0.583 · k=3 0.500 · k=4 0.500",
    );
    expect(run.stdout).toContain("a simulation succeeded when its reward is 1 (τ²-bench's rule");
    const all = await cli([
      "session",
      "analyze",
      FILE,
      "--from",
      "tau2-bench",
      "--success-reward",
      "0",
      "--format",
      "json",
      "--db",
      "memory://",
    ]);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).pass_k.pass_k).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 });
  });

  it("refuses a simulation whose tool call has no name, naming its place; nothing printed", async () => {
    const doc = results();
    const broken = structuredClone(doc);
    const calls = broken.simulations[1]!.messages![2]!.tool_calls!;
    delete (calls[0] as { name?: string }).name;
    const file = join(dir(), "broken.json");
    writeFileSync(file, JSON.stringify(broken));
    const run = await cli(["session", "analyze", file, "--db", "memory://"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}:simulations[1].messages[2]`);
    expect(run.stdout).toBe("");
  });
});
