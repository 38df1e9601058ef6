// Warm verdict cache, end to end: a cold run fills the cache through the fake server, then an identical
// rerun (prefetch + runPersonaEvaluation) must make zero judge calls at ≥ 10,000 cached verdicts/s.
import { createOpenAI } from "@ai-sdk/openai";
import { type PersonaRunConfig, planFor, runPersonaEvaluation } from "../src/cli/persona-run.ts";
import { contentHash } from "../src/core/index.ts";
import { CachingJudge, LlmJudge } from "../src/judge/index.ts";
import { openStore } from "../src/store/index.ts";
import { startFakeOpenAIServer } from "../src/testing/index.ts";
import { BENCH_PROPOSITIONS, personaInput } from "./persona.bench.ts";

export interface WarmCacheFigures {
  verdicts: number;
  errored: number;
  /** Requests the fake server received during the warm rerun (must be 0). */
  warm_server_calls: number;
  cache_hits: number;
  /** The warm rerun gave the cold run's scores (every run's dimensions and overall score). */
  same_scores: boolean;
  /** Planning, the bulk lookup (cache keys included) before the run, then the run itself. */
  plan_ms: number;
  prefetch_ms: number;
  run_ms: number;
  wall_ms: number;
  verdicts_per_second: number;
}

/** Cold run then timed warm rerun of `messages` messages × 5 adherence propositions, individual mode. */
export async function benchWarmCache(messages = 1_000): Promise<WarmCacheFigures> {
  const input = await personaInput(messages);
  const server = await startFakeOpenAIServer({ recordRequests: false });
  const store = await openStore("memory://");
  const judgeOver = () =>
    new CachingJudge({
      judge: new LlmJudge({
        model: createOpenAI({ baseURL: server.url, apiKey: "bench" }).chat("bench-model"),
        descriptor: { provider: "openai", model: "bench-model", base_url: server.url },
        concurrency: 16,
      }),
      backend: store.verdictCache,
      mode: "individual",
    });
  const config: PersonaRunConfig = {
    source: "bench:warm-cache",
    propositions: BENCH_PROPOSITIONS,
    judge: "openai:bench-model",
    mode: "individual",
    trials: 1,
    dimensions: ["adherence"],
    transcript_hash: contentHash(input.transcript),
  };
  const run = (judge: CachingJudge) =>
    runPersonaEvaluation({ ...input, config, judge, store, concurrency: 16 });
  try {
    const cold = await run(judgeOver());
    const coldCalls = server.stats.calls;
    const judge = judgeOver();
    const started = performance.now();
    // What `dramaturg eval` does with a cache: plan, look every key up at once, then run.
    const plan = planFor({ ...input, config });
    const planned = performance.now();
    await judge.prefetch(plan.calls.map((c) => c.request));
    const prefetched = performance.now();
    const result = await runPersonaEvaluation({ ...input, config, plan, judge, store, concurrency: 16 });
    const ended = performance.now();
    return {
      verdicts: result.totals.verdicts,
      errored: result.totals.errored,
      warm_server_calls: server.stats.calls - coldCalls,
      cache_hits: judge.counters.hits,
      same_scores: scoresOf(result) === scoresOf(cold),
      plan_ms: Math.round(planned - started),
      prefetch_ms: Math.round(prefetched - planned),
      run_ms: Math.round(ended - prefetched),
      wall_ms: Math.round(ended - started),
      verdicts_per_second: Math.round(result.totals.verdicts / ((ended - started) / 1000)),
    };
  } finally {
    await store.close();
    await server.close();
  }
}

/** Each run's overall and dimension scores, comparable across evaluations. */
function scoresOf(result: Awaited<ReturnType<typeof runPersonaEvaluation>>): string {
  return JSON.stringify(
    result.runs.map((r) => [
      r.agent_id,
      r.overall_score,
      Object.entries(r.dimensions).map(([d, v]) => [d, v?.score, v?.propositions.map((p) => p.score)]),
    ]),
  );
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()!))
  process.stdout.write(`${JSON.stringify(await benchWarmCache(), null, 2)}\n`);
