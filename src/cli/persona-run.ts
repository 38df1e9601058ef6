// Runs one persona evaluation end to end: plan → store the evaluation and a run per agent → judge
// (writing each verdict as it arrives) → aggregate → complete. Also resumes an interrupted one.
import { writeFileSync } from "node:fs";
import {
  contentHash,
  DramaturgError,
  InputError,
  type PersonaDimension,
  type TokenUsage,
  type Transcript,
  type Verdict,
  verdictKeyString,
  ZERO_USAGE,
} from "../core/index.ts";
import {
  type Judge,
  type JudgeRequest,
  type VerdictCacheCounters,
  verdictsToFixtures,
} from "../judge/index.ts";
import { type LoadedPropositions, propositionSetFor } from "../propositions/index.ts";
import {
  aggregatePersonaScores,
  EVAL_RESULT_FORMAT,
  type EvalResult,
  type EvaluationPlan,
  executePlan,
  type ItemMeta,
  type PersonaScores,
  pendingCalls,
  planPersonaEvaluation,
  type ScoredVerdict,
} from "../scorers/index.ts";
import { personaHash, type RunJudge, type ScoreRow, type Store, scoreFromVerdict } from "../store/index.ts";
import { shownPath } from "./paths.ts";
import type { Progress } from "./progress.ts";

/** Everything needed to plan the same evaluation again (stored with it, read back by --resume). */
export interface PersonaRunConfig {
  source: string;
  propositions?: string;
  judge: string;
  judge_base_url?: string;
  mode: "individual" | "batch";
  trials: number;
  dimensions: PersonaDimension[];
  agents?: string[];
  sample?: { size: number; seed: number };
  window_start?: string;
  window_end?: string;
  transcript_hash: string;
}

export interface PersonaRunInput {
  transcript: Transcript;
  config: PersonaRunConfig;
  propositions: LoadedPropositions;
  judge: Judge;
  store: Store;
  concurrency: number;
  progress?: Progress;
  /** Write every verdict in the judge-fixtures format here (for replay in CI). */
  record?: string;
  /** Mark the runs as baselines once completed. */
  baseline?: boolean;
  /** Continue this stored evaluation instead of starting a new one. */
  resume?: string;
  /** The plan, when the caller already made it (to validate the input before opening the store). */
  plan?: EvaluationPlan;
  /**
   * The verdict cache in front of the judge, whose counters the run reports. With `prefetch`, the run
   * has it look up every pending request's keys in bulk, beside the run (see CachingJudge.prefetch).
   */
  cache?: {
    readonly counters: VerdictCacheCounters;
    prefetch?(requests: readonly JudgeRequest[]): Promise<void>;
  };
  signal?: AbortSignal;
}

export function planFor(
  input: Pick<PersonaRunInput, "transcript" | "config" | "propositions">,
): EvaluationPlan {
  const { config } = input;
  return planPersonaEvaluation({
    transcript: input.transcript,
    propositions: (d, a) => propositionSetFor(input.propositions, d, a),
    dimensions: config.dimensions,
    agents: config.agents,
    windowStart: config.window_start ? new Date(config.window_start) : undefined,
    windowEnd: config.window_end ? new Date(config.window_end) : undefined,
    sample: config.sample?.size,
    seed: config.sample?.seed,
    mode: config.mode,
    trials: config.trials,
  });
}

/** Map from verdict key to where it belongs, for reading stored verdicts back into a plan. */
function metaByKey(plan: EvaluationPlan): Map<string, ItemMeta> {
  const out = new Map<string, ItemMeta>();
  for (const call of plan.calls)
    call.request.items.forEach((item, i) => {
      out.set(verdictKeyString(item.key), call.meta[i]!);
    });
  for (const t of plan.trivial) out.set(verdictKeyString(t.item.key), t.meta);
  return out;
}

function verdictFromRow(row: ScoreRow): Verdict {
  const key = {
    dimension: row.dimension,
    proposition_id: row.proposition_id,
    trial: row.trial,
    ...(row.agent_id !== null ? { agent_id: row.agent_id } : {}),
    ...(row.channel !== null ? { channel: row.channel } : {}),
    ...(row.message_id !== null ? { message_id: row.message_id } : {}),
  };
  if (row.status === "errored") {
    const [name, ...rest] = (row.error ?? "Error: unknown").split(": ");
    return { ok: false, key, error: { name: name!, message: rest.join(": ") } };
  }
  return {
    ok: true,
    key,
    reasoning: row.reasoning,
    ...(row.raw_score !== null ? { score: row.raw_score } : {}),
    ...(row.count !== null ? { count: row.count, ideas: row.ideas ?? [] } : {}),
    ...(row.status === "trivial" ? { trivial: true } : {}),
  };
}

function usageByAgent(verdicts: readonly ScoredVerdict[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of verdicts)
    if (v.meta.agentId) counts.set(v.meta.agentId, (counts.get(v.meta.agentId) ?? 0) + 1);
  return counts;
}

export async function runPersonaEvaluation(input: PersonaRunInput): Promise<EvalResult> {
  const { store, judge, config } = input;
  const plan = input.plan ?? planFor(input);
  const descriptor = judge.descriptor;
  const runJudge: RunJudge = {
    provider: descriptor.provider,
    model: descriptor.model,
    temperature: descriptor.temperature,
    mode: config.mode,
    double_check: plan.calls.some((c) => c.request.doubleCheck),
    prompt_version: descriptor.prompt_version,
  };

  // The evaluation and one run per agent: new, or the interrupted ones being resumed.
  let evaluationId: string;
  const runIds = new Map<string, string>();
  let reused: ScoredVerdict[] = [];
  if (input.resume) {
    evaluationId = input.resume;
    const runs = await store.runs.list({ evaluation: evaluationId });
    for (const r of runs) runIds.set(r.agent_id, r.id);
    const byKey = metaByKey(plan);
    const stored = await store.scores.forEvaluation(evaluationId);
    // Errored verdicts are judged again; only answers are kept.
    reused = stored
      .filter((row) => row.status !== "errored" && byKey.has(row.verdict_key))
      .map((row) => ({ verdict: verdictFromRow(row), meta: byKey.get(row.verdict_key)! }));
    await store.evaluations.start(evaluationId);
    for (const id of runIds.values()) await store.runs.start(id);
  } else {
    await store.agents.upsert(plan.transcript.agents);
    const evaluation = await store.evaluations.create({
      kind: "persona",
      source: config.source,
      config: { ...config, judge_descriptor: descriptor },
      propositions_hash: input.propositions.hash,
    });
    evaluationId = evaluation.id;
    await store.evaluations.start(evaluationId);
    for (const scope of plan.agents) {
      const agentSets = input.propositions.sets.agent.get(scope.agent.id);
      const run = await store.runs.create({
        agent_id: scope.agent.id,
        evaluation_id: evaluationId,
        dimensions: config.dimensions,
        window_start: config.window_start,
        window_end: config.window_end,
        sample_size: scope.sampled.length,
        judge: runJudge,
        propositions_hash: contentHash(
          agentSets ? Object.fromEntries([...agentSets].map(([d, s]) => [d, s.hash])) : {},
        ),
        persona_hash: personaHash(scope.agent.persona),
      });
      runIds.set(scope.agent.id, run.id);
      await store.runs.start(run.id);
    }
  }

  // Group commit: each verdict is durable within one insert, so a kill loses at most the calls in flight.
  // A new evaluation's keys are all new: its batches skip the conflict check (a resume's do not).
  const writer = store.scores.writer({ flushIntervalMs: 0, newKeys: !input.resume });
  const toRow = (v: ScoredVerdict) =>
    scoreFromVerdict(v.verdict, {
      evaluation_id: evaluationId,
      evaluation_run_id: v.meta.agentId ? (runIds.get(v.meta.agentId) ?? null) : null,
      weight: v.meta.proposition.weight,
      inverted: v.meta.proposition.inverted,
      hard: v.meta.set.hard,
      context_snippet: v.meta.snippet,
    });
  const skip = new Set(reused.map((v) => verdictKeyString(v.verdict.key)));
  let usage: TokenUsage = { ...ZERO_USAGE };
  let calls = 0;
  let requests = 0;
  let fresh: ScoredVerdict[] = [];
  // Started once the evaluation and its runs exist, so that their rows are not queued behind the lookups.
  const prefetched = input.cache?.prefetch?.(pendingCalls(plan, skip).map((c) => c.request));
  // Awaited after the run: until then a failed lookup only means judge() looks its requests up itself.
  prefetched?.catch(() => undefined);
  try {
    const result = await executePlan(plan, {
      judge,
      concurrency: input.concurrency,
      skip,
      signal: input.signal,
      // Answers that cost a model call are committed before the worker moves on: a kill then loses at
      // most the calls in flight. Cached and trivial answers need no such wait.
      onVerdicts: (vs, { calls }) => writer.write(vs.map(toRow), { durable: calls > 0 }),
      onProgress: (done, total) => input.progress?.update(done, total),
    });
    await writer.close();
    await prefetched;
    usage = result.usage;
    calls = result.calls;
    requests = result.requests;
    fresh = result.verdicts;
  } catch (error) {
    input.progress?.done();
    await writer.close().catch(() => {});
    const message = DramaturgError.isInstance(error)
      ? error.message
      : String((error as Error)?.message ?? error);
    for (const id of runIds.values()) await store.runs.fail(id, message).catch(() => {});
    await store.evaluations.fail(evaluationId, message).catch(() => {});
    throw error;
  }
  input.progress?.done();

  const all = [...reused, ...fresh];
  const scores: PersonaScores = aggregatePersonaScores(plan, all);
  const perAgent = usageByAgent(fresh);
  const totalAgentVerdicts = [...perAgent.values()].reduce((a, b) => a + b, 0) || 1;
  const runs: EvalResult["runs"] = [];
  for (const agent of scores.agents) {
    const runId = runIds.get(agent.agent_id);
    if (!runId) throw new InputError(`the stored evaluation has no run for agent "${agent.agent_id}"`);
    // Token usage is spread over agents by their share of the verdicts judged in this invocation.
    const share = (perAgent.get(agent.agent_id) ?? 0) / totalAgentVerdicts;
    const agentUsage = {
      input_tokens: Math.round(usage.input_tokens * share),
      output_tokens: Math.round(usage.output_tokens * share),
    };
    const dimension_scores = Object.fromEntries(
      Object.entries(agent.dimensions).map(([d, r]) => [
        d,
        { score: r!.score, judged: r!.verdicts, errored: r!.errored },
      ]),
    );
    await store.runs.complete(runId, {
      overall_score: agent.overall_score,
      dimension_scores,
      errored: agent.errored,
      token_usage: agentUsage,
    });
    if (input.baseline) await store.runs.markBaseline(runId);
    runs.push({ ...agent, run_id: runId, status: "completed", token_usage: agentUsage });
  }
  const counters = input.cache?.counters;
  const cache = counters
    ? {
        hits: counters.hits,
        misses: counters.misses,
        saved_calls: counters.saved_calls,
        saved_tokens: counters.saved_tokens,
      }
    : undefined;
  await store.evaluations.complete(evaluationId, {
    errored: scores.errored,
    token_usage: usage,
    ...(cache ? { cache: { hits: cache.hits, misses: cache.misses, saved_usage: cache.saved_tokens } } : {}),
  });

  if (input.record) {
    const fixtures = verdictsToFixtures(
      all.map((v) => v.verdict),
      {
        note: `Recorded by dramaturg from a live run of ${descriptor.provider}:${descriptor.model} on ${new Date().toISOString()}.`,
        judge: descriptor,
      },
    );
    writeFileSync(input.record, `${JSON.stringify(fixtures, null, 2)}\n`);
  }

  return {
    format: EVAL_RESULT_FORMAT,
    evaluation_id: evaluationId,
    status: "completed",
    source: config.source.split(",").map(shownPath).join(","),
    judge: {
      provider: descriptor.provider,
      model: descriptor.model,
      temperature: descriptor.temperature,
      prompt_version: descriptor.prompt_version,
      mode: config.mode,
      trials: config.trials,
    },
    dimensions: config.dimensions,
    runs,
    environments: scores.environments,
    totals: {
      verdicts: scores.verdicts,
      errored: scores.errored,
      requests,
      calls,
      token_usage: usage,
      ...(cache ? { cache } : {}),
      ...(input.resume ? { resumed: { reused_verdicts: reused.length } } : {}),
    },
    warnings: input.propositions.warnings,
  };
}
