// The world benchmark at toy size: persona agents on the fake server, the real action gate plugged into
// beforeCommit with every check on, and the counts the benchmark reports (its timings come from npm run bench).
import { describe, expect, it } from "vitest";
import { benchWorld } from "../../bench/world.bench.ts";

describe("the world benchmark", () => {
  it("gates every committed message through the action gate and counts its judge calls and tokens", async () => {
    const r = await benchWorld({ agents: 3, steps: 2, latencyMs: 0 });
    expect(r).toMatchObject({ committed: 6, agent_calls: 6, gate_checks: 6 });
    expect(r.judge_calls).toBeGreaterThanOrEqual(6);
    expect(r.judge_tokens_per_message).toBeGreaterThan(0);
  });
});
