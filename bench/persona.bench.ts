// End-to-end persona benchmarks through the library (evaluatePersonas: plan → store → judge → aggregate):
// the LLM judge over real HTTP against the fake server, and a zero-latency judge.
import { fileURLToPath } from "node:url";
import { createOpenAI } from "@ai-sdk/openai";
import type { Transcript } from "../src/core/index.ts";
import { type Judge, LlmJudge } from "../src/judge/index.ts";
import { type EvalResult, evaluatePersonas } from "../src/personas/index.ts";
import { type LoadedPropositions, loadPropositions } from "../src/propositions/index.ts";
import { openPgliteStore } from "../src/store/open-sql-store.ts";
import { startFakeOpenAIServer, syntheticTranscript } from "../src/testing/index.ts";
import { startFakeServerInWorker } from "./fake-server-worker.ts";
import { InstantJudge } from "./instant-judge.ts";

/** Five adherence propositions, so each judged message is five individual calls or one batched call. */
export const BENCH_PROPOSITIONS = fileURLToPath(new URL("./fixtures/propositions", import.meta.url));

export interface PersonaInput {
  transcript: Transcript;
  propositions: LoadedPropositions;
}

/** The synthetic transcript and the bench propositions (adherence only). */
export async function personaInput(messages = 1_000): Promise<PersonaInput> {
  const transcript = syntheticTranscript({ messages, agents: 4, channels: 2 });
  const propositions = await loadPropositions({
    dir: BENCH_PROPOSITIONS,
    dimensions: ["adherence"],
    agentIds: transcript.agents.map((a) => a.id),
    builtins: false,
  });
  return { transcript, propositions };
}

export interface RunFigures {
  mode: "individual" | "batch";
  /** Verdicts judged (from the result totals) and how many errored. */
  verdicts: number;
  errored: number;
  /** Judge requests (planned calls) and model calls the judge made. */
  requests: number;
  calls: number;
  /** Requests the fake server received and the most it had in flight at once (LLM judge only). */
  server_calls?: number;
  server_max_in_flight?: number;
  input_tokens: number;
  output_tokens: number;
  input_tokens_per_verdict: number;
  /** Opening and migrating the in-memory store (not part of the run's time). */
  store_open_ms: number;
  /** evaluatePersonas from call to return. */
  wall_ms: number;
  verdicts_per_second: number;
  /** Score rows in the store afterwards (checks the writes really happened). */
  stored_rows: number;
}

interface RunOptions {
  input: PersonaInput;
  judge: Judge;
  mode: "individual" | "batch";
  concurrency: number;
  label: string;
}

/**
 * One evaluation into a fresh in-memory PGlite store, timed: the SQL path a folder store takes (memory://
 * has no database), and the count of stored rows is read back with SQL.
 */
async function timedRun({ input, judge, mode, concurrency, label }: RunOptions): Promise<RunFigures> {
  const opened = performance.now();
  const store = await openPgliteStore(undefined);
  const store_open_ms = performance.now() - opened;
  try {
    const started = performance.now();
    const result: EvalResult = await evaluatePersonas({
      transcript: input.transcript,
      source: `bench:${label}`,
      propositions: input.propositions,
      dimensions: ["adherence"],
      mode,
      judge,
      store,
      concurrency,
      // Every verdict is judged: the cache has a benchmark of its own.
      cache: false,
    });
    const wall_ms = performance.now() - started;
    const counted = await store.db!.query<{ n: number | string }>(
      "SELECT count(*) AS n FROM evaluation_scores WHERE evaluation_id = $1",
      [result.evaluation_id],
    );
    const { totals } = result;
    return {
      mode,
      verdicts: totals.verdicts,
      errored: totals.errored,
      requests: totals.requests,
      calls: totals.calls,
      input_tokens: totals.token_usage.input_tokens,
      output_tokens: totals.token_usage.output_tokens,
      input_tokens_per_verdict: totals.verdicts ? totals.token_usage.input_tokens / totals.verdicts : 0,
      store_open_ms: Math.round(store_open_ms),
      wall_ms: Math.round(wall_ms),
      verdicts_per_second: Math.round(totals.verdicts / (wall_ms / 1000)),
      stored_rows: Number(counted.rows[0]?.n ?? 0),
    };
  } finally {
    await store.close();
  }
}

export interface LlmRunOptions {
  input: PersonaInput;
  mode: "individual" | "batch";
  latencyMs: number;
  concurrency?: number;
  /** Run the fake server on a worker thread instead of the main one (default: main, as in tests). */
  serverThread?: boolean;
}

/** One evaluation through the real OpenAI provider and LlmJudge against a fake server started for it. */
export async function llmJudgeRun({
  input,
  mode,
  latencyMs,
  concurrency = 16,
  serverThread = false,
}: LlmRunOptions): Promise<RunFigures> {
  if (serverThread) {
    const server = await startFakeServerInWorker(latencyMs);
    let stats: { calls: number; maxInFlight: number } | undefined;
    try {
      const figures = await judgeAgainst(server.url);
      stats = await server.close();
      return { ...figures, server_calls: stats.calls, server_max_in_flight: stats.maxInFlight };
    } finally {
      if (!stats) await server.close().catch(() => {});
    }
  }
  const server = await startFakeOpenAIServer({ latencyMs, recordRequests: false });
  try {
    const figures = await judgeAgainst(server.url);
    return { ...figures, server_calls: server.stats.calls, server_max_in_flight: server.stats.maxInFlight };
  } finally {
    await server.close();
  }

  function judgeAgainst(url: string): Promise<RunFigures> {
    const model = createOpenAI({ baseURL: url, apiKey: "bench" }).chat("fake-model");
    const judge = new LlmJudge({
      model,
      concurrency,
      descriptor: { provider: "openai-compatible", model: "fake-model", base_url: url },
    });
    return timedRun({ input, judge, mode, concurrency, label: `fake-${latencyMs}ms` });
  }
}

/** One evaluation through the instant stand-in judge. */
export async function instantJudgeRun(
  input: PersonaInput,
  mode: "individual" | "batch",
  concurrency = 16,
): Promise<RunFigures> {
  return timedRun({ input, judge: new InstantJudge(), mode, concurrency, label: "instant" });
}
