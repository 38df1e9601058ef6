// The package's `dramaturg/calibration` entry: human labels, a judge's agreement with them, judges compared.
// Apart from the main entry so that importing `dramaturg` does not load the statistics and label readers.
// test/public-api.test.ts pins this list.
export type {
  AgreementItem,
  AgreementStatistics,
  CalibrateOptions,
  CalibrationProposition,
  CalibrationResult,
  Label,
  LabelItem,
  LabelSet,
} from "../calibration/index.ts";
export {
  /** Agreement statistics of judge scores against raters' (ρ, r, quadratic κ, α, MAE, bias…), each with a seeded bootstrap CI. */
  agreement,
  CALIBRATION_FORMAT,
  /**
   * Calibrates a judge against human labels and stores the `dramaturg.calibration/v1` document: a stored
   * evaluation's verdicts (`run`), or the labelled items judged afresh (`judge`), per proposition.
   */
  calibrate,
  /** The labels format's JSON Schemas (`dramaturg schema labels`). */
  LABELS_JSON_SCHEMAS,
  LabelSchema,
  /** The family of a model id (OpenAI GPT, Anthropic Claude, Meta Llama…), for the self-preference warning. */
  modelFamily,
  /** Reads label files (YAML, JSON, JSONL, CSV); errors name the file and line. */
  readLabels,
} from "../calibration/index.ts";
