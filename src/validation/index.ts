// Simulated answers validated against real human answers: readers, the five kinds, the distribution tests
// (Welch, χ², KS, Wasserstein-1, entropy) and a verdict that does not stop at the mean.
export {
  type AnswerFileFormat,
  type AnswerTable,
  parseAnswerTable,
  readAnswerTable,
  requireColumn,
} from "./answer-table.ts";
export {
  type CategoryAnswers,
  compareQuestion,
  type NumberAnswers,
  type QuestionAnswers,
  type RankingAnswers,
} from "./compare-question.ts";
export { type Distribution, distributionOf, entropyBits } from "./distribution.ts";
export {
  type ArmValidation,
  EXPERIMENT_ANSWERS,
  empiricalQuestions,
  readEmpirical,
  storedExperimentResult,
  surveyAnswerTable,
  validateExperimentArms,
} from "./experiment-answers.ts";
export {
  compareReasonThemes,
  REASON_BATCH,
  REASON_THEMES_DIMENSION,
  type ReasonThemes,
  ReasonThemesSchema,
} from "./reason-themes.ts";
export { validationKind } from "./stored-kind.ts";
export {
  experimentIdOf,
  listValidations,
  loadValidation,
  type StoredValidation,
  type StoreValidationOptions,
  storeValidation,
  type ValidationListRow,
  validationAnswers,
  validationListRow,
  validationName,
  validationsOfExperiment,
} from "./stored-validation.ts";
export { typedAnswers } from "./typed-answers.ts";
export { type ValidateAnswersOptions, validateAnswers, validationExitCode } from "./validate-answers.ts";
export {
  numericAnswers,
  type ReadAnswersOptions,
  readAnswers,
  type ValidateFilesOptions,
  validateFiles,
} from "./validate-files.ts";
export { type NumericAnswers, renderValidationChart } from "./validation-chart.ts";
export * from "./validation-format.ts";
export {
  renderValidationMarkdown,
  renderValidationTable,
  VALIDATION_HEADER,
  validationCells,
  validationSummaryLine,
  validationThresholdsLine,
} from "./validation-report.ts";
export {
  type QuestionSpec,
  questionFromFlags,
  readValidationSpec,
  scaleRange,
  type ValidationSpec,
  ValidationSpecSchema,
} from "./validation-spec.ts";
export { formatP, verdictOf } from "./verdict.ts";
