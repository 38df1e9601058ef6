// Calibrations kept in a store by hand for the calibration pages' tests and the server bench: a document made
// from synthetic labelled items through the library's own statistics (so every figure is consistent), with a
// flagged proposition whose worst item carries markup, one with too few items and one with an undefined κ.
import {
  type AgreementItem,
  agreement,
  CALIBRATION_FORMAT,
  type CalibrationDisagreement,
  type CalibrationProposition,
  type CalibrationResult,
  figuresOfStatistics,
  summaryOfStatistics,
} from "../../src/calibration/index.ts";
import { ZERO_USAGE } from "../../src/core/index.ts";
import type { Store } from "../../src/store/index.ts";

/** The message of the flagged proposition's worst item: what a page must show as text. */
export const HOSTILE_MESSAGE = "<script>alert('calibration')</script> I never rehearse.";
export const HOSTILE_NOTE = "<img src=x onerror=alert(1)> too calm for her";
export const HOSTILE_WARNING = "The judge <b>shares</b> the agents' model family (self-preference).";

const RESAMPLES = 200;

interface SyntheticProposition {
  dimension: string;
  proposition_id: string;
  items: AgreementItem[];
  flagged: boolean;
  disagreements?: CalibrationDisagreement[];
}

/** Items where the judge says `judge[i]` and two raters say `people[i]` and `people[i] + offset`. */
const items = (judge: number[], people: number[], offset = 0): AgreementItem[] =>
  judge.map((j, i) => ({ judge: j, raters: [people[i]!, Math.min(9, people[i]! + offset)] }));

/** The propositions of the hand-made calibration, in the document's (dimension, proposition) order. */
function syntheticPropositions(): SyntheticProposition[] {
  return [
    {
      dimension: "adherence",
      proposition_id: "agrees-well",
      items: items([8, 7, 2, 5, 9, 1, 6], [8, 7, 3, 5, 9, 1, 6]),
      flagged: false,
    },
    {
      dimension: "adherence",
      proposition_id: "persona-style",
      items: items([9, 9, 8, 9, 9, 7], [2, 8, 3, 7, 9, 6], 1),
      flagged: true,
      disagreements: [
        {
          agent_id: "mallory",
          message_id: "m7",
          channel: "general",
          speaker: "Mallory <Admin>",
          text: HOSTILE_MESSAGE,
          raters: [
            { rater: "ana", score: 2, note: HOSTILE_NOTE },
            { rater: "ben", score: 3 },
          ],
          human_mean: 2.5,
          judge: 9,
          reasoning: "Judge says: <i>fully</i> in character.",
        },
      ],
    },
    {
      dimension: "adherence",
      proposition_id: "too-few-items",
      items: items([4, 6], [5, 6]),
      flagged: false,
    },
    {
      dimension: "consistency",
      proposition_id: "always-same",
      items: items([9, 9, 9, 9, 9], [9, 9, 9, 9, 9]),
      flagged: false,
    },
    {
      dimension: "consistency",
      proposition_id: "stays-on-topic",
      items: items([1, 8, 2, 9, 3, 2], [6, 4, 7, 5, 2, 8]),
      flagged: true,
      disagreements: [
        {
          agent_id: "bob",
          channel: "general",
          speaker: "Bob",
          raters: [{ rater: "ana", score: 6 }],
          human_mean: 6,
          judge: 1,
          reasoning: "Off topic throughout.",
        },
      ],
    },
  ];
}

/**
 * A `dramaturg.calibration/v1` document of synthetic items: two flagged propositions, one with too few items,
 * one whose κ is undefined (judge and people on 9 throughout), one that agrees well; a warning with markup.
 */
export function handMadeCalibration({
  calibrated = null,
  warnings = [HOSTILE_WARNING],
}: {
  calibrated?: string | null;
  /** Left out of the document when null, as an older version wrote it. */
  warnings?: string[] | null;
} = {}): CalibrationResult {
  const options = { minimum: 5, resamples: RESAMPLES, seed: 1 };
  const synthetic = syntheticPropositions();
  const all = synthetic.flatMap((p) => p.items);
  const overall = agreement(all, options);
  const dimensions = [...new Set(synthetic.map((p) => p.dimension))].map((dimension) => ({
    dimension,
    ...summaryOfStatistics(
      agreement(
        synthetic.filter((p) => p.dimension === dimension).flatMap((p) => p.items),
        options,
      ),
    ),
  }));
  const propositions = synthetic.map(
    (p): CalibrationProposition => ({
      dimension: p.dimension,
      proposition_id: p.proposition_id,
      rubric_hash: `rubric-${p.proposition_id}`,
      ...figuresOfStatistics(agreement(p.items, options)),
      flagged: p.flagged,
      too_few: p.items.length < 5,
      ...(p.disagreements ? { disagreements: p.disagreements } : {}),
    }),
  );
  const document: CalibrationResult = {
    format: CALIBRATION_FORMAT,
    evaluation_id: null,
    calibrated_evaluation: calibrated,
    judged: false,
    judge: { provider: "openai", model: "gpt-4o-mini" },
    propositions_hash: "c0ffee1234",
    warnings: warnings ?? [],
    token_usage: ZERO_USAGE,
    labels: ["labels/rater-a.yaml", "labels/<rater-b>.csv"],
    minimum_kappa: 0.6,
    minimum: 5,
    judge_trials: 1,
    overall: summaryOfStatistics(overall),
    dimensions,
    propositions,
    raters: overall.raters,
    not_judged: 1,
    not_judged_items: [{ dimension: "fluency", proposition_id: "fluent", agent_id: "bob", message_id: "m9" }],
  };
  if (warnings === null) {
    const { warnings: _w, propositions_hash: _h, ...older } = document;
    return older as CalibrationResult;
  }
  return document;
}

/**
 * Keeps a calibration document in the store as the engine does: an evaluation of kind "calibration",
 * started, then completed with the document (its own id set). Returns the calibration's id.
 */
export async function storeCalibration(
  store: Store,
  result: CalibrationResult,
  { agents = ["mallory", "bob"] }: { agents?: string[] } = {},
): Promise<string> {
  const row = await store.evaluations.create({
    kind: "calibration",
    source: result.labels.join(","),
    config: {
      labels: result.labels,
      run: result.calibrated_evaluation,
      judge: null,
      min_kappa: result.minimum_kappa,
    },
    agents,
    ...(result.propositions_hash ? { propositions_hash: result.propositions_hash } : {}),
  });
  await store.evaluations.start(row.id);
  await store.evaluations.complete(row.id, { result: { ...result, evaluation_id: row.id } });
  return row.id;
}
