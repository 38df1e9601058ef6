// Several judges calibrated on the same labelled items, side by side: which agrees with people best, and at
// what price. The document of `dramaturg calibrate --judge A --judge B … --format json`.
import type { TokenUsage } from "../core/index.ts";
import type { Interval } from "./agreement.ts";
import type { CalibrationResult } from "./calibrate.ts";

export const CALIBRATION_COMPARISON_FORMAT = "dramaturg.calibration-comparison/v1";

export interface JudgeComparison {
  /** The judge as given (`openai:gpt-4o-mini`). */
  judge: string;
  /** Its stored calibration. */
  evaluation_id: string | null;
  n_judged: number;
  kappa_quadratic: number | null;
  kappa_ci: Interval;
  spearman: number | null;
  mae: number | null;
  bias: number | null;
  exact: number | null;
  /** Propositions below the bar, of those compared. */
  flagged: number;
  propositions: number;
  token_usage: TokenUsage;
  /** What its tokens cost at its price; null when the model's price is not known. */
  cost_usd: number | null;
}

export interface CalibrationComparison {
  format: typeof CALIBRATION_COMPARISON_FORMAT;
  judges: JudgeComparison[];
  /** Each judge's whole calibration, in the order given. */
  calibrations: CalibrationResult[];
}

/** The judges' calibrations side by side, in the order given (`specs[i]` judged `results[i]`). */
export function compareJudges(
  results: readonly CalibrationResult[],
  {
    specs,
    costOf,
  }: {
    specs: readonly string[];
    /** USD of a judge's tokens, or undefined when its price is not known. */
    costOf: (spec: string, usage: TokenUsage) => number | undefined;
  },
): CalibrationComparison {
  return {
    format: CALIBRATION_COMPARISON_FORMAT,
    judges: results.map((result, i) => {
      const spec = specs[i] ?? (result.judge ? `${result.judge.provider}:${result.judge.model}` : "unknown");
      const usage = result.token_usage;
      const o = result.overall;
      return {
        judge: spec,
        evaluation_id: result.evaluation_id,
        n_judged: o.n_judged,
        kappa_quadratic: o.kappa_quadratic,
        kappa_ci: o.ci.kappa_quadratic,
        spearman: o.spearman,
        mae: o.mae,
        bias: o.bias,
        exact: o.exact,
        flagged: result.propositions.filter((p) => p.flagged).length,
        propositions: result.propositions.length,
        token_usage: usage,
        cost_usd: costOf(spec, usage) ?? null,
      };
    }),
    calibrations: [...results],
  };
}
