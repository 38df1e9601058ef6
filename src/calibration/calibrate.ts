// Calibration against a stored persona evaluation (issue 39, `dramaturg calibrate --run`): the labels set
// beside the verdicts the evaluation already holds (no judge call), agreement per proposition, per dimension
// and overall, and the propositions whose judge disagrees with people too much, with their worst items.
import { compareCodeUnits, InputError, type TokenUsage, type Transcript, ZERO_USAGE } from "../core/index.ts";
import { findEvaluation, openStore, type Store } from "../engine/index.ts";
import { parseStoredPersonaInput, type StoredPersonaInput } from "../personas/index.ts";
import type { LoadedPropositions } from "../propositions/index.ts";
import type { ScoreRow } from "../store/index.ts";
import {
  type AgreementItem,
  type AgreementStatistics,
  agreement,
  type Interval,
  JUDGE_STATISTICS,
  type JudgeStatistic,
  type RatersAgreement,
} from "./agreement.ts";
import { type LabelItem, labelItems, labelTarget } from "./label-items.ts";
import type { OrderEffects } from "./order-effects.ts";
import { type LabelSet, readLabels } from "./read-labels.ts";
import { propositionRubrics, rubricKey } from "./rubric.ts";

export const CALIBRATION_FORMAT = "dramaturg.calibration/v1";

/** Below this many judged items a proposition's figures are marked `too_few`: shown, but not to be trusted. */
export const TOO_FEW_ITEMS = 5;
/** Below this many judged items a proposition is never flagged: one item has no agreement to measure. */
export const MIN_FLAGGED_ITEMS = 2;
/** The largest disagreements listed for a flagged proposition. */
export const MAX_DISAGREEMENTS = 5;

export interface CalibrateStoredRunOptions {
  /** The store holding the evaluation, or its location. */
  store: Store | string;
  /** The evaluation's id or one of its runs' ids, or the first 8+ characters of either. */
  id: string;
  /** The human labels, read already, or the files to read. */
  labels: LabelSet | readonly string[];
  /** The configured minimum: with it, precision and recall of "fails" (a raw score below it). */
  minimum?: number;
  /** A proposition whose κ is below this is flagged. 0.6 by default. */
  minKappa?: number;
  /** Bootstrap resamples, 1,000 by default (0: no CI). */
  resamples?: number;
  /** Seed of the resampling, 1 by default. */
  seed?: number;
}

/** The figures that compare the judge with people, each with its CI (n_judged: items with a judge score). */
export type CalibrationFigures = Pick<AgreementStatistics, "n" | "n_judged" | JudgeStatistic> & {
  ci: Record<JudgeStatistic, Interval>;
};

/** Overall and per dimension: the figures, the band confusion matrix and "fails" when a minimum is given. */
export type CalibrationSummary = CalibrationFigures &
  Pick<AgreementStatistics, "confusion" | "fails" | "bootstrap">;

export interface CalibrationRating {
  rater: string;
  score: number;
  note?: string;
}

/** One item where the judge and people differ, side by side. */
export interface CalibrationDisagreement {
  agent_id?: string;
  message_id?: string;
  channel?: string;
  /** The agent's display name (message and agent items). */
  speaker?: string;
  /** The message labelled (message items). */
  text?: string;
  raters: CalibrationRating[];
  human_mean: number;
  /** The judge's raw score (over trials, see `judge_trials`). */
  judge: number;
  reasoning: string;
}

export interface CalibrationProposition extends CalibrationFigures {
  dimension: string;
  proposition_id: string;
  /** Its rubric version (claim, inversion, window): `dramaturg ci` trusts the figures only for the same one. */
  rubric_hash: string;
  /**
   * κ below the bar with at least {@link MIN_FLAGGED_ITEMS} judged items. κ is undefined (null) only when the
   * judge and the rounded human mean sit on one same score throughout, which is full agreement: not flagged.
   */
  flagged: boolean;
  /** Fewer than {@link TOO_FEW_ITEMS} judged items: the figures are too unstable to act on alone. */
  too_few: boolean;
  /** Only when flagged: the largest |judge − human mean| first, at most {@link MAX_DISAGREEMENTS}. */
  disagreements?: CalibrationDisagreement[];
}

/** A labelled item that the evaluation holds no verdict for (a message it did not judge, a dimension it skipped). */
export interface NotJudgedItem {
  dimension: string;
  proposition_id: string;
  agent_id?: string;
  message_id?: string;
  channel?: string;
}

export interface CalibrationResult {
  format: typeof CALIBRATION_FORMAT;
  /** This calibration's own id, when it is stored (`calibrate`); null for one only computed (`calibrateStoredRun`). */
  evaluation_id: string | null;
  /** The stored persona evaluation whose transcript (and, when `judged` is false, verdicts) were used. */
  calibrated_evaluation: string | null;
  /** Whether the judge's scores were judged for this calibration (`--judge`) or read from the evaluation's verdicts. */
  judged: boolean;
  judge: { provider: string; model: string } | null;
  /** The rubric version: the hash of the propositions the labels and the judge were compared on. */
  propositions_hash: string;
  /** What may make the figures read better or worse than they are (self-preference, a changed rubric…). */
  warnings: string[];
  /** Tokens the judge spent on this calibration (zero when nothing was judged). */
  token_usage: TokenUsage;
  /** The label files, as given. */
  labels: string[];
  minimum_kappa: number;
  minimum: number | null;
  /**
   * The most trials any item was judged in. With several, an item's judge score is the mean of its trials'
   * raw scores (errored trials left out) rounded half up, because κ and exact agreement compare 0–9 integers.
   */
  judge_trials: number;
  overall: CalibrationSummary;
  dimensions: (CalibrationSummary & { dimension: string })[];
  propositions: CalibrationProposition[];
  /**
   * With `orderEffects`: the same items judged individually, in batches and in shuffled batches, outside
   * the verdict cache, and how far batching and a claim's place move the scores.
   */
  order_effects?: OrderEffects;
  /** The people's agreement among themselves over the compared items: the ceiling for the judge. */
  raters: RatersAgreement;
  /** Labelled items the evaluation holds no verdict for: not judged in this run, left out of every figure. */
  not_judged: number;
  not_judged_items: NotJudgedItem[];
}

/** A labelled item with what the judge said of it in the run. */
interface JudgedItem {
  item: LabelItem;
  judge: number | null;
  reasoning: string;
}

/**
 * Calibrates the judge of a stored persona evaluation against human labels: no judge call. The labels are
 * checked against the evaluation's kept transcript and propositions (an `InputError` naming the label's file
 * and line); each item is compared with the evaluation's verdicts on the same (dimension, proposition,
 * agent, message or channel) on the raw claim score. Deterministic: the same store, labels and options give
 * the same document, byte for byte.
 */
export async function calibrateStoredRun({
  store: where,
  id,
  labels,
  minimum,
  minKappa = 0.6,
  resamples = 1_000,
  seed = 1,
}: CalibrateStoredRunOptions): Promise<CalibrationResult> {
  if (!Number.isFinite(minKappa) || minKappa < -1 || minKappa > 1)
    throw new InputError(`expected a number from -1 to 1, got ${String(minKappa)}`, { place: "minKappa" });
  const set = isLabelSet(labels) ? labels : readLabels(labels);
  const store = typeof where === "string" ? await openStore(where) : where;
  try {
    const stored = await storedPersonaEvaluation(store, id);
    const items = labelItems(set, stored.kept);
    return calibrationOf({
      provenance: {
        evaluation_id: null,
        calibrated_evaluation: stored.id,
        judged: false,
        judge: stored.judge,
        propositions_hash: stored.kept.propositions.hash,
        warnings: [],
        token_usage: ZERO_USAGE,
      },
      files: set.files,
      items,
      propositions: stored.kept.propositions,
      rows: await store.scores.forEvaluation(stored.id),
      describe: itemDescriber(stored.kept.transcript),
      minimum,
      minKappa,
      resamples,
      seed,
    });
  } finally {
    if (typeof where === "string") await store.close();
  }
}

/** A stored persona evaluation to calibrate: its id, kept transcript and propositions, and who judged it. */
export interface StoredPersonaEvaluation {
  id: string;
  kept: StoredPersonaInput;
  judge: CalibrationResult["judge"];
}

/** Finds a stored persona evaluation by id (or one of its runs', or a prefix) with the input it kept. */
export async function storedPersonaEvaluation(store: Store, id: string): Promise<StoredPersonaEvaluation> {
  const evaluation = await findEvaluation(store, id, { kind: "persona", pick: "latest", place: "--run" });
  const short = evaluation.id.slice(0, 8);
  if (evaluation.kind !== "persona")
    throw new InputError(`${short} is a ${evaluation.kind} evaluation; calibrate reads persona evaluations`, {
      place: "--run",
    });
  const kept = parseStoredPersonaInput(await store.evaluations.input(evaluation.id));
  if (!kept)
    throw new InputError(
      `evaluation ${short} was stored without its transcript and propositions (by an older version); evaluate again`,
      { place: "--run" },
    );
  const judge = judgeOf(evaluation.config, (await store.runs.list({ evaluation: evaluation.id }))[0]?.judge);
  return { id: evaluation.id, kept, judge };
}

/** How a disagreement shows its item: the speaker's display name and the message's text. */
export function itemDescriber(transcript: Transcript): CalibrationInput["describe"] {
  const names = new Map(transcript.agents.map((a) => [a.id, a.name]));
  const messages = new Map(transcript.messages.map((m) => [m.id, m]));
  return (item) => {
    const agent = item.agent_id;
    const message = item.message_id !== undefined ? messages.get(item.message_id) : undefined;
    return {
      ...(agent !== undefined ? { speaker: names.get(agent) ?? agent } : {}),
      ...(message ? { text: message.text } : {}),
    };
  };
}

export function isLabelSet(labels: LabelSet | readonly string[]): labels is LabelSet {
  return !Array.isArray(labels);
}

function judgeOf(
  config: Record<string, unknown>,
  fromRun: { provider: string; model: string } | null | undefined,
): CalibrationResult["judge"] {
  const descriptor = config.judge_descriptor as { provider?: unknown; model?: unknown } | undefined;
  if (typeof descriptor?.provider === "string" && typeof descriptor.model === "string")
    return { provider: descriptor.provider, model: descriptor.model };
  return fromRun ? { provider: fromRun.provider, model: fromRun.model } : null;
}

/** The key a label item and a verdict row share, trial aside. */
function targetKey(x: {
  dimension: string;
  proposition_id: string;
  agent_id?: string | null;
  message_id?: string | null;
  channel?: string | null;
}): string {
  return [x.dimension, x.proposition_id, x.agent_id ?? "", x.message_id ?? "", x.channel ?? ""].join(
    "\u0000",
  );
}

/** What a calibration document says of where it comes from, besides its figures. */
export type CalibrationProvenance = Pick<
  CalibrationResult,
  | "evaluation_id"
  | "calibrated_evaluation"
  | "judged"
  | "judge"
  | "propositions_hash"
  | "warnings"
  | "token_usage"
>;

export interface CalibrationInput {
  provenance: CalibrationProvenance;
  files: readonly string[];
  items: readonly LabelItem[];
  /** The propositions the items were judged on, for each proposition's rubric hash. */
  propositions: LoadedPropositions;
  rows: readonly ScoreRow[];
  describe: (item: LabelItem) => { speaker?: string; text?: string };
  minimum: number | undefined;
  minKappa: number;
  resamples: number;
  seed: number;
}

export function calibrationOf(input: CalibrationInput): CalibrationResult {
  const { items, rows, minimum, minKappa, resamples, seed } = input;
  const byTarget = new Map<string, ScoreRow[]>();
  for (const row of rows) {
    const key = targetKey(row);
    const list = byTarget.get(key);
    if (list) list.push(row);
    else byTarget.set(key, [row]);
  }
  let trials = 0;
  const judged: JudgedItem[] = [];
  const notJudged: NotJudgedItem[] = [];
  for (const item of items) {
    const verdicts = (byTarget.get(targetKey(item)) ?? []).slice().sort((a, b) => a.trial - b.trial);
    if (verdicts.length === 0) {
      notJudged.push(labelTarget(item));
      continue;
    }
    trials = Math.max(trials, verdicts.length);
    const scored = verdicts.filter((v) => v.status !== "errored" && v.raw_score !== null);
    const sum = scored.reduce((total, v) => total + v.raw_score!, 0);
    judged.push({
      item,
      // Half up, as the human mean is rounded: a mean of k integers is never within rounding error of x.5.
      judge: scored.length === 0 ? null : Math.floor(sum / scored.length + 0.5),
      reasoning: scored[0]?.reasoning ?? verdicts[0]!.error ?? verdicts[0]!.reasoning,
    });
  }

  const options = { minimum, resamples, seed };
  const statsOf = (group: readonly JudgedItem[]) => agreement(group.map(agreementItem), options);
  const overall = statsOf(judged);
  const dimensions = groupBy(judged, (j) => j.item.dimension).map(([dimension, group]) => ({
    dimension,
    ...summaryOfStatistics(statsOf(group)),
  }));
  const rubrics = propositionRubrics(
    input.propositions,
    judged.map((j) => j.item),
  );
  const propositions = groupBy(judged, (j) => rubricKey(j.item)).map(
    ([key, group]): CalibrationProposition => {
      const stats = statsOf(group);
      const flagged =
        stats.n_judged >= MIN_FLAGGED_ITEMS &&
        // κ is undefined only when judge and people sit on one same score throughout: full agreement.
        (stats.kappa_quadratic !== null ? stats.kappa_quadratic < minKappa : stats.exact !== 1);
      const first = group[0]!.item;
      return {
        dimension: first.dimension,
        proposition_id: first.proposition_id,
        rubric_hash: rubrics.get(key)!,
        ...figuresOfStatistics(stats),
        flagged,
        too_few: stats.n_judged < TOO_FEW_ITEMS,
        ...(flagged ? { disagreements: disagreementsOf(group, input.describe) } : {}),
      };
    },
  );

  return {
    format: CALIBRATION_FORMAT,
    ...input.provenance,
    labels: [...input.files],
    minimum_kappa: minKappa,
    minimum: minimum ?? null,
    judge_trials: trials,
    overall: summaryOfStatistics(overall),
    dimensions,
    // Flagged ones are not moved first here: the document keeps one order, the renderers choose theirs.
    propositions,
    raters: overall.raters,
    not_judged: notJudged.length,
    not_judged_items: notJudged,
  };
}

function agreementItem({ item, judge }: JudgedItem): AgreementItem {
  return { judge, raters: item.raters.map((r) => r.score) };
}

/** Groups in ascending code-unit order of the key, each group in the order given (the items' sorted order). */
function groupBy<T>(values: readonly T[], keyOf: (value: T) => string): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const key = keyOf(value);
    const group = groups.get(key);
    if (group) group.push(value);
    else groups.set(key, [value]);
  }
  return [...groups].sort(([a], [b]) => compareCodeUnits(a, b));
}

/** A proposition's (or a summary's) figures out of the agreement statistics: the judge's, each with its CI. */
export function figuresOfStatistics(stats: AgreementStatistics): CalibrationFigures {
  const figures = { n: stats.n, n_judged: stats.n_judged } as CalibrationFigures;
  for (const name of JUDGE_STATISTICS) figures[name] = stats[name];
  figures.ci = stats.ci;
  return figures;
}

/** Overall or per dimension: the figures, the band confusion matrix and the fails. */
export function summaryOfStatistics(stats: AgreementStatistics): CalibrationSummary {
  return {
    ...figuresOfStatistics(stats),
    confusion: stats.confusion,
    ...(stats.fails ? { fails: stats.fails } : {}),
    bootstrap: stats.bootstrap,
  };
}

const humanMean = (item: LabelItem) => item.raters.reduce((s, r) => s + r.score, 0) / item.raters.length;

function disagreementsOf(
  group: readonly JudgedItem[],
  describe: CalibrationInput["describe"],
): CalibrationDisagreement[] {
  return (
    group
      .filter((j) => j.judge !== null)
      .map((j, order) => ({ j, order, gap: Math.abs(j.judge! - humanMean(j.item)) }))
      .filter(({ gap }) => gap > 0)
      // Ties keep the items' sorted order, so the list is the same on every machine.
      .sort((a, b) => b.gap - a.gap || a.order - b.order)
      .slice(0, MAX_DISAGREEMENTS)
      .map(({ j }) => ({
        ...labelTarget(j.item),
        ...describe(j.item),
        raters: j.item.raters.map((r) => ({
          rater: r.rater,
          score: r.score,
          ...(r.note !== undefined ? { note: r.note } : {}),
        })),
        human_mean: humanMean(j.item),
        judge: j.judge!,
        reasoning: j.reasoning,
      }))
      .map(({ dimension: _d, proposition_id: _p, ...rest }) => rest)
  );
}
