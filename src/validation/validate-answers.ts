// Simulated answers validated against real people's: every question compared (compare-question.ts) under
// one set of thresholds, into a `dramaturg.validation/v1` document. Pure: the readers give it typed answers.
import { compareQuestion, type QuestionAnswers } from "./compare-question.ts";
import {
  DEFAULT_THRESHOLDS,
  VALIDATION_FORMAT,
  type Validation,
  type ValidationThresholds,
  VERDICTS,
  type Verdict,
} from "./validation-format.ts";

export interface ValidateAnswersOptions {
  /** The questions, each with both sides' answers. */
  questions: readonly QuestionAnswers[];
  /** Where the real answers came from (a file, or a name), as the document records it. */
  real?: string;
  /** Where the simulated answers came from. */
  simulated?: string;
  /** Overrides of the documented defaults (`DEFAULT_THRESHOLDS`). */
  thresholds?: Partial<ValidationThresholds>;
}

/** Compares each question's simulated answers with the real ones; the document lists them in order. */
export function validateAnswers({
  questions,
  real = "real",
  simulated = "simulated",
  thresholds = {},
}: ValidateAnswersOptions): Validation {
  const t: ValidationThresholds = { ...DEFAULT_THRESHOLDS, ...thresholds };
  const compared = questions.flatMap((q) => compareQuestion(q, t));
  const verdicts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const q of compared) verdicts[q.verdict]++;
  return {
    format: VALIDATION_FORMAT,
    real: { file: real },
    simulated: { file: simulated },
    thresholds: t,
    questions: compared,
    summary: {
      questions: compared.length,
      failed: compared.length - verdicts.consistent,
      verdicts,
    },
  };
}

/** 1 when a question's verdict is not `consistent` (for CI), else 0. */
export function validationExitCode(validation: Validation): 0 | 1 {
  return validation.summary.failed > 0 ? 1 : 0;
}
