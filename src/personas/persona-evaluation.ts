// The persona evaluation as a kind of the run engine: its plan, its runs (one per agent), how a verdict
// is stored, and how the verdicts aggregate into the `dramaturg.eval-result/v1` document.
import { z } from "zod";
import {
  type Agent,
  contentHash,
  ErrorReasonTally,
  InputError,
  PERSONA_DIMENSIONS,
  type PersonaDimension,
  type PropositionSet,
  shownPath,
  type TokenUsage,
  TRANSCRIPT_FORMAT,
  type Transcript,
  ZERO_USAGE,
} from "../core/index.ts";
import {
  type EngineTotals,
  type EvaluationOfKind,
  type FinishContext,
  personaHash,
  type RerunCacheStats,
  type RunJudge,
  type Store,
  scoreFromVerdict,
} from "../engine/index.ts";
import { type JudgeDescriptor, VERDICT_CACHE_KEY_VERSION } from "../judge/index.ts";
import { type LoadedPropositions, propositionSetFor } from "../propositions/index.ts";
import { PersonaAggregator } from "./aggregate.ts";
import { planPersonaEvaluation } from "./plan.ts";
import { EVAL_RESULT_FORMAT, type EvalResult } from "./result.ts";
import type { EvaluationPlan, ItemMeta, ScoredVerdict } from "./types.ts";

/**
 * Changes whenever what a persona evaluation's verdicts and result depend on changes in a way the other
 * parts of its fingerprint do not show (planning, scoring, aggregation), so older evaluations are not reused.
 */
const FINGERPRINT_VERSION = "dramaturg.persona-fingerprint/v2";

/** Everything needed to plan the same evaluation again; stored with it and read back by a resume. */
export const PersonaRunConfigSchema = z.object({
  /** What was evaluated, as shown: file paths joined with ",", `store`, or a caller's label. */
  source: z.string(),
  /** The propositions folder, when one was given. */
  propositions: z.string().optional(),
  /** The judge spec, when the judge was given as one. */
  judge: z.string(),
  judge_base_url: z.string().optional(),
  mode: z.enum(["individual", "batch"]),
  trials: z.number().int().min(1),
  dimensions: z.array(z.enum(PERSONA_DIMENSIONS)).min(1),
  agents: z.array(z.string()).optional(),
  sample: z.object({ size: z.number().int(), seed: z.number().int() }).optional(),
  /** Only these of the agents' messages are judged (ids, sorted); the others are context. */
  messages: z.array(z.string()).optional(),
  window_start: z.string().optional(),
  window_end: z.string().optional(),
  transcript_hash: z.string(),
});
export type PersonaRunConfig = z.infer<typeof PersonaRunConfigSchema>;

/** The plan of a persona evaluation from its transcript, configuration and propositions. */
export function planFor(input: {
  transcript: Transcript;
  config: PersonaRunConfig;
  propositions: LoadedPropositions;
}): EvaluationPlan {
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
    messages: config.messages,
    mode: config.mode,
    trials: config.trials,
  });
}

/** The input a persona evaluation keeps: the transcript and every resolved proposition set. */
const StoredInputSchema = z.object({
  transcript: z.object({ format: z.literal(TRANSCRIPT_FORMAT) }).passthrough(),
  propositions: z.object({
    agent: z.record(z.string(), z.record(z.string(), z.unknown())),
    environment: z.record(z.string(), z.unknown()),
    warnings: z.array(z.string()),
    hash: z.string(),
  }),
});

export interface StoredPersonaInput {
  transcript: Transcript;
  propositions: LoadedPropositions;
}

/** The JSON kept with the evaluation. Preconditions (library functions) cannot be kept; a resume passes them again. */
function storedInput(transcript: Transcript, propositions: LoadedPropositions) {
  return {
    transcript,
    propositions: {
      agent: Object.fromEntries(
        [...propositions.sets.agent].map(([id, sets]) => [id, Object.fromEntries(sets)]),
      ),
      environment: Object.fromEntries(propositions.sets.environment),
      warnings: propositions.warnings,
      hash: propositions.hash,
    },
  };
}

/** Reads back what {@link storedInput} kept, or undefined when the evaluation kept none (an older version). */
export function parseStoredPersonaInput(value: unknown): StoredPersonaInput | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = StoredInputSchema.safeParse(value);
  if (!parsed.success)
    throw new InputError("the evaluation's stored input is not readable (stored by another version?)");
  const p = parsed.data.propositions;
  return {
    transcript: parsed.data.transcript as unknown as Transcript,
    propositions: {
      sets: {
        agent: new Map(
          Object.entries(p.agent).map(([id, sets]) => [
            id,
            new Map(Object.entries(sets) as [PersonaDimension, PropositionSet][]),
          ]),
        ),
        environment: new Map(Object.entries(p.environment) as [PersonaDimension, PropositionSet][]),
      },
      warnings: p.warnings,
      hash: p.hash,
    },
  };
}

export interface PersonaEvaluationInput {
  transcript: Transcript;
  config: PersonaRunConfig;
  propositions: LoadedPropositions;
  /** Who judges: stored with every run. */
  judge: JudgeDescriptor;
  /** The plan, when the caller made it already. */
  plan?: EvaluationPlan;
  /** Mark the runs as baselines once completed. */
  baseline?: boolean;
}

/** Which proposition sets (files or `builtin:<dimension>`) were applied, per agent and per channel dimension. */
export function propositionSources(propositions: LoadedPropositions): EvalResult["propositions"] {
  const agents: Record<string, Record<string, string[]>> = {};
  for (const [id, sets] of propositions.sets.agent)
    agents[id] = Object.fromEntries([...sets].map(([d, s]) => [d, s.sources]));
  return {
    agents,
    environment: Object.fromEntries([...propositions.sets.environment].map(([d, s]) => [d, s.sources])),
  };
}

/** A persona evaluation for {@link runEvaluation}. */
export function personaEvaluation(input: PersonaEvaluationInput): EvaluationOfKind<ItemMeta, EvalResult> {
  const { transcript, config, propositions, judge: descriptor } = input;
  const plan = input.plan ?? planFor(input);
  const runJudge: RunJudge = {
    provider: descriptor.provider,
    model: descriptor.model,
    temperature: descriptor.temperature,
    mode: config.mode,
    double_check: plan.doubleChecked(),
    prompt_version: descriptor.prompt_version,
  };
  const runIds = new Map<string, string>();
  // Built on the first verdict: a plan pass that a run which judges nothing need not make.
  let tally: VerdictTally | undefined;
  const tallied = () => (tally ??= new VerdictTally(plan));

  return {
    kind: "persona",
    plan,
    add(verdicts, { fresh }) {
      const t = tallied();
      for (const v of verdicts) t.add(v, fresh);
    },
    fingerprint: () =>
      contentHash({
        version: FINGERPRINT_VERSION,
        result: EVAL_RESULT_FORMAT,
        cache_keys: VERDICT_CACHE_KEY_VERSION,
        kind: "persona",
        transcript: config.transcript_hash,
        propositions: propositions.hash,
        dimensions: config.dimensions,
        agents: config.agents ?? null,
        sample: config.sample ?? null,
        window: [config.window_start ?? null, config.window_end ?? null],
        mode: config.mode,
        trials: config.trials,
        judge: {
          provider: descriptor.provider,
          model: descriptor.model,
          base_url: descriptor.base_url ?? null,
          prompt_version: descriptor.prompt_version,
          temperature: descriptor.temperature ?? null,
        },
        double_check: runJudge.double_check,
      }),
    reuse: {
      totals: reusedTotals,
      finish: ({ store, evaluationId, totals, stored }) =>
        finishReusedPersonaEvaluation(store, evaluationId, totals, stored as EvalResult, {
          config,
          propositions,
          descriptor,
          runIds,
          baseline: input.baseline,
        }),
    },
    describe: () => ({
      source: config.source,
      config: { ...config, judge_descriptor: descriptor },
      propositions_hash: propositions.hash,
      input: storedInput(transcript, propositions),
    }),
    async begin(store, evaluationId) {
      await store.agents.upsert(plan.transcript.agents);
      for (const scope of plan.agents) {
        const agentSets = propositions.sets.agent.get(scope.agent.id);
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
    },
    async reopen(store, evaluationId) {
      for (const r of await store.runs.list({ evaluation: evaluationId })) runIds.set(r.agent_id, r.id);
      for (const id of runIds.values()) await store.runs.start(id);
    },
    scoreRow: (v, evaluationId) =>
      scoreFromVerdict(v.verdict, {
        evaluation_id: evaluationId,
        evaluation_run_id: v.meta.agentId ? (runIds.get(v.meta.agentId) ?? null) : null,
        weight: v.meta.proposition.weight,
        inverted: v.meta.proposition.inverted,
        hard: v.meta.set.hard,
        context_snippet: v.meta.snippet,
      }),
    finish: (context) =>
      finishPersonaEvaluation(context, {
        tally: tallied(),
        config,
        propositions,
        descriptor,
        runIds,
        baseline: input.baseline,
      }),
    async fail(store, message) {
      for (const id of runIds.values()) await store.runs.fail(id, message).catch(() => {});
    },
    async interrupt(store) {
      for (const id of runIds.values()) await store.runs.interrupt(id).catch(() => {});
    },
  };
}

/** What finishing a persona evaluation's runs and result needs, judged or reused. */
interface PersonaFinishing {
  config: PersonaRunConfig;
  propositions: LoadedPropositions;
  descriptor: JudgeDescriptor;
  runIds: Map<string, string>;
  baseline?: boolean;
}

async function finishPersonaEvaluation(
  { store, evaluationId, totals }: FinishContext,
  { tally, config, propositions, descriptor, runIds, baseline }: PersonaFinishing & { tally: VerdictTally },
): Promise<{ result: EvalResult; errored: number }> {
  const scores = tally.aggregator.scores();
  const perAgent = tally.freshByAgent;
  const totalAgentVerdicts = [...perAgent.values()].reduce((a, b) => a + b, 0) || 1;
  const usage = totals.token_usage;
  const done = await completeRuns(
    store,
    scores.agents.map((agent) => {
      // Token usage is spread over agents by their share of the verdicts judged in this invocation.
      const share = (perAgent.get(agent.agent_id) ?? 0) / totalAgentVerdicts;
      return {
        agent,
        token_usage: {
          input_tokens: Math.round(usage.input_tokens * share),
          output_tokens: Math.round(usage.output_tokens * share),
        },
      };
    }),
    { runIds, baseline },
  );
  const result = personaResult(evaluationId, {
    config,
    propositions,
    descriptor,
    runs: done,
    environments: scores.environments,
    totals: {
      verdicts: scores.verdicts,
      errored: scores.errored,
      requests: totals.requests,
      calls: totals.calls,
      token_usage: usage,
      ...(totals.cache ? { cache: totals.cache } : {}),
      ...(totals.resumed ? { resumed: totals.resumed } : {}),
      // Why verdicts errored, grouped, with an example each (reused ones included: they are part of the result).
      ...(scores.errored > 0 ? { error_reasons: tally.errors.reasons() } : {}),
    },
  });
  return { result, errored: scores.errored };
}

/** Completes each agent's run with its scores and usage; returns the result's runs. */
async function completeRuns(
  store: Store,
  agents: readonly {
    agent: Omit<EvalResult["runs"][number], "run_id" | "status" | "token_usage">;
    token_usage: TokenUsage;
  }[],
  { runIds, baseline }: { runIds: Map<string, string>; baseline?: boolean },
): Promise<EvalResult["runs"]> {
  const runs: EvalResult["runs"] = [];
  for (const { agent, token_usage: agentUsage } of agents) {
    const runId = runIds.get(agent.agent_id);
    if (!runId) throw new InputError(`the stored evaluation has no run for agent "${agent.agent_id}"`);
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
    if (baseline) await store.runs.markBaseline(runId);
    runs.push({ ...agent, run_id: runId, status: "completed", token_usage: agentUsage });
  }
  return runs;
}

/** The result document from its parts, in the one key order every path writes. */
function personaResult(
  evaluationId: string,
  {
    config,
    propositions,
    descriptor,
    runs,
    environments,
    totals,
  }: {
    config: PersonaRunConfig;
    propositions: LoadedPropositions;
    descriptor: JudgeDescriptor;
    runs: EvalResult["runs"];
    environments: EvalResult["environments"];
    totals: EvalResult["totals"];
  },
): EvalResult {
  return {
    format: EVAL_RESULT_FORMAT,
    evaluation_id: evaluationId,
    status: "completed",
    source: config.source
      .split(",")
      .map((s) => (s === "store" || s === "transcript" ? s : shownPath(s)))
      .join(","),
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
    environments,
    totals,
    propositions: propositionSources(propositions),
    warnings: propositions.warnings,
  };
}

/**
 * The totals of a stored result a rerun may reuse whole. A warm rerun's (every verdict served by the cache:
 * hits, no miss, no model call, no token spent, nothing resumed, nothing errored) are exactly the totals a
 * rerun of the same evaluation reports, so they are taken as they are. A result that judged is reused with
 * `rerun`, the cache figures its rerun would report (kept only when the cache will serve it whole), and
 * no model call or token spent, as that rerun would. Any other result is not reused.
 */
function reusedTotals(stored: unknown, rerun?: RerunCacheStats): EngineTotals | undefined {
  const r = stored as Partial<EvalResult> | undefined;
  const t = r?.totals;
  if (r?.format !== EVAL_RESULT_FORMAT || r.status !== "completed" || !t?.cache) return undefined;
  if (t.errored !== 0 || t.resumed) return undefined;
  if (rerun)
    return rerun.hits > 0
      ? {
          requests: 0,
          calls: 0,
          token_usage: { ...ZERO_USAGE },
          cache: {
            hits: rerun.hits,
            misses: 0,
            served_requests: rerun.requests,
            saved_calls: rerun.saved_calls,
            saved_tokens: rerun.saved_usage,
          },
        }
      : undefined;
  if (t.cache.misses !== 0 || t.cache.hits <= 0 || t.calls !== 0) return undefined;
  if (t.token_usage.input_tokens !== 0 || t.token_usage.output_tokens !== 0) return undefined;
  const { reused_from: _, ...cache } = t.cache as EngineTotals["cache"] & {};
  // Sent nothing; a result stored before requests were counted as sent counted the cache's answers in them.
  return {
    requests: 0,
    calls: t.calls,
    token_usage: t.token_usage,
    cache: { ...cache, served_requests: cache.served_requests ?? t.requests },
  };
}

/** A reused evaluation's runs and result: the stored result's figures, this evaluation's ids, source and propositions. */
async function finishReusedPersonaEvaluation(
  store: Store,
  evaluationId: string,
  totals: EngineTotals,
  stored: EvalResult,
  { config, propositions, descriptor, runIds, baseline }: PersonaFinishing,
): Promise<{ result: EvalResult; errored: number }> {
  // Nothing is judged: each run spent no token, as in a warm rerun (whatever the stored runs spent).
  const runs = await completeRuns(
    store,
    stored.runs.map(({ run_id: _, status: __, token_usage: ___, ...agent }) => ({
      agent,
      token_usage: { ...ZERO_USAGE },
    })),
    { runIds, baseline },
  );
  const result = personaResult(evaluationId, {
    config,
    propositions,
    descriptor,
    runs,
    environments: stored.environments,
    totals: {
      verdicts: stored.totals.verdicts,
      errored: stored.totals.errored,
      requests: totals.requests,
      calls: totals.calls,
      token_usage: totals.token_usage,
      ...(totals.cache ? { cache: totals.cache } : {}),
    },
  });
  return { result, errored: stored.totals.errored };
}

/** What a persona evaluation keeps of its verdicts: the scores' running figures, and for the totals, fresh verdicts per agent and why verdicts errored. */
class VerdictTally {
  readonly aggregator: PersonaAggregator;
  /** Verdicts judged by this invocation per agent (token usage is spread by them). */
  readonly freshByAgent = new Map<string, number>();
  /** Reused ones included: they are part of the result. */
  readonly errors = new ErrorReasonTally();

  constructor(plan: EvaluationPlan) {
    this.aggregator = new PersonaAggregator(plan);
  }

  add(v: ScoredVerdict, fresh: boolean): void {
    this.aggregator.add(v);
    this.errors.add(v.verdict);
    if (fresh && v.meta.agentId)
      this.freshByAgent.set(v.meta.agentId, (this.freshByAgent.get(v.meta.agentId) ?? 0) + 1);
  }
}

/** A transcript built from the store: every stored agent and the messages within the window. */
export async function transcriptFromStore(
  store: Store,
  window: { from?: string; to?: string },
): Promise<Transcript> {
  const agents = await store.agents.list();
  if (agents.length === 0)
    throw new InputError("the store has no agents; run `dramaturg import TRANSCRIPT` first", {
      place: store.location,
    });
  return transcriptOf(agents, await store.messages.query({ from: window.from, to: window.to }));
}

/** A transcript of stored agents and stored messages, as `import` wrote them (a null recipient left out). */
export function transcriptOf(
  agents: readonly Pick<Agent, "id" | "name" | "persona">[],
  rows: readonly {
    id: string;
    sender: string;
    channel: string;
    recipient?: string | null;
    text: string;
    at: string;
    source_ids?: Record<string, string>;
  }[],
): Transcript {
  return {
    format: TRANSCRIPT_FORMAT,
    agents: agents.map((a) => ({ id: a.id, name: a.name, persona: a.persona })),
    messages: rows.map((r) => ({
      id: r.id,
      sender: r.sender,
      channel: r.channel,
      ...(r.recipient ? { recipient: r.recipient } : {}),
      text: r.text,
      at: r.at,
      ...(r.source_ids ? { source_ids: r.source_ids } : {}),
    })),
  };
}
