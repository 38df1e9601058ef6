// `dramaturg ci --min-agreement K`: the compared propositions held against a calibration of the same judge
// (a committed calibration file, else the store's latest), each with its rubric as evaluated now.
import type { CalibrationFileFigures } from "../calibration/index.ts";
import type { PersonaDimension } from "../core/index.ts";
import type { Store } from "../engine/index.ts";
import {
  type AgreementCheck,
  type CiReport,
  checkAgreement,
  gatedPropositions,
} from "../regression/index.ts";

export interface CiAgreementOptions {
  store: Store;
  report: CiReport;
  minKappa: number;
  /** Read from `--calibration FILE` before anything was judged; else the store's latest of the judge. */
  file?: { path: string; figures: CalibrationFileFigures };
}

export async function ciAgreement({ store, report, minKappa, file }: CiAgreementOptions): Promise<{
  check: AgreementCheck;
  notes: string[];
}> {
  const [{ latestCalibration, propositionRubrics, rubricKey }, { parseStoredPersonaInput }] =
    await Promise.all([import("../calibration/index.ts"), import("../personas/index.ts")]);
  const kept = parseStoredPersonaInput(await store.evaluations.input(report.evaluation_id));
  const targets = gatedPropositions(report).map((t) => ({
    ...t,
    dimension: t.dimension as PersonaDimension,
  }));
  const rubrics = kept ? propositionRubrics(kept.propositions, targets) : new Map<string, string>();
  const gated = targets.map((t) => ({ ...t, rubric_hash: rubrics.get(rubricKey(t)) ?? "" }));
  const notes: string[] = [];
  const judge = report.judge;
  let calibration: CalibrationFileFigures | undefined;
  if (file) {
    const of = file.figures.judge;
    if (of?.provider === judge.provider && of.model === judge.model) calibration = file.figures;
    else
      notes.push(
        `${file.path} calibrates ${of ? `${of.provider}:${of.model}` : "an unknown judge"}, not this check's judge ${judge.provider}:${judge.model}: its figures are not used`,
      );
  } else calibration = await latestCalibration(store, judge);
  return { check: checkAgreement(gated, calibration, minKappa), notes };
}
