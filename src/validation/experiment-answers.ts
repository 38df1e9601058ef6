// An experiment's survey answers as simulated answers: `dramaturg validate survey.csv experiment:ID --arm …`
// reads them from the stored experiment, and `experiment run` validates each arm against the real answers its
// scenario names (`survey[].empirical`), so "did the correction make the population more like people?" is one
// command. The stored document is read as input from outside: checked, and a problem names its JSON path.
import { z } from "zod";
import { InputError, scaleRange } from "../core/index.ts";
import { findEvaluation, type Store } from "../engine/index.ts";
import type { SurveyQuestion } from "../experiments/index.ts";
import { type AnswerTable, readAnswerTable, recordTable, requireColumn } from "./answer-table.ts";
import type { QuestionAnswers } from "./compare-question.ts";
import { typedAnswers } from "./typed-answers.ts";
import { validateAnswers } from "./validate-answers.ts";
import type { Validation, ValidationThresholds } from "./validation-format.ts";
import type { QuestionSpec } from "./validation-spec.ts";

/** `experiment:ID` in place of a simulated answers file. */
export const EXPERIMENT_ANSWERS = /^experiment:(.+)$/;

const SurveyArmsSchema = z.object({
  arms: z.record(
    z.string(),
    z.object({ survey: z.record(z.string(), z.array(z.string().nullable())).optional() }),
  ),
});

type SurveyArms = z.infer<typeof SurveyArmsSchema>["arms"];

/** The arms of an experiment document, with their survey answers. */
function surveyArmsOf(document: unknown, source: string): SurveyArms {
  const parsed = SurveyArmsSchema.safeParse(document);
  if (!parsed.success) throw new InputError("not an experiment result with arms", { file: source });
  return parsed.data.arms;
}

/**
 * The survey answers of one arm of an experiment document, as a table: a row per agent of each environment,
 * a column per question. `source` names it in messages (`experiment 3f2a91c0, arm treatment`).
 */
export function surveyAnswerTable(document: unknown, arm: string, source: string): AnswerTable {
  return armAnswerTable(surveyArmsOf(document, source), arm, source);
}

function armAnswerTable(arms: SurveyArms, arm: string, source: string): AnswerTable {
  const survey = arms[arm]?.survey;
  if (arms[arm] === undefined)
    throw new InputError(`no arm "${arm}"; its arms are ${Object.keys(arms).join(", ")}`, { place: "--arm" });
  if (survey === undefined || Object.keys(survey).length === 0)
    throw new InputError(
      "the experiment asked no survey questions (a scenario's `survey:` gives the answers to validate)",
      { file: source },
    );
  const columns = Object.keys(survey);
  const rows = Math.max(...columns.map((c) => survey[c]!.length));
  const records = Array.from({ length: rows }, (_, i) =>
    Object.fromEntries(columns.map((c) => [c, survey[c]![i] ?? null])),
  );
  return recordTable(`${source}, arm ${arm}`, "json", records, (index, column) => {
    return `arms.${arm}.survey.${column}[${index}]`;
  });
}

/** The stored experiment `id` names (its id or first 8+ characters): its full id and its result document. */
export async function storedExperimentResult(
  store: Store,
  id: string,
): Promise<{ id: string; result: unknown }> {
  const row = await findEvaluation(store, id, { kind: "experiment", pick: "latest", place: "experiment:ID" });
  if (row.kind !== "experiment")
    throw new InputError(`${row.id.slice(0, 8)} is a ${row.kind} evaluation, not an experiment`, {
      place: "experiment:ID",
    });
  const result = row.status === "completed" ? await store.evaluations.result(row.id) : undefined;
  if (result === undefined || result === null)
    throw new InputError(
      `experiment ${row.id.slice(0, 8)} has not finished (${row.status}); run it to the end first`,
      { place: "experiment:ID" },
    );
  return { id: row.id, result };
}

/** What `validate` needs of a survey question with real answers: the spec comparing it with the arm's column. */
export function surveyQuestionSpec(
  question: SurveyQuestion & { empirical: { column: string } },
): QuestionSpec {
  return {
    question: question.id,
    column: question.empirical.column,
    simulated_column: question.id,
    kind: question.kind,
    ...(question.scale === undefined ? {} : { scale: { points: scaleRange(question.scale)! } }),
    ...(question.options === undefined ? {} : { options: question.options }),
  };
}

type EmpiricalQuestion = SurveyQuestion & { empirical: { file: string; column: string } };

/** The survey questions that name real answers. */
export function empiricalQuestions(survey: readonly SurveyQuestion[] | undefined): EmpiricalQuestion[] {
  return (survey ?? []).filter((q): q is EmpiricalQuestion => q.empirical !== undefined);
}

/**
 * Reads every real answers file the survey names and checks its column, before an experiment runs: bad input
 * stops it having called no model. The tables, by file.
 */
export function readEmpirical(survey: readonly SurveyQuestion[] | undefined): Map<string, AnswerTable> {
  const tables = new Map<string, AnswerTable>();
  for (const q of empiricalQuestions(survey)) {
    const table = tables.get(q.empirical.file) ?? readAnswerTable(q.empirical.file);
    requireColumn(table, q.empirical.column, `survey question "${q.id}"'s empirical column`);
    tables.set(q.empirical.file, table);
  }
  return tables;
}

export interface ArmValidation {
  arm: string;
  validation: Validation;
  answers: QuestionAnswers[];
}

/**
 * Each arm's survey answers validated against the real ones, question by question (only the questions with
 * real answers). Stored with `storeValidation({ experiment })`, each names the experiment it validates.
 */
export function validateExperimentArms({
  document,
  experimentId,
  survey,
  tables = readEmpirical(survey),
  thresholds,
}: {
  document: unknown;
  experimentId: string;
  survey: readonly SurveyQuestion[] | undefined;
  tables?: Map<string, AnswerTable>;
  thresholds?: Partial<ValidationThresholds>;
}): ArmValidation[] {
  const questions = empiricalQuestions(survey);
  if (questions.length === 0) return [];
  const source = `experiment ${experimentId.slice(0, 8)}`;
  const arms = surveyArmsOf(document, source);
  return Object.keys(arms).map((arm) => {
    const simulated = armAnswerTable(arms, arm, source);
    const answers = questions.map((q) =>
      typedAnswers(surveyQuestionSpec(q), tables.get(q.empirical.file)!, simulated),
    );
    const files = [...new Set(questions.map((q) => q.empirical.file))];
    const validation = validateAnswers({
      questions: answers,
      real: files.join(", "),
      simulated: simulated.file,
      thresholds,
    });
    return { arm, validation, answers };
  });
}
