// The check's minimum agreement (`ci --min-agreement`, `thresholds.agreement`): each proposition the check
// compares must have been calibrated against people with the same judge and the same rubric, and reached
// the bar; one that was not is reported (and fails the check) instead of being trusted silently. Pure.
import { compareCodeUnits } from "../core/index.ts";
import type { CiReport } from "./compare.ts";

/** What the check needs of a stored calibration (`dramaturg.calibration/v1`). */
export interface CalibrationFiguresOf {
  evaluation_id: string | null;
  propositions: readonly {
    dimension: string;
    proposition_id: string;
    rubric_hash: string;
    kappa_quadratic: number | null;
    exact: number | null;
    n_judged: number;
    too_few: boolean;
  }[];
}

/**
 * - `calibrated`: κ at or above the bar (or undefined with full agreement: judge and people always equal).
 * - `below`: κ below the bar. `too-few`: fewer labelled items than a figure can stand on.
 * - `changed`: its claim changed since it was calibrated. `unlabelled`: the calibration has no item of it.
 * - `no-calibration`: no stored calibration of this judge.
 */
export type AgreementStatus =
  | "calibrated"
  | "below"
  | "too-few"
  | "changed"
  | "unlabelled"
  | "no-calibration";

export interface PropositionAgreement {
  dimension: string;
  proposition_id: string;
  status: AgreementStatus;
  kappa: number | null;
  n_judged: number;
}

export interface AgreementCheck {
  min_kappa: number;
  /** The calibration the figures come from: the latest of this judge. */
  calibration_id: string | null;
  propositions: PropositionAgreement[];
  /** Propositions whose judge is not calibrated well enough (every status but `calibrated`). */
  uncalibrated: number;
}

/** A proposition the check compared, with its rubric hash now. */
export interface GatedProposition {
  dimension: string;
  proposition_id: string;
  rubric_hash: string;
}

/** The propositions a check compared: those of dimensions scored against a fresh baseline (not stale, not counts). */
export function gatedPropositions(
  report: CiReport,
): { dimension: string; proposition_id: string; agent_id?: string }[] {
  const out: { dimension: string; proposition_id: string; agent_id?: string }[] = [];
  for (const subject of [...report.agents, ...report.channels])
    for (const d of subject.dimensions) {
      if (d.status !== "ok" && d.status !== "regression" && d.status !== "noise") continue;
      for (const p of d.propositions)
        out.push({
          dimension: d.dimension,
          proposition_id: p.id,
          ...(subject.kind === "agent" ? { agent_id: subject.id } : {}),
        });
    }
  return out;
}

/** Each gated proposition against the calibration's figures, sorted by dimension then proposition. */
export function checkAgreement(
  gated: readonly GatedProposition[],
  calibration: CalibrationFiguresOf | undefined,
  minKappa: number,
): AgreementCheck {
  const calibrated = new Map(
    calibration?.propositions.map((p) => [`${p.dimension}\u0000${p.proposition_id}`, p]),
  );
  const seen = new Map<string, GatedProposition>();
  for (const g of gated) seen.set(`${g.dimension}\u0000${g.proposition_id}`, g);
  const propositions = [...seen]
    .sort(([a], [b]) => compareCodeUnits(a, b))
    .map(([key, g]): PropositionAgreement => {
      const f = calibrated.get(key);
      const base = { dimension: g.dimension, proposition_id: g.proposition_id };
      if (!calibration) return { ...base, status: "no-calibration", kappa: null, n_judged: 0 };
      if (!f) return { ...base, status: "unlabelled", kappa: null, n_judged: 0 };
      const figures = { kappa: f.kappa_quadratic, n_judged: f.n_judged };
      if (f.rubric_hash !== g.rubric_hash) return { ...base, status: "changed", ...figures };
      if (f.too_few) return { ...base, status: "too-few", ...figures };
      const agrees = f.kappa_quadratic !== null ? f.kappa_quadratic >= minKappa : f.exact === 1;
      return { ...base, status: agrees ? "calibrated" : "below", ...figures };
    });
  return {
    min_kappa: minKappa,
    calibration_id: calibration?.evaluation_id ?? null,
    propositions,
    uncalibrated: propositions.filter((p) => p.status !== "calibrated").length,
  };
}

const STATUS_WORDS: Record<AgreementStatus, string> = {
  calibrated: "calibrated",
  below: "κ below the bar",
  "too-few": "too few labelled items",
  changed: "its claim changed since the calibration",
  unlabelled: "no labelled item in the calibration",
  "no-calibration": "no calibration of this judge",
};

/** One line per proposition whose judge is not calibrated well enough, for every report. */
export function uncalibratedLines(check: AgreementCheck): string[] {
  return check.propositions
    .filter((p) => p.status !== "calibrated")
    .map(
      (p) =>
        `${p.dimension}/${p.proposition_id}: ${STATUS_WORDS[p.status]}${p.kappa !== null ? ` (κ ${p.kappa.toFixed(2)}, ${p.n_judged} items; bar ${check.min_kappa})` : ""}`,
    );
}

/** The report with its agreement check: it fails when a compared proposition's judge is not calibrated well enough. */
export function withAgreement(report: CiReport, check: AgreementCheck): CiReport {
  return { ...report, passed: report.passed && check.uncalibrated === 0, agreement: check };
}
