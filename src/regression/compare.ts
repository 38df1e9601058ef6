// The regression check: a measurement against its baselines, per dimension and per proposition. Pure.
// A changed persona, proposition set or judge makes a baseline stale: not comparable, so never a regression.
import { AGENT_DIMENSIONS, round } from "../core/index.ts";
import type { AgreementCheck } from "./agreement-check.ts";
import type { Baseline, BaselineFolder, ChannelBaseline, DimensionBaseline } from "./baseline.ts";
import type { MeasuredDimension, MeasuredJudge, Measurement } from "./measurement.ts";

export const CI_REPORT_FORMAT = "dramaturg.ci-report/v1";

/**
 * - `regression`: more than the threshold below the baseline (and, with trials, every trial is).
 * - `noise`: the mean fell more than the threshold, but some trial did not: within the judge's spread.
 * - `stale`: the baseline was made with another persona, proposition set or judge; not compared.
 * - `info`: reported only (ideas quantity, a count).
 * - `new`: measured now, no baseline. `not-evaluated`: in the baseline, not measured now.
 * - `no-score`: every verdict of the dimension errored now; it could not be compared.
 */
export type CheckStatus =
  | "ok"
  | "regression"
  | "noise"
  | "stale"
  | "info"
  | "new"
  | "not-evaluated"
  | "no-score";

export interface PropositionCheck {
  id: string;
  baseline: number | null;
  now: number | null;
  delta: number | null;
  /** Fell by more than the threshold. */
  fell: boolean;
  recommendations?: string;
}

export interface DimensionCheck {
  dimension: string;
  baseline: number | null;
  now: number | null;
  delta: number | null;
  /** Each trial's score now, and in the baseline. */
  trials: (number | null)[];
  baseline_trials: (number | null)[];
  status: CheckStatus;
  /** Why it is stale, new, noise…, in words. */
  reason?: string;
  propositions: PropositionCheck[];
}

export interface SubjectCheck {
  /** Agent id, or channel name for environments. */
  id: string;
  name: string;
  kind: "agent" | "channel";
  /** The baseline file compared against. */
  file: string;
  /** Reasons the whole baseline is stale (persona or judge changed). */
  stale: string[];
  dimensions: DimensionCheck[];
}

export interface CheckRule {
  /** A dimension more than this many points below its baseline is a regression. */
  threshold: number;
  /** Trials judged now; above 1 every trial must be below the line too. */
  trials: number;
}

export interface CiReport {
  format: typeof CI_REPORT_FORMAT;
  passed: boolean;
  threshold: number;
  trials: number;
  rule: string;
  judge: MeasuredJudge;
  evaluation_id: string;
  agents: SubjectCheck[];
  channels: SubjectCheck[];
  /** Things to know that are not per dimension (channels without baseline, agents skipped…). */
  notes: string[];
  counts: Record<"regressions" | "stale" | "noise" | "no_score" | "compared", number>;
  /** With a minimum agreement: how well the judge of each compared proposition is calibrated against people. */
  agreement?: AgreementCheck;
}

export function ruleText({ threshold, trials }: CheckRule): string {
  const base = `a regression is a 0–9 dimension more than ${threshold} below its baseline`;
  return trials > 1
    ? `${base}, and with ${trials} trials every trial's score must also be below baseline − ${threshold} (otherwise the drop is within the judge's noise)`
    : base;
}

/** The status of one score against its baseline: ok, regression or noise (the trials disagree). */
export function regressionStatus(
  baseline: number,
  now: number,
  trials: readonly (number | null)[],
  threshold: number,
): "ok" | "regression" | "noise" {
  // Rounded to the baseline file's precision, so a stored 7.536 and a fresh 7.5357 compare equal.
  const below = (s: number) => round(s - baseline, 3) < -threshold;
  if (!below(now)) return "ok";
  const scored = trials.filter((t): t is number => t !== null);
  if (scored.length <= 1 || scored.every(below)) return "regression";
  return "noise";
}

function sameJudge(a: MeasuredJudge, b: MeasuredJudge): boolean {
  return (
    a.provider === b.provider &&
    a.model === b.model &&
    a.mode === b.mode &&
    a.prompt_version === b.prompt_version &&
    (a.temperature ?? null) === (b.temperature ?? null)
  );
}

const judgeName = (j: MeasuredJudge) =>
  `${j.provider}:${j.model} (${j.mode}, prompt ${j.prompt_version}${j.temperature !== undefined ? `, t=${j.temperature}` : ""})`;

const delta = (a: number | null, b: number | null) => (a === null || b === null ? null : round(b - a, 3));

function compareDimension(
  dimension: string,
  base: DimensionBaseline | undefined,
  baseTrials: (number | null)[],
  now: MeasuredDimension | undefined,
  staleReasons: string[],
  rule: CheckRule,
): DimensionCheck {
  const nowScore = now?.score ?? null;
  const check: DimensionCheck = {
    dimension,
    baseline: base?.score ?? null,
    now: nowScore === null ? null : round(nowScore, 3),
    delta: delta(base?.score ?? null, nowScore === null ? null : round(nowScore, 3)),
    trials: now?.trials.map((t) => (t.score === null ? null : round(t.score, 3))) ?? [],
    baseline_trials: baseTrials,
    status: "ok",
    propositions: [],
  };
  if (!base) return { ...check, status: "new", reason: "no baseline for this dimension" };
  if (!now) return { ...check, status: "not-evaluated", reason: "not measured in this run" };
  const byId = new Map(now.propositions.map((p) => [p.id, p]));
  check.propositions = base.propositions.map((b) => {
    const n = byId.get(b.id);
    const nowP = n?.score === null || n?.score === undefined ? null : round(n.score, 3);
    const d = delta(b.score, nowP);
    return {
      id: b.id,
      baseline: b.score,
      now: nowP,
      delta: d,
      fell: d !== null && d < -rule.threshold,
      ...(b.recommendations ? { recommendations: b.recommendations } : {}),
    };
  });
  const reasons = [...staleReasons];
  if (base.propositions_hash !== now.propositions_hash)
    reasons.push(`its propositions changed (${base.propositions_hash} → ${now.propositions_hash})`);
  if (reasons.length) return { ...check, status: "stale", reason: reasons.join("; ") };
  if (base.score === null)
    return { ...check, status: "new", reason: "the baseline has no score; run `dramaturg baseline` again" };
  if (nowScore === null) return { ...check, status: "no-score", reason: "every verdict errored" };
  const status = regressionStatus(base.score, nowScore, check.trials, rule.threshold);
  if (status === "noise")
    return {
      ...check,
      status,
      reason: `the mean fell ${Math.abs(check.delta!).toFixed(2)}, but not every trial fell more than ${rule.threshold}`,
    };
  return { ...check, status };
}

function agentCheck(
  baseline: Baseline,
  file: string,
  m: Measurement,
  rule: CheckRule,
): SubjectCheck | undefined {
  const agent = m.agents.find((a) => a.agent_id === baseline.agent.id);
  if (!agent) return undefined;
  const stale: string[] = [];
  if (baseline.persona_hash !== agent.persona_hash)
    stale.push(`the persona changed (${baseline.persona_hash} → ${agent.persona_hash})`);
  if (!sameJudge(baseline.judge, m.judge))
    stale.push(`the judge changed (${judgeName(baseline.judge)} → ${judgeName(m.judge)})`);
  const dimensions: DimensionCheck[] = [];
  for (const d of AGENT_DIMENSIONS) {
    const base = baseline.dimensions[d];
    const now = agent.dimensions[d];
    if (!base && !now) continue;
    const baseTrials = baseline.trials.map((t) => t.scores[d] ?? null);
    dimensions.push(compareDimension(d, base, baseTrials, now, stale, rule));
  }
  return { id: agent.agent_id, name: agent.name, kind: "agent", file, stale, dimensions };
}

function channelCheck(
  channel: string,
  baseline: ChannelBaseline,
  file: string,
  m: Measurement,
  rule: CheckRule,
): SubjectCheck | undefined {
  const now = m.channels.find((c) => c.channel === channel);
  if (!now) return undefined;
  const stale: string[] = [];
  if (baseline.personas_hash !== now.personas_hash)
    stale.push(
      `a persona of its speakers changed (${baseline.agents.join(", ")} → ${now.agents.join(", ")})`,
    );
  if (!sameJudge(baseline.judge, m.judge))
    stale.push(`the judge changed (${judgeName(baseline.judge)} → ${judgeName(m.judge)})`);
  const dimensions: DimensionCheck[] = [];
  if (baseline.convergence || now.dimensions.convergence)
    dimensions.push(
      compareDimension(
        "convergence",
        baseline.convergence,
        baseline.trials.map((t) => t.convergence ?? null),
        now.dimensions.convergence,
        stale,
        rule,
      ),
    );
  const ideas = now.dimensions.ideas_quantity;
  if (baseline.ideas_quantity || ideas) {
    const b = baseline.ideas_quantity?.count ?? null;
    const n = ideas?.count ?? null;
    const changed =
      baseline.ideas_quantity &&
      now.propositions_hashes.ideas_quantity &&
      baseline.ideas_quantity.propositions_hash !== now.propositions_hashes.ideas_quantity;
    dimensions.push({
      dimension: "ideas_quantity",
      baseline: b,
      now: n,
      delta: delta(b, n),
      trials: ideas?.trials.map((t) => t.count) ?? [],
      baseline_trials: baseline.trials.map((t) => t.ideas_quantity ?? null),
      status: !baseline.ideas_quantity ? "new" : !ideas ? "not-evaluated" : changed ? "stale" : "info",
      reason: "a count of distinct ideas: reported, never a regression",
      propositions: [],
    });
  }
  return { id: channel, name: `#${channel}`, kind: "channel", file, stale, dimensions };
}

/** Compares a measurement with the baselines it was made against. */
export function checkAgainstBaselines(m: Measurement, folder: BaselineFolder, rule: CheckRule): CiReport {
  const notes: string[] = [];
  const agents: SubjectCheck[] = [];
  for (const [id, { baseline, file }] of folder.agents) {
    const check = agentCheck(baseline, file, m, rule);
    if (check) agents.push(check);
    else notes.push(`agent "${id}" has a baseline but was not evaluated`);
  }
  const channels: SubjectCheck[] = [];
  const env = folder.environments;
  for (const c of m.channels) {
    const base = env?.baseline.channels[c.channel];
    if (!base) {
      if (c.dimensions.convergence || c.dimensions.ideas_quantity)
        notes.push(
          `channel #${c.channel} has no environment baseline (${env ? "not in" : "no"} _environments.json); its convergence is not checked`,
        );
      continue;
    }
    const check = channelCheck(c.channel, base, env.file, m, rule);
    if (check) channels.push(check);
  }
  const all = [...agents, ...channels].flatMap((s) => s.dimensions);
  const count = (s: CheckStatus) => all.filter((d) => d.status === s).length;
  const counts = {
    regressions: count("regression"),
    stale: count("stale"),
    noise: count("noise"),
    no_score: count("no-score"),
    compared: all.filter((d) => ["ok", "regression", "noise"].includes(d.status)).length,
  };
  return {
    format: CI_REPORT_FORMAT,
    passed: counts.regressions === 0,
    threshold: rule.threshold,
    trials: rule.trials,
    rule: ruleText(rule),
    judge: m.judge,
    evaluation_id: m.evaluation_id,
    agents,
    channels,
    notes,
    counts,
  };
}

/** 1 on a regression; 3 when a baselined dimension could not be scored; else 0 (stale alone passes). */
export function ciExitCode(report: CiReport): number {
  if (report.counts.regressions > 0 || (report.agreement?.uncalibrated ?? 0) > 0) return 1;
  if (report.counts.no_score > 0) return 3;
  return 0;
}
