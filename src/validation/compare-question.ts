// One question's real and simulated answers, already read and typed, compared: each side's summary, the
// tests that fit the kind, and the verdict. A ranking is compared on its first choices (as categories) and
// then on each option's rank (as an ordinal question on 1…K).
import { type Distribution, distributionOf, entropyBits, fromCounts, moments } from "./distribution.ts";
import { chiSquareTest, ksTest, wasserstein1, welchTest } from "./two-sample-tests.ts";
import type {
  AnswerKind,
  ValidationQuestion,
  ValidationSide,
  ValidationThresholds,
} from "./validation-format.ts";
import { verdictOf } from "./verdict.ts";

/** Answers with a number: numeric, ordinal (a scale point), binary (0 or 1). */
export interface NumberAnswers {
  question: string;
  kind: "numeric" | "ordinal" | "binary";
  /** An ordinal question's scale points, so that a point nobody chose still counts (as 0). */
  scale?: readonly number[];
  real: ArrayLike<number>;
  simulated: ArrayLike<number>;
  missing?: { real: number; simulated: number };
}

/** Categorical answers: each an index into `categories`. */
export interface CategoryAnswers {
  question: string;
  kind: "categorical";
  categories: readonly string[];
  real: ArrayLike<number>;
  simulated: ArrayLike<number>;
  missing?: { real: number; simulated: number };
}

/** Rankings: each answer lists the indexes of `options` from first choice to last. */
export interface RankingAnswers {
  question: string;
  kind: "ranking";
  options: readonly string[];
  real: readonly ArrayLike<number>[];
  simulated: readonly ArrayLike<number>[];
  missing?: { real: number; simulated: number };
}

export type QuestionAnswers = NumberAnswers | CategoryAnswers | RankingAnswers;

const NO_MISSING = { real: 0, simulated: 0 };

/** The question's comparison: one entry, or for a ranking its first choice then one per option. */
export function compareQuestion(
  answers: QuestionAnswers,
  thresholds: ValidationThresholds,
): ValidationQuestion[] {
  const missing = answers.missing ?? NO_MISSING;
  switch (answers.kind) {
    case "categorical": {
      const real = categoryCounts(answers.real, answers.categories.length);
      const simulated = categoryCounts(answers.simulated, answers.categories.length);
      return [
        categorical(
          answers.question,
          "categorical",
          answers.categories,
          real,
          simulated,
          missing,
          thresholds,
        ),
      ];
    }
    case "ranking":
      return ranking(answers, missing, thresholds);
    default: {
      const real = withScale(distributionOf(answers.real), answers.scale);
      const simulated = withScale(distributionOf(answers.simulated), answers.scale);
      return [numbers(answers.question, answers.kind, real, simulated, missing, thresholds)];
    }
  }
}

function withScale(d: Distribution, scale: readonly number[] | undefined): Distribution {
  if (!scale) return d;
  const counts = new Map<number, number>(scale.map((point) => [point, 0]));
  for (let i = 0; i < d.values.length; i++)
    counts.set(d.values[i]!, (counts.get(d.values[i]!) ?? 0) + d.counts[i]!);
  return fromCounts(counts);
}

function categoryCounts(answers: ArrayLike<number>, k: number): Float64Array {
  const counts = new Float64Array(k);
  for (let i = 0; i < answers.length; i++) counts[answers[i]!]!++;
  return counts;
}

const label = (v: number) => String(v);

function side(d: Distribution, missing: number, kind: AnswerKind): ValidationSide {
  const { mean, variance } = moments(d);
  const discrete = kind !== "numeric";
  return {
    n: d.n,
    missing,
    mean,
    sd: variance === null ? null : Math.sqrt(variance),
    entropy_bits: discrete ? entropyBits(d.counts) : null,
    counts: discrete ? Object.fromEntries([...d.values].map((v, i) => [label(v), d.counts[i]!])) : null,
  };
}

const ratio = (s: number | null, r: number | null) => (s === null || r === null || r === 0 ? null : s / r);

function numbers(
  question: string,
  kind: NumberAnswers["kind"],
  real: Distribution,
  simulated: Distribution,
  missing: { real: number; simulated: number },
  t: ValidationThresholds,
): ValidationQuestion {
  const r = side(real, missing.real, kind);
  const s = side(simulated, missing.simulated, kind);
  const welch = welchTest(real, simulated);
  let chi2: ValidationQuestion["chi2"] = null;
  if (kind !== "numeric") {
    // The same categories on both sides: the union of their values.
    const values = [...new Set([...real.values, ...simulated.values])].sort((a, b) => a - b);
    const countsOf = (d: Distribution) =>
      values.map((v) => {
        const i = d.values.indexOf(v);
        return i < 0 ? 0 : d.counts[i]!;
      });
    const test = chiSquareTest(countsOf(real), countsOf(simulated), chiOptions(t));
    chi2 = typeof test === "string" ? null : test;
  }
  const ks = kind === "binary" ? null : ksTest(real, simulated);
  const figures = {
    question,
    kind,
    real: r,
    simulated: s,
    welch: typeof welch === "string" ? null : welch,
    chi2,
    ks: typeof ks === "string" ? null : ks,
    wasserstein_1: wasserstein1(real, simulated),
    sd_ratio: ratio(s.sd, r.sd),
    entropy_ratio: ratio(s.entropy_bits, r.entropy_bits),
  };
  return { ...figures, ...verdictOf(figures, t) };
}

const chiOptions = (t: ValidationThresholds) => ({
  smallExpected: t.small_expected,
  samples: t.monte_carlo_samples,
  seed: t.seed,
});

function categorical(
  question: string,
  kind: "categorical" | "ranking",
  categories: readonly string[],
  real: Float64Array,
  simulated: Float64Array,
  missing: { real: number; simulated: number },
  t: ValidationThresholds,
): ValidationQuestion {
  const sideOf = (counts: Float64Array, missed: number): ValidationSide => ({
    n: counts.reduce((a, b) => a + b, 0),
    missing: missed,
    mean: null,
    sd: null,
    entropy_bits: entropyBits(counts),
    counts: Object.fromEntries(categories.map((c, i) => [c, counts[i]!])),
  });
  const r = sideOf(real, missing.real);
  const s = sideOf(simulated, missing.simulated);
  const test = chiSquareTest(real, simulated, chiOptions(t));
  const figures = {
    question,
    kind,
    real: r,
    simulated: s,
    welch: null,
    chi2: typeof test === "string" ? null : test,
    ks: null,
    wasserstein_1: null,
    sd_ratio: null,
    entropy_ratio: ratio(s.entropy_bits, r.entropy_bits),
  };
  return { ...figures, ...verdictOf(figures, t) };
}

function ranking(
  answers: RankingAnswers,
  missing: { real: number; simulated: number },
  t: ValidationThresholds,
): ValidationQuestion[] {
  const k = answers.options.length;
  const tally = (rankings: readonly ArrayLike<number>[]) => {
    const first = new Float64Array(k);
    // ranks[o]: how many put option o at each place (1…K).
    const ranks = Array.from(
      { length: k },
      () => new Map<number, number>(Array.from({ length: k }, (_, i) => [i + 1, 0])),
    );
    for (const order of rankings) {
      if (order.length > 0) first[order[0]!]!++;
      for (let place = 0; place < order.length; place++) {
        const m = ranks[order[place]!]!;
        m.set(place + 1, m.get(place + 1)! + 1);
      }
    }
    return { first, ranks: ranks.map(fromCounts) };
  };
  const real = tally(answers.real);
  const simulated = tally(answers.simulated);
  const head = categorical(
    answers.question,
    "ranking",
    answers.options,
    real.first,
    simulated.first,
    missing,
    t,
  );
  const shares = (first: Float64Array, n: number) =>
    Object.fromEntries(answers.options.map((o, i) => [o, n === 0 ? 0 : first[i]! / n]));
  const meanRanks = (ranks: Distribution[]) =>
    Object.fromEntries(answers.options.map((o, i) => [o, moments(ranks[i]!).mean ?? 0]));
  head.first_choice = {
    real: shares(real.first, head.real.n),
    simulated: shares(simulated.first, head.simulated.n),
  };
  head.mean_rank = { real: meanRanks(real.ranks), simulated: meanRanks(simulated.ranks) };
  const perOption = answers.options.map((option, i) => ({
    ...numbers(
      `${answers.question}: rank of ${option}`,
      "ordinal",
      real.ranks[i]!,
      simulated.ranks[i]!,
      missing,
      t,
    ),
    of: answers.question,
  }));
  return [head, ...perOption];
}
