// `dramaturg validate`'s library calls: two answer files read and each question's cells typed (`readAnswers`),
// then every question compared (`validateFiles` does both). Everything is read and checked before anything is
// computed, so bad input stops the command having written nothing.
import { type AnswerTable, readAnswerTable } from "./answer-table.ts";
import type { QuestionAnswers } from "./compare-question.ts";
import { typedAnswers } from "./typed-answers.ts";
import { validateAnswers } from "./validate-answers.ts";
import type { NumericAnswers } from "./validation-chart.ts";
import type { Validation, ValidationThresholds } from "./validation-format.ts";
import type { QuestionSpec } from "./validation-spec.ts";

export interface ReadAnswersOptions {
  /** The real people's answers: CSV, JSON (an array of records) or JSONL, or a table already read. */
  real: string | AnswerTable;
  /** The simulated answers, in any of the same shapes, or a table already read (an experiment's survey). */
  simulated: string | AnswerTable;
  questions: readonly QuestionSpec[];
}

export interface ValidateFilesOptions extends ReadAnswersOptions {
  thresholds?: Partial<ValidationThresholds>;
}

/** Both files' answers to each question, typed; an `InputError` at the first bad file, row or cell. */
export function readAnswers({ real, simulated, questions }: ReadAnswersOptions): QuestionAnswers[] {
  const table = (t: string | AnswerTable) => (typeof t === "string" ? readAnswerTable(t) : t);
  const [realTable, simulatedTable] = [table(real), table(simulated)];
  return questions.map((q) => typedAnswers(q, realTable, simulatedTable));
}

export function validateFiles({ thresholds, ...files }: ValidateFilesOptions): Validation {
  return validateAnswers({
    questions: readAnswers(files),
    real: typeof files.real === "string" ? files.real : files.real.file,
    simulated: typeof files.simulated === "string" ? files.simulated : files.simulated.file,
    thresholds,
  });
}

/** The numeric questions' answers by name, for their histograms in the chart. */
export function numericAnswers(answers: readonly QuestionAnswers[]): Map<string, NumericAnswers> {
  return new Map(answers.filter((a) => a.kind === "numeric").map((a) => [a.question, a as NumericAnswers]));
}
