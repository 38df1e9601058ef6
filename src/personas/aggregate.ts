// Scores from verdicts: per verdict (inverted, then hard), per proposition (mean of its verdicts), per
// dimension (weight-normalised mean of its propositions), per agent (mean of its 0–9 agent dimensions).
// Incremental: a PersonaAggregator takes verdicts one by one into running sums and counts and keeps a few
// reasonings per proposition, never the verdicts, so a run's memory does not grow with its size. The same
// verdicts in any order give the same bits, whether they came live, at any concurrency, from fixtures, a
// resume or a reuse: scores are counted by value (ScoreCounts), every choice among verdicts (kept
// reasonings, a trial's count) is made by a canonical order, and sums over propositions, dimensions and
// agents follow the plan's order, never the order of arrival.
import {
  AGENT_DIMENSIONS,
  compareCodeUnits,
  mean,
  type PersonaDimension,
  type Proposition,
  type PropositionSet,
  renderTemplate,
  ScoreCounts,
  verdictKeyString,
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
  /**
   * The judge's reasoning for the lowest scores: at most {@link REASONINGS_KEPT} distinct texts, lowest
   * score first (ties by text). Every verdict's reasoning is in the store.
   */
  reasoning: string[];
  /** Verdicts that gave a reasoning (the texts above are the lowest-scoring few of them). */
  reasoning_total: number;
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
  /** The ideas of the first trial counted. */
  ideas: string[];
  /** Every count's reasoning, by trial. */
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

/** Reasonings a proposition's result keeps: the distinct ones of its lowest scores. */
export const REASONINGS_KEPT = 5;

/** Running figures of one proposition on one target group (a dimension of an agent, or of a channel). */
interface Tally {
  proposition: Proposition;
  /** The scores (after inversion, before hard), overall and per trial (index trial - 1). */
  scores: ScoreCounts;
  trialScores: ScoreCounts[];
  errored: number;
  /** The lowest-scoring distinct reasonings, lowest first, at most REASONINGS_KEPT. */
  lowest: { score: number; text: string }[];
  reasoningTotal: number;
  /**
   * Counts (ideas quantity): one verdict per trial and channel, so few; kept to be read in the order of
   * their keys (trial first), whatever the order they came in.
   */
  counts: Counted[];
}

/** A verdict with a count (ideas quantity), and where it sorts. */
interface Counted {
  trial: number;
  key: string;
  count: number;
  ideas: readonly string[];
  reasoning: string;
}

interface Bucket {
  set: PropositionSet;
  byProposition: Map<string, Tally>;
}

function bucketKey(meta: ItemMeta): string {
  return `${meta.dimension}\u0000${meta.agentId ?? ""}\u0000${meta.channel ?? ""}`;
}

/** Lowest score first, ties by text: an order that does not depend on which verdict came first. */
function lowerReasoning(a: { score: number; text: string }, b: { score: number; text: string }): number {
  return a.score - b.score || compareCodeUnits(a.text, b.text);
}

/** Keeps `text` among the lowest-scoring distinct reasonings (an insertion into a short sorted list). */
function keepLowest(lowest: { score: number; text: string }[], score: number, text: string): void {
  const entry = { score, text };
  const seen = lowest.findIndex((r) => r.text === text);
  if (seen >= 0) {
    if (lowest[seen]!.score <= score) return;
    lowest.splice(seen, 1);
  } else if (lowest.length >= REASONINGS_KEPT && lowerReasoning(lowest.at(-1)!, entry) <= 0) return;
  let at = lowest.length;
  while (at > 0 && lowerReasoning(lowest[at - 1]!, entry) > 0) at--;
  lowest.splice(at, 0, entry);
  if (lowest.length > REASONINGS_KEPT) lowest.pop();
}

/** Trial first, then verdict key. */
function compareCounted(a: Counted, b: Counted): number {
  return a.trial - b.trial || compareCodeUnits(a.key, b.key);
}

/**
 * Scores of a persona evaluation, built up verdict by verdict. It knows every planned proposition from the
 * plan (so one never judged still shows, with no score), then takes each verdict once with `add`.
 */
export class PersonaAggregator {
  private readonly buckets = new Map<string, Bucket>();
  private readonly trials: number;

  constructor(private readonly plan: EvaluationPlan) {
    this.trials = plan.trials;
    // Propositions in the order planned: those of the calls first, then those given trivially.
    for (const call of plan.calls()) for (const meta of call.meta) this.tally(meta);
    for (const t of plan.trivial()) this.tally(t.meta);
  }

  private tally(meta: ItemMeta): { bucket: Bucket; tally: Tally } {
    const key = bucketKey(meta);
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = { set: meta.set, byProposition: new Map() }));
    let tally = bucket.byProposition.get(meta.proposition.id);
    if (!tally)
      bucket.byProposition.set(
        meta.proposition.id,
        (tally = {
          proposition: meta.proposition,
          scores: new ScoreCounts(),
          trialScores: Array.from({ length: this.trials }, () => new ScoreCounts()),
          errored: 0,
          lowest: [],
          reasoningTotal: 0,
          counts: [],
        }),
      );
    return { bucket, tally };
  }

  /** Takes one verdict into the running figures. */
  add({ verdict, meta }: ScoredVerdict): void {
    const { bucket, tally } = this.tally(meta);
    const trial = verdict.key.trial - 1;
    if (!verdict.ok) {
      tally.errored++;
      return;
    }
    if (verdict.score !== undefined) {
      // Counted inverted but before the hard penalty, which the mean applies exactly (see ScoreCounts).
      const inverted = verdictScore(verdict.score, { inverted: meta.proposition.inverted });
      tally.scores.add(inverted);
      if (trial >= 0 && trial < this.trials) tally.trialScores[trial]!.add(inverted);
      if (verdict.reasoning) {
        tally.reasoningTotal++;
        const score = verdictScore(verdict.score, {
          inverted: meta.proposition.inverted,
          hard: bucket.set.hard,
        });
        keepLowest(tally.lowest, score, verdict.reasoning);
      }
    }
    if (verdict.count !== undefined)
      tally.counts.push({
        trial: verdict.key.trial,
        key: verdictKeyString(verdict.key),
        count: verdict.count,
        ideas: verdict.ideas ?? [],
        reasoning: verdict.reasoning,
      });
  }

  /** The scores of the verdicts taken so far. */
  scores(): PersonaScores {
    const { plan } = this;
    const agents: AgentResult[] = plan.agents.map((scope) => {
      const dimensions: AgentResult["dimensions"] = {};
      for (const dim of AGENT_DIMENSIONS) {
        const bucket = this.buckets.get(`${dim}\u0000${scope.agent.id}\u0000`);
        if (bucket)
          dimensions[dim] = dimensionResult(
            bucket,
            this.trials,
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
      const conv = this.buckets.get(`convergence\u0000\u0000${channel}`);
      if (conv)
        result.dimensions.convergence = dimensionResult(
          conv,
          this.trials,
          { channel_name: channel },
          plan.evidence.vocabulary.get(channel),
        );
      const ideas = this.buckets.get(`ideas_quantity\u0000\u0000${channel}`);
      if (ideas) result.dimensions.ideas_quantity = ideasResult(ideas, this.trials);
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
  for (const tally of bucket.byProposition.values()) {
    const { proposition } = tally;
    verdictCount += tally.scores.size;
    errored += tally.errored;
    const result: PropositionResult = {
      id: proposition.id,
      claim: proposition.claim,
      weight: proposition.weight,
      inverted: proposition.inverted,
      hard: bucket.set.hard,
      score: tally.scores.mean({ hard: bucket.set.hard }),
      verdicts: tally.scores.size,
      errored: tally.errored,
      reasoning: tally.lowest.map((r) => r.text),
      reasoning_total: tally.reasoningTotal,
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
    const items = [...bucket.byProposition.values()].map((tally) => ({
      weight: tally.proposition.weight,
      score: tally.trialScores[trial - 1]!.mean({ hard: bucket.set.hard }),
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
  const tally = [...bucket.byProposition.values()][0]!;
  const counts = [...tally.counts].sort(compareCounted);
  const perTrial = [];
  for (let trial = 1; trial <= trials; trial++)
    perTrial.push({ trial, count: counts.find((c) => c.trial === trial)?.count ?? null });
  const trialCounts = perTrial
    .map((t) => t.count)
    .filter((c): c is number => c !== null)
    .sort((a, b) => a - b);
  const median = trialCounts.length ? trialCounts[Math.floor((trialCounts.length - 1) / 2)]! : null;
  return {
    count: median,
    ideas: counts.length ? [...counts[0]!.ideas] : [],
    reasoning: counts.flatMap((c) => (c.reasoning ? [c.reasoning] : [])),
    verdicts: counts.length,
    errored: tally.errored,
    trials: perTrial,
  };
}

/** The scores of a whole list of verdicts at once (tests, and callers holding their verdicts anyway). */
export function aggregatePersonaScores(
  plan: EvaluationPlan,
  verdicts: Iterable<ScoredVerdict>,
): PersonaScores {
  const aggregator = new PersonaAggregator(plan);
  for (const v of verdicts) aggregator.add(v);
  return aggregator.scores();
}

export type { PersonaDimension };
