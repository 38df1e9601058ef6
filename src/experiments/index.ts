// Experiments: treatment versus control. The public surface of the folder; other folders import only this.

export * from "./builtin-scenarios.ts";
export * from "./compare.ts";
export * from "./comparison-report.ts";
export * from "./experiment-chart.ts";
export * from "./experiment-environment.ts";
export * from "./experiment-list.ts";
export * from "./experiment-report.ts";
export * from "./population.ts";
export * from "./population-factory.ts";
export * from "./population-profile.ts";
export * from "./population-profiles.ts";
export * from "./population-prompts.ts";
export * from "./price-experiment.ts";
export * from "./run-experiment.ts";
export * from "./scenario.ts";
export * from "./statistics.ts";
export * from "./stored-experiment.ts";
export { experimentKind } from "./stored-kind.ts";
export {
  SURVEY_ANSWER_KINDS,
  type SurveyAnswerKind,
  type SurveyQuestion,
  SurveyQuestionSchema,
  surveyAnswer,
} from "./survey.ts";
export * from "./table1.ts";
export * from "./table1-run.ts";
