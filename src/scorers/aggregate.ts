// Scores from verdicts: per verdict (inverted, then hard), per proposition (mean of its verdicts), per
// dimension (weight-normalised mean of its propositions), per agent (mean of its 0–9 agent dimensions).
// Pure: the same verdicts always give the same scores, whether they came live, from fixtures or the store.
import {
  AGENT_DIMENSIONS,
  mean,
  type PersonaDimension,
  type Proposition,
  type PropositionSet,
  renderTemplate,
  verdictScore,
  weightedScore,
} from "../core/index.ts";
import type { EvaluationPlan, ItemMeta, ScoredVerdict } from "./types.ts";

export interface PropositionResult {
  id: string;
  claim: string;
  weight: number;
  inverted: boolean;
  hard: boolean;
  /** Mean of the verdicts' scores after inversion and hard penalty; null when none was judged. */
  score: number | null;
  /** Verdicts that gave a score (trivially true ones included). */
  verdicts: number;
  errored: number;
  reasoning: string[];
  recommendations_for_improvement?: string;
}

export interface DimensionResult {
  score: number | null;
  verdicts: number;
  errored: number;
  /** Score of each trial on its own, to show the judge's spread. */
  trials: { trial: number; score: number | null }[];
  propositions_hash: string;
  propositions: PropositionResult[];
  /** Algorithmic statistics the judge was given as evidence. */
  evidence?: string;
}

export interface IdeasResult {
  /** Distinct ideas counted (median over trials, as an integer); null when every verdict errored. */
  count: number | null;
  ideas: string[];
  reasoning: string[];
  verdicts: number;
  errored: number;
  trials: { trial: number; count: number | null }[];
}

export interface AgentResult {
  agent_id: string;
  name: string;
  sample_size: number;
  overall_score: number | null;
  verdicts: number;
  errored: number;
  dimensions: Partial<Record<"adherence" | "consistency" | "fluency", DimensionResult>>;
}

export interface EnvironmentResult {
  channel: string;
  dimensions: { convergence?: DimensionResult; ideas_quantity?: IdeasResult };
}

export interface PersonaScores {
  agents: AgentResult[];
  environments: EnvironmentResult[];
  verdicts: number;
  errored: number;
}

interface Bucket {
  set: PropositionSet;
  byProposition: Map<string, { proposition: Proposition; verdicts: ScoredVerdict[] }>;
}

function bucketKey(meta: ItemMeta): string {
  return `${meta.dimension}\u0000${meta.agentId ?? ""}\u0000${meta.channel ?? ""}`;
}

/** Groups verdicts by (dimension, agent or channel), keeping every planned proposition, judged or not. */
function buckets(plan: EvaluationPlan, verdicts: readonly ScoredVerdict[]): Map<string, Bucket> {
  const out = new Map<string, Bucket>();
  const ensure = (meta: ItemMeta) => {
    const key = bucketKey(meta);
    let bucket = out.get(key);
    if (!bucket) out.set(key, (bucket = { set: meta.set, byProposition: new Map() }));
    let entry = bucket.byProposition.get(meta.proposition.id);
    if (!entry)
      bucket.byProposition.set(
        meta.proposition.id,
        (entry = { proposition: meta.proposition, verdicts: [] }),
      );
    return entry;
  };
  for (const call of plan.calls) for (const meta of call.meta) ensure(meta);
  for (const t of plan.trivial) ensure(t.meta);
  for (const v of verdicts) ensure(v.meta).verdicts.push(v);
  return out;
}

function scoreOf(v: ScoredVerdict, set: PropositionSet): number | null {
  if (!v.verdict.ok || v.verdict.score === undefined) return null;
  return verdictScore(v.verdict.score, { inverted: v.meta.proposition.inverted, hard: set.hard });
}

function dimensionResult(
  bucket: Bucket,
  trials: number,
  variables: Readonly<Record<string, string>>,
  evidence?: string,
): DimensionResult {
  const propositions: PropositionResult[] = [];
  let verdictCount = 0;
  let errored = 0;
  for (const { proposition, verdicts } of bucket.byProposition.values()) {
    const scores: number[] = [];
    const reasoning: string[] = [];
    let err = 0;
    for (const v of verdicts) {
      const s = scoreOf(v, bucket.set);
      if (s === null) {
        err += v.verdict.ok ? 0 : 1;
        continue;
      }
      scores.push(s);
      if (v.verdict.ok && v.verdict.reasoning) reasoning.push(v.verdict.reasoning);
    }
    verdictCount += scores.length;
    errored += err;
    const result: PropositionResult = {
      id: proposition.id,
      claim: proposition.claim,
      weight: proposition.weight,
      inverted: proposition.inverted,
      hard: bucket.set.hard,
      score: mean(scores),
      verdicts: scores.length,
      errored: err,
      reasoning,
    };
    if (proposition.recommendations_for_improvement)
      result.recommendations_for_improvement = renderTemplate(
        proposition.recommendations_for_improvement,
        variables,
      );
    propositions.push(result);
  }
  const trialScores = [];
  for (let trial = 1; trial <= trials; trial++) {
    const items = [...bucket.byProposition.values()].map(({ proposition, verdicts }) => ({
      weight: proposition.weight,
      score: mean(
        verdicts
          .filter((v) => v.verdict.key.trial === trial)
          .map((v) => scoreOf(v, bucket.set))
          .filter((s): s is number => s !== null),
      ),
    }));
    trialScores.push({ trial, score: weightedScore(items) });
  }
  const result: DimensionResult = {
    score: weightedScore(propositions.map((p) => ({ weight: p.weight, score: p.score }))),
    verdicts: verdictCount,
    errored,
    trials: trialScores,
    propositions_hash: bucket.set.hash,
    propositions,
  };
  if (evidence) result.evidence = evidence;
  return result;
}

function ideasResult(bucket: Bucket, trials: number): IdeasResult {
  // One ideas proposition is the norm; with several, the first one planned is the count.
  const entry = [...bucket.byProposition.values()][0]!;
  const ok = entry.verdicts.filter((v) => v.verdict.ok && v.verdict.count !== undefined);
  const perTrial = [];
  for (let trial = 1; trial <= trials; trial++) {
    const v = ok.find((x) => x.verdict.key.trial === trial);
    perTrial.push({ trial, count: v?.verdict.ok ? (v.verdict.count ?? null) : null });
  }
  const counts = perTrial
    .map((t) => t.count)
    .filter((c): c is number => c !== null)
    .sort((a, b) => a - b);
  const median = counts.length ? counts[Math.floor((counts.length - 1) / 2)]! : null;
  const first = ok[0]?.verdict;
  return {
    count: median,
    ideas: first?.ok ? (first.ideas ?? []) : [],
    reasoning: ok.map((v) => (v.verdict.ok ? v.verdict.reasoning : "")).filter(Boolean),
    verdicts: ok.length,
    errored: entry.verdicts.filter((v) => !v.verdict.ok).length,
    trials: perTrial,
  };
}

export function aggregatePersonaScores(
  plan: EvaluationPlan,
  verdicts: readonly ScoredVerdict[],
): PersonaScores {
  const all = buckets(plan, verdicts);
  const agents: AgentResult[] = plan.agents.map((scope) => {
    const dimensions: AgentResult["dimensions"] = {};
    for (const dim of AGENT_DIMENSIONS) {
      const bucket = all.get(`${dim}\u0000${scope.agent.id}\u0000`);
      if (bucket)
        dimensions[dim] = dimensionResult(
          bucket,
          plan.trials,
          { agent_name: scope.agent.name },
          dim === "fluency" ? plan.evidence.fluency.get(scope.agent.id) : undefined,
        );
    }
    const evaluated = Object.values(dimensions)
      .map((d) => d?.score)
      .filter((s): s is number => s !== null && s !== undefined);
    const dims = Object.values(dimensions);
    return {
      agent_id: scope.agent.id,
      name: scope.agent.name,
      sample_size: scope.sampled.length,
      overall_score: mean(evaluated),
      verdicts: dims.reduce((n, d) => n + (d?.verdicts ?? 0), 0),
      errored: dims.reduce((n, d) => n + (d?.errored ?? 0), 0),
      dimensions,
    };
  });
  const environments: EnvironmentResult[] = plan.channels.map((channel) => {
    const result: EnvironmentResult = { channel, dimensions: {} };
    const conv = all.get(`convergence\u0000\u0000${channel}`);
    if (conv)
      result.dimensions.convergence = dimensionResult(
        conv,
        plan.trials,
        { channel_name: channel },
        plan.evidence.vocabulary.get(channel),
      );
    const ideas = all.get(`ideas_quantity\u0000\u0000${channel}`);
    if (ideas) result.dimensions.ideas_quantity = ideasResult(ideas, plan.trials);
    return result;
  });
  let total = 0;
  let errored = 0;
  for (const a of agents) {
    total += a.verdicts;
    errored += a.errored;
  }
  for (const e of environments) {
    total += (e.dimensions.convergence?.verdicts ?? 0) + (e.dimensions.ideas_quantity?.verdicts ?? 0);
    errored += (e.dimensions.convergence?.errored ?? 0) + (e.dimensions.ideas_quantity?.errored ?? 0);
  }
  return { agents, environments, verdicts: total, errored };
}

export type { PersonaDimension };
