// `dramaturg validate`'s library call: two answer files read, each question's cells typed, every question
// compared. Everything is read and checked before anything is computed, so bad input stops the command
// having written nothing.
import { readAnswerTable } from "./answer-table.ts";
import { typedAnswers } from "./typed-answers.ts";
import { validateAnswers } from "./validate-answers.ts";
import type { Validation, ValidationThresholds } from "./validation-format.ts";
import type { QuestionSpec } from "./validation-spec.ts";

export interface ValidateFilesOptions {
  /** The real people's answers: CSV, JSON (an array of records) or JSONL. */
  real: string;
  /** The simulated answers, in any of the same shapes. */
  simulated: string;
  questions: readonly QuestionSpec[];
  thresholds?: Partial<ValidationThresholds>;
}

export function validateFiles({ real, simulated, questions, thresholds }: ValidateFilesOptions): Validation {
  const realTable = readAnswerTable(real);
  const simulatedTable = readAnswerTable(simulated);
  const typed = questions.map((q) => typedAnswers(q, realTable, simulatedTable));
  return validateAnswers({ questions: typed, real, simulated, thresholds });
}
