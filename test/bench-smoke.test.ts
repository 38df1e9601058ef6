// Smoke test of the benchmark harness at toy sizes: the persona benchmarks run end to end and count
// what they should (the real figures come from `npm run bench`, not from here).
import { describe, expect, it } from "vitest";
import { benchWarmCache } from "../bench/cache.bench.ts";
import { instantJudgeRun, llmJudgeRun, personaInput } from "../bench/persona.bench.ts";

describe("bench harness", () => {
  it("runs the instant judge through runPersonaEvaluation and stores every verdict", async () => {
    const input = await personaInput(40);
    const run = await instantJudgeRun(input, "individual");
    expect(run).toMatchObject({ verdicts: 200, errored: 0, stored_rows: 200, requests: 200 });
  });

  it("runs the LlmJudge against the fake server in batch mode: one call per message", async () => {
    const input = await personaInput(20);
    const batch = await llmJudgeRun({ input, mode: "batch", latencyMs: 0 });
    expect(batch).toMatchObject({ verdicts: 100, errored: 0, calls: 20, server_calls: 20, stored_rows: 100 });
  });

  it("reruns with a warm cache make no judge call and give the cold run's scores, every time", async () => {
    const warm = await benchWarmCache(20, 2);
    expect(warm).toMatchObject({ verdicts: 100, errored: 0, warm_server_calls: 0, cache_hits: 100 });
    expect(warm.same_scores).toBe(true);
    expect(warm.reruns).toHaveLength(2);
    expect(warm.best.wall_ms).toBeLessThanOrEqual(warm.median.wall_ms);
  });
});
