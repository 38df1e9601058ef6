// Warm verdict cache, end to end: a cold run fills the cache through the fake server, then identical
// reruns (prepare, then run through the library with the cache's prefetch beside it, each a new
// evaluation in the same store, as `dramaturg eval` does) must make zero judge calls at ≥ 10,000 cached verdicts/s.
// Several reruns are timed; the median is the figure, and the first and the best are reported beside it
// (this machine's timings vary by tens of percent run to run).
import { createOpenAI } from "@ai-sdk/openai";
import { LlmJudge } from "../src/judge/index.ts";
import {
  type EvalResult,
  type PersonaInputOptions,
  preparePersonaEvaluation,
  runPreparedPersonaEvaluation,
} from "../src/personas/index.ts";
import { openStore } from "../src/store/index.ts";
import { startFakeOpenAIServer } from "../src/testing/index.ts";
import { personaInput } from "./persona.bench.ts";

/** One timed warm rerun. */
export interface WarmRerun {
  plan_ms: number;
  /** From the plan until every score is stored (the run overlaps the cache's bulk lookup). */
  run_ms: number;
  wall_ms: number;
  verdicts_per_second: number;
}

export interface WarmCacheFigures {
  verdicts: number;
  errored: number;
  /** Requests the fake server received during the warm reruns (must be 0). */
  warm_server_calls: number;
  /** Reruns that reused a stored evaluation whole. */
  reused: number;
  /** Verdicts served from the cache, the fewest of any rerun. */
  cache_hits: number;
  /** Every warm rerun gave the cold run's scores (every run's dimensions and overall score). */
  same_scores: boolean;
  /** Every timed rerun, in order. */
  reruns: WarmRerun[];
  /** The rerun of median wall time: the benchmark's figure. */
  median: WarmRerun;
  first: WarmRerun;
  best: WarmRerun;
}

/**
 * Cold run then `reruns` timed warm reruns of `messages` messages × 5 adherence propositions, individual mode.
 * By default each rerun takes the per-verdict path: the cache's generation is moved before it (an untimed
 * clear of no entry), so no stored evaluation is reused whole. With `reuse`, every rerun reuses the last
 * evaluation whole (see EvaluationOfKind.reuse), the first one the cold run, whose rerun figures it kept.
 */
export async function benchWarmCache(
  messages = 1_000,
  reruns = 5,
  { reuse = false }: { reuse?: boolean } = {},
): Promise<WarmCacheFigures> {
  const input = await personaInput(messages);
  const server = await startFakeOpenAIServer({ recordRequests: false });
  const store = await openStore("memory://");
  // A live judge given to the library goes behind the store's verdict cache.
  const judgeOver = () =>
    new LlmJudge({
      model: createOpenAI({ baseURL: server.url, apiKey: "bench" }).chat("bench-model"),
      descriptor: { provider: "openai", model: "bench-model", base_url: server.url },
      concurrency: 16,
    });
  const options: PersonaInputOptions = {
    transcript: input.transcript,
    propositions: input.propositions,
    source: "bench:warm-cache",
    dimensions: ["adherence"],
    mode: "individual",
  };
  const run = async (judge: LlmJudge) =>
    runPreparedPersonaEvaluation(await preparePersonaEvaluation(options), { judge, store, concurrency: 16 });
  try {
    const cold = await run(judgeOver());
    const coldCalls = server.stats.calls;
    const coldScores = scoresOf(cold);
    const timed: WarmRerun[] = [];
    let hits = Number.POSITIVE_INFINITY;
    let sameScores = true;
    let last: EvalResult | undefined;
    let reused = 0;
    for (let i = 0; i < reruns; i++) {
      if (!reuse) await store.verdictCache.clear({ model: "no-such-model" });
      const judge = judgeOver();
      const started = performance.now();
      // What `dramaturg eval` does: prepare (read, check, plan), then run, the run having the cache look
      // the keys up in bulk beside it once the evaluation's rows exist.
      const prepared = await preparePersonaEvaluation(options);
      const planned = performance.now();
      last = await runPreparedPersonaEvaluation(prepared, { judge, store, concurrency: 16 });
      const ended = performance.now();
      hits = Math.min(hits, last.totals.cache?.hits ?? 0);
      if (last.totals.cache?.reused_from) reused++;
      sameScores &&= scoresOf(last) === coldScores;
      timed.push({
        plan_ms: Math.round(planned - started),
        run_ms: Math.round(ended - planned),
        wall_ms: Math.round(ended - started),
        verdicts_per_second: Math.round(last.totals.verdicts / ((ended - started) / 1000)),
      });
    }
    const byWall = [...timed].sort((a, b) => a.wall_ms - b.wall_ms);
    return {
      verdicts: last!.totals.verdicts,
      errored: last!.totals.errored,
      warm_server_calls: server.stats.calls - coldCalls,
      cache_hits: hits,
      same_scores: sameScores,
      reused,
      reruns: timed,
      median: byWall[Math.floor((byWall.length - 1) / 2)]!,
      first: timed[0]!,
      best: byWall[0]!,
    };
  } finally {
    await store.close();
    await server.close();
  }
}

/** Each run's overall and dimension scores, comparable across evaluations. */
function scoresOf(result: EvalResult): string {
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
