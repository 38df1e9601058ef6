// How far a judge agrees with people on the raw 0–9 claim score (issue 39): correlation, weighted κ,
// Krippendorff's α, error, exact and ±1 agreement, the band confusion matrix, precision and recall of
// "fails", the raters' own α as the ceiling, and a seeded percentile-bootstrap 95 % CI for each figure.
//
// Items are reduced once to their distinct kinds (judge score × multiset of rater scores: a few thousand at
// most, as scores are integers 0–9), and every figure is computed from counts per kind. A bootstrap resample
// is then n draws that increment counts plus work proportional to the number of kinds, rather than n items
// sorted and re-ranked a thousand times; the point estimate goes through the same code with each kind's
// count in the data, and equals the item-by-item formulas (checked against SciPy and NumPy to 1e-9).

import { InputError } from "../core/index.ts";
import { bandIndex, SCORE_BANDS, type ScoreBand } from "./bands.ts";
import { IndexSampler, percentileInterval } from "./bootstrap.ts";

/** One labelled item: (dimension, proposition, agent, message or channel), judged and rated. */
export interface AgreementItem {
  /** The judge's raw claim score, an integer 0–9; null when the judge errored on the item. */
  judge: number | null;
  /** Each rater's raw claim score, an integer 0–9; at least one. */
  raters: readonly number[];
}

export interface AgreementOptions {
  /** The configured minimum m: with it, precision and recall of "fails" (a score below m) are computed. */
  minimum?: number;
  /** Bootstrap resamples of the items, an integer ≥ 0; 1,000 by default. 0 computes no CI. */
  resamples?: number;
  /** Seed of the resampling, an integer 0 ≤ seed < 2^32; the same seed gives the same CIs bit for bit. 1 by default. */
  seed?: number;
}

/** A percentile-bootstrap 95 % interval [low, high]; null when no resample gave a value. */
export type Interval = [number, number] | null;

/** Precision and recall of the judge's "fails" (score < minimum) against the rounded human mean's. */
export interface FailsAgreement {
  minimum: number;
  /** tp / (tp + fp); null when the judge failed no item. */
  precision: number | null;
  /** tp / (tp + fn); null when the people failed no item. */
  recall: number | null;
  /** Both fail. */
  tp: number;
  /** The judge fails, the people pass. */
  fp: number;
  /** The judge passes, the people fail. */
  fn: number;
  /** Both pass. */
  tn: number;
  ci: { precision: Interval; recall: Interval };
}

/** The raters' agreement among themselves, the ceiling a judge can be expected to reach. */
export interface RatersAgreement {
  /** Items with at least two raters: the only ones that count here. */
  items: number;
  alpha_interval: number | null;
  alpha_ordinal: number | null;
  ci: { alpha_interval: Interval; alpha_ordinal: Interval };
}

/** The statistics that compare the judge with the people, each with a CI under `ci`. */
export const JUDGE_STATISTICS = [
  "pearson",
  "spearman",
  "kappa_quadratic",
  "alpha_interval",
  "alpha_ordinal",
  "mae",
  "bias",
  "exact",
  "within_1",
] as const;
export type JudgeStatistic = (typeof JUDGE_STATISTICS)[number];

/**
 * Judge-vs-human agreement over a set of items. The human reference of an item is the mean of its raters'
 * scores; "rounded" is that mean rounded half up. Statistics that are not defined for the data are null.
 */
export interface AgreementStatistics {
  /** Items given. */
  n: number;
  /** Items with a judge score; the other n − n_judged errored and are left out of the judge's statistics. */
  n_judged: number;
  /** Pearson's r, judge vs human mean; null when either is constant. */
  pearson: number | null;
  /** Spearman's ρ (tie-averaged ranks), judge vs human mean; null when either is constant. */
  spearman: number | null;
  /** Cohen's κ with quadratic weights, judge vs rounded mean over categories 0–9; null with no expected disagreement. */
  kappa_quadratic: number | null;
  /**
   * Krippendorff's α (interval), the judge and every rater as coders, items with fewer than two values left
   * out. An errored judge score is a missing value, as in Krippendorff's formulation: its item still counts
   * through its raters when it has two or more.
   */
  alpha_interval: number | null;
  /** Krippendorff's α (ordinal), as above. */
  alpha_ordinal: number | null;
  /** Mean |judge − human mean|. */
  mae: number | null;
  /** Mean (judge − human mean): positive when the judge scores higher than people. */
  bias: number | null;
  /** Share of items where the judge equals the rounded mean. */
  exact: number | null;
  /** Share of items where the judge is within 1 of the rounded mean. */
  within_1: number | null;
  /** Judged items counted by judge band (rows) × band of the rounded mean (columns). */
  confusion: { bands: readonly ScoreBand[]; counts: number[][] };
  /** Only when a minimum was given. */
  fails?: FailsAgreement;
  raters: RatersAgreement;
  ci: Record<JudgeStatistic, Interval>;
  /**
   * How the CIs were drawn: items resampled with replacement, `resamples` times, from `seed`; a resample where
   * a statistic is undefined is skipped, and `defined` says, for each statistic that some resamples skipped,
   * how many gave it a value (`fails.precision`, `raters.alpha_interval`… for the nested ones).
   */
  bootstrap: { resamples: number; seed: number; defined: Record<string, number> };
}

const SCORES = 10;
const SCORE_VALUES = Float64Array.from({ length: SCORES }, (_, s) => s);
const DEFAULT_RESAMPLES = 1_000;
const DEFAULT_SEED = 1;

/** The distinct kinds of item, and which kind each item is: what every statistic is counted over. */
interface ItemKinds {
  /** The kind of each item, by index. */
  of: Int32Array;
  /** How many items of each kind the data holds. */
  counts: Int32Array;
  /** Per kind: the judge's score, or -1 when it errored. */
  judge: Int8Array;
  /** Per kind: the index of its human mean in `means`. */
  human: Int32Array;
  /** Per kind: whether it has two or more raters. */
  multiRater: Uint8Array;
  /** The distinct human means, ascending, and each one rounded half up. */
  means: Float64Array;
  rounded: Int8Array;
  /** Per kind, its contribution to the coincidence matrix, with the judge (`all`) and among raters only. */
  all: Coincidences;
  raters: Coincidences;
}

/** Sparse coincidence contributions: kind k adds weight[e] to cell[e] (c·10 + k') for start[k] ≤ e < start[k+1]. */
interface Coincidences {
  start: Int32Array;
  cell: Int32Array;
  weight: Float64Array;
}

function checkScore(value: unknown, place: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 9)
    throw new InputError(`expected an integer score 0–9, got ${String(value)}`, { place });
  return value;
}

/** Each unit's ordered pairs of values, weighted 1 / (m − 1) (Krippendorff 2011, §"coincidences"). */
function coincidencesOf(
  histogram: readonly number[],
  values: number,
  cells: number[],
  weights: number[],
): void {
  if (values < 2) return;
  for (let c = 0; c < SCORES; c++) {
    if (histogram[c] === 0) continue;
    for (let k = 0; k < SCORES; k++) {
      const pairs = histogram[c]! * (histogram[k]! - (c === k ? 1 : 0));
      if (pairs > 0) {
        cells.push(c * SCORES + k);
        weights.push(pairs / (values - 1));
      }
    }
  }
}

function kindsOf(items: readonly AgreementItem[]): ItemKinds {
  const of = new Int32Array(items.length);
  const index = new Map<string, number>();
  const counts: number[] = [];
  const judge: number[] = [];
  const mean: number[] = [];
  const multiRater: number[] = [];
  const all = { start: [0], cell: [] as number[], weight: [] as number[] };
  const raters = { start: [0], cell: [] as number[], weight: [] as number[] };
  items.forEach((item, i) => {
    const score = item.judge === null ? null : checkScore(item.judge, `items[${i}].judge`);
    if (!Array.isArray(item.raters) || item.raters.length === 0)
      throw new InputError("expected at least one rater's score", { place: `items[${i}].raters` });
    const histogram = new Array<number>(SCORES).fill(0);
    let sum = 0;
    item.raters.forEach((value, r) => {
      histogram[checkScore(value, `items[${i}].raters[${r}]`)]!++;
      sum += value;
    });
    const key = `${score ?? "-"}|${histogram.join(",")}`;
    let kind = index.get(key);
    if (kind === undefined) {
      kind = counts.length;
      index.set(key, kind);
      counts.push(0);
      judge.push(score ?? -1);
      mean.push(sum / item.raters.length);
      multiRater.push(item.raters.length >= 2 ? 1 : 0);
      coincidencesOf(histogram, item.raters.length, raters.cell, raters.weight);
      raters.start.push(raters.cell.length);
      if (score !== null) histogram[score]!++;
      coincidencesOf(histogram, item.raters.length + (score === null ? 0 : 1), all.cell, all.weight);
      all.start.push(all.cell.length);
    }
    of[i] = kind;
    counts[kind]!++;
  });
  // Equal fractions (2/2 and 3/3) divide to the same double, so the double identifies the mean exactly.
  const means = Float64Array.from(new Set(mean)).sort();
  const meanIndex = new Map(Array.from(means, (m, h) => [m, h]));
  // Half up. A mean of k integers is a multiple of 1/k: unless it is exactly x.5 it is at least 1/(2k) away,
  // far beyond the double's error, so adding 0.5 and flooring cannot round the wrong way.
  const rounded = Int8Array.from(means, (m) => Math.floor(m + 0.5));
  const sparse = (c: typeof all): Coincidences => ({
    start: Int32Array.from(c.start),
    cell: Int32Array.from(c.cell),
    weight: Float64Array.from(c.weight),
  });
  return {
    of,
    counts: Int32Array.from(counts),
    judge: Int8Array.from(judge),
    human: Int32Array.from(mean, (m) => meanIndex.get(m)!),
    multiRater: Uint8Array.from(multiRater),
    means,
    rounded,
    all: sparse(all),
    raters: sparse(raters),
  };
}

/**
 * Pearson's r over a table of counts: x takes xs[j] in row j, y takes ys[h] in column h. Null when x or y is
 * constant. The sums run in the same order over rows and columns, so that x ≡ y gives exactly 1.
 */
function pearsonOfTable(
  table: Float64Array,
  xs: Float64Array,
  ys: Float64Array,
  rows: Float64Array,
  columns: Float64Array,
  n: number,
): number | null {
  let xValues = 0;
  let yValues = 0;
  let sumX = 0;
  let sumY = 0;
  for (let j = 0; j < xs.length; j++) {
    if (rows[j] === 0) continue;
    xValues++;
    sumX += rows[j]! * xs[j]!;
  }
  for (let h = 0; h < ys.length; h++) {
    if (columns[h] === 0) continue;
    yValues++;
    sumY += columns[h]! * ys[h]!;
  }
  if (xValues < 2 || yValues < 2) return null;
  const meanX = sumX / n;
  const meanY = sumY / n;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  for (let j = 0; j < xs.length; j++) {
    const dx = xs[j]! - meanX;
    sxx += rows[j]! * (dx * dx);
  }
  for (let h = 0; h < ys.length; h++) {
    const dy = ys[h]! - meanY;
    syy += columns[h]! * (dy * dy);
  }
  const H = ys.length;
  for (let j = 0; j < xs.length; j++) {
    if (rows[j] === 0) continue;
    const dx = xs[j]! - meanX;
    for (let h = 0; h < H; h++) {
      const count = table[j * H + h]!;
      if (count !== 0) sxy += count * (dx * (ys[h]! - meanY));
    }
  }
  const r = sxy / Math.sqrt(sxx * syy);
  return Math.max(-1, Math.min(1, r));
}

/** Tie-averaged ranks (1-based) of the values whose counts are given in ascending order of value. */
function ranksOf(counts: Float64Array, ranks: Float64Array): Float64Array {
  let before = 0;
  for (let v = 0; v < counts.length; v++) {
    ranks[v] = before + (counts[v]! + 1) / 2;
    before += counts[v]!;
  }
  return ranks;
}

/**
 * Krippendorff's α from a 10 × 10 coincidence matrix, with the interval metric (c − k)² and the ordinal one
 * (Σ_{g=c..k} n_g − (n_c + n_k)/2)², whose n_g are this matrix's marginals. Null with no pairable values or
 * no expected disagreement.
 */
function alphaOf(
  o: Float64Array,
  marginal: Float64Array,
): { interval: number | null; ordinal: number | null } {
  marginal.fill(0);
  let total = 0;
  for (let c = 0; c < SCORES; c++) {
    for (let k = 0; k < SCORES; k++) marginal[c]! += o[c * SCORES + k]!;
    total += marginal[c]!;
  }
  let intervalObserved = 0;
  let intervalExpected = 0;
  let ordinalObserved = 0;
  let ordinalExpected = 0;
  for (let c = 0; c < SCORES; c++) {
    if (marginal[c] === 0) continue;
    let between = marginal[c]!;
    for (let k = c + 1; k < SCORES; k++) {
      between += marginal[k]!;
      if (marginal[k] === 0) continue;
      const interval = (c - k) * (c - k);
      const rank = between - (marginal[c]! + marginal[k]!) / 2;
      const ordinal = rank * rank;
      // Both metrics are symmetric: each unordered pair of values counts twice.
      const observed = o[c * SCORES + k]! + o[k * SCORES + c]!;
      const expected = 2 * marginal[c]! * marginal[k]!;
      intervalObserved += observed * interval;
      intervalExpected += expected * interval;
      ordinalObserved += observed * ordinal;
      ordinalExpected += expected * ordinal;
    }
  }
  const alpha = (observed: number, expected: number) =>
    total > 1 && expected > 0 ? 1 - ((total - 1) * observed) / expected : null;
  return {
    interval: alpha(intervalObserved, intervalExpected),
    ordinal: alpha(ordinalObserved, ordinalExpected),
  };
}

function coincidenceMatrix(c: Coincidences, counts: Int32Array, o: Float64Array): Float64Array {
  o.fill(0);
  for (let kind = 0; kind < counts.length; kind++) {
    const count = counts[kind]!;
    if (count === 0) continue;
    for (let e = c.start[kind]!; e < c.start[kind + 1]!; e++) o[c.cell[e]!]! += count * c.weight[e]!;
  }
  return o;
}

/** Every figure, flat: what one resample (or the data itself) gives. */
interface Figures {
  n: number;
  n_judged: number;
  pearson: number | null;
  spearman: number | null;
  kappa_quadratic: number | null;
  alpha_interval: number | null;
  alpha_ordinal: number | null;
  mae: number | null;
  bias: number | null;
  exact: number | null;
  within_1: number | null;
  precision: number | null;
  recall: number | null;
  raters_alpha_interval: number | null;
  raters_alpha_ordinal: number | null;
  raters_items: number;
  /** Judge fails / people fail: both, the judge only, the people only, neither (all 0 without a minimum). */
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

/** Buffers that one agreement() reuses across its resamples, so that a resample allocates next to nothing. */
interface Workspace {
  /** Judged items by judge score (row) × human mean (column, its index in `means`). */
  table: Float64Array;
  rows: Float64Array;
  columns: Float64Array;
  /** Judged items by judge score (row) × rounded human mean (column), 10 × 10. */
  rounded: Float64Array;
  roundedColumns: Float64Array;
  rowRanks: Float64Array;
  columnRanks: Float64Array;
  coincidence: Float64Array;
  marginal: Float64Array;
}

function workspaceFor(kinds: ItemKinds): Workspace {
  const H = kinds.means.length;
  return {
    table: new Float64Array(SCORES * H),
    rows: new Float64Array(SCORES),
    columns: new Float64Array(H),
    rounded: new Float64Array(SCORES * SCORES),
    roundedColumns: new Float64Array(SCORES),
    rowRanks: new Float64Array(SCORES),
    columnRanks: new Float64Array(H),
    coincidence: new Float64Array(SCORES * SCORES),
    marginal: new Float64Array(SCORES),
  };
}

const RESAMPLED = [
  ...JUDGE_STATISTICS,
  "precision",
  "recall",
  "raters_alpha_interval",
  "raters_alpha_ordinal",
] as const;

/** Where a resampled figure sits in the result, for `bootstrap.defined`. */
const PATH: Record<(typeof RESAMPLED)[number], string> = {
  ...(Object.fromEntries(JUDGE_STATISTICS.map((s) => [s, s])) as Record<JudgeStatistic, string>),
  precision: "fails.precision",
  recall: "fails.recall",
  raters_alpha_interval: "raters.alpha_interval",
  raters_alpha_ordinal: "raters.alpha_ordinal",
};

/** Every figure of the items counted in `counts` (per kind); leaves the judge × rounded table in `work.rounded`. */
function figuresOf(
  kinds: ItemKinds,
  counts: Int32Array,
  minimum: number | undefined,
  work: Workspace,
): Figures {
  const H = kinds.means.length;
  const { table, rows, columns, rounded, roundedColumns } = work;
  for (const buffer of [table, rows, columns, rounded, roundedColumns]) buffer.fill(0);
  let n = 0;
  let judged = 0;
  let ratersItems = 0;
  for (let kind = 0; kind < counts.length; kind++) {
    const count = counts[kind]!;
    if (count === 0) continue;
    n += count;
    if (kinds.multiRater[kind]) ratersItems += count;
    const j = kinds.judge[kind]!;
    if (j < 0) continue;
    const h = kinds.human[kind]!;
    judged += count;
    table[j * H + h]! += count;
    rows[j]! += count;
    columns[h]! += count;
  }
  const all = alphaOf(coincidenceMatrix(kinds.all, counts, work.coincidence), work.marginal);
  const raters = alphaOf(coincidenceMatrix(kinds.raters, counts, work.coincidence), work.marginal);

  let absolute = 0;
  let signed = 0;
  for (let j = 0; j < SCORES; j++)
    for (let h = 0; h < H; h++) {
      const count = table[j * H + h]!;
      if (count === 0) continue;
      const difference = j - kinds.means[h]!;
      absolute += count * Math.abs(difference);
      signed += count * difference;
      rounded[j * SCORES + kinds.rounded[h]!]! += count;
      roundedColumns[kinds.rounded[h]!]! += count;
    }
  let observed = 0;
  let expected = 0;
  let exact = 0;
  let within1 = 0;
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (let a = 0; a < SCORES; a++)
    for (let b = 0; b < SCORES; b++) {
      const count = rounded[a * SCORES + b]!;
      const weight = (a - b) * (a - b);
      observed += count * weight;
      expected += rows[a]! * roundedColumns[b]! * weight;
      if (a === b) exact += count;
      if (Math.abs(a - b) <= 1) within1 += count;
      if (minimum !== undefined) {
        if (a < minimum && b < minimum) tp += count;
        else if (a < minimum) fp += count;
        else if (b < minimum) fn += count;
        else tn += count;
      }
    }
  const share = (count: number) => (judged > 0 ? count / judged : null);
  return {
    n,
    n_judged: judged,
    pearson: judged > 0 ? pearsonOfTable(table, SCORE_VALUES, kinds.means, rows, columns, judged) : null,
    spearman:
      judged > 0
        ? pearsonOfTable(
            table,
            ranksOf(rows, work.rowRanks),
            ranksOf(columns, work.columnRanks),
            rows,
            columns,
            judged,
          )
        : null,
    // κ = 1 − Σ w·O / Σ w·E with E = rows·columns / n; the 1/81 of the weights cancels.
    kappa_quadratic: expected > 0 ? 1 - (observed * judged) / expected : null,
    alpha_interval: all.interval,
    alpha_ordinal: all.ordinal,
    mae: share(absolute),
    bias: share(signed),
    exact: share(exact),
    within_1: share(within1),
    precision: tp + fp > 0 ? tp / (tp + fp) : null,
    recall: tp + fn > 0 ? tp / (tp + fn) : null,
    raters_alpha_interval: raters.interval,
    raters_alpha_ordinal: raters.ordinal,
    raters_items: ratersItems,
    tp,
    fp,
    fn,
    tn,
  };
}

function confusionOf(rounded: Float64Array): number[][] {
  const counts = SCORE_BANDS.map(() => SCORE_BANDS.map(() => 0));
  for (let a = 0; a < SCORES; a++)
    for (let b = 0; b < SCORES; b++) counts[bandIndex(a)]![bandIndex(b)]! += rounded[a * SCORES + b]!;
  return counts;
}

function checkOptions({ minimum, resamples = DEFAULT_RESAMPLES, seed = DEFAULT_SEED }: AgreementOptions) {
  if (minimum !== undefined && !Number.isFinite(minimum))
    throw new InputError(`expected a finite number, got ${String(minimum)}`, { place: "minimum" });
  if (!Number.isInteger(resamples) || resamples < 0)
    throw new InputError(`expected an integer ≥ 0, got ${String(resamples)}`, { place: "resamples" });
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32)
    throw new InputError(`expected an integer 0 ≤ seed < 2^32, got ${String(seed)}`, { place: "seed" });
  return { minimum, resamples, seed };
}

/**
 * Judge-vs-human agreement over `items`, every statistic with a percentile-bootstrap 95 % CI from resampling
 * the items with replacement. Pure: the same items and options give the same result, bit for bit.
 *
 * @throws InputError when a score is not an integer 0–9, an item has no rater, or an option is out of range.
 */
export function agreement(
  items: readonly AgreementItem[],
  options: AgreementOptions = {},
): AgreementStatistics {
  const { minimum, resamples, seed } = checkOptions(options);
  const kinds = kindsOf(items);
  const work = workspaceFor(kinds);
  const point = figuresOf(kinds, kinds.counts, minimum, work);
  const confusion = confusionOf(work.rounded);

  const n = items.length;
  const draws = n > 0 ? resamples : 0;
  const resampled = RESAMPLED.filter((name) => minimum !== undefined || !PATH[name].startsWith("fails."));
  const values = resampled.map(() => new Float64Array(draws));
  const defined = resampled.map(() => 0);
  const sampler = new IndexSampler(seed);
  const kindOf = kinds.of;
  const counts = new Int32Array(kinds.counts.length);
  for (let r = 0; r < draws; r++) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[kindOf[sampler.below(n)]!]!++;
    const figures = figuresOf(kinds, counts, minimum, work);
    resampled.forEach((name, s) => {
      const value = figures[name];
      if (value !== null) values[s]![defined[s]!++] = value;
    });
  }
  const interval: Partial<Record<(typeof RESAMPLED)[number], Interval>> = Object.fromEntries(
    resampled.map((name, s) => [name, percentileInterval(values[s]!, defined[s]!)]),
  );
  const skipped = Object.fromEntries(
    resampled.flatMap((name, s) => (defined[s]! < draws ? [[PATH[name], defined[s]!]] : [])),
  );

  return {
    n: point.n,
    n_judged: point.n_judged,
    pearson: point.pearson,
    spearman: point.spearman,
    kappa_quadratic: point.kappa_quadratic,
    alpha_interval: point.alpha_interval,
    alpha_ordinal: point.alpha_ordinal,
    mae: point.mae,
    bias: point.bias,
    exact: point.exact,
    within_1: point.within_1,
    confusion: { bands: SCORE_BANDS, counts: confusion },
    ...(minimum === undefined ? {} : { fails: failsOf(point, minimum, interval) }),
    raters: {
      items: point.raters_items,
      alpha_interval: point.raters_alpha_interval,
      alpha_ordinal: point.raters_alpha_ordinal,
      ci: {
        alpha_interval: interval.raters_alpha_interval ?? null,
        alpha_ordinal: interval.raters_alpha_ordinal ?? null,
      },
    },
    ci: Object.fromEntries(JUDGE_STATISTICS.map((s) => [s, interval[s] ?? null])) as Record<
      JudgeStatistic,
      Interval
    >,
    bootstrap: { resamples: draws, seed, defined: skipped },
  };
}

function failsOf(point: Figures, minimum: number, interval: Record<string, Interval>): FailsAgreement {
  const { precision, recall, tp, fp, fn, tn } = point;
  return {
    minimum,
    precision,
    recall,
    tp,
    fp,
    fn,
    tn,
    ci: { precision: interval.precision ?? null, recall: interval.recall ?? null },
  };
}
