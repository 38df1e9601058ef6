// A validation as a stored evaluation of kind `validation`: its `dramaturg.validation/v1` document kept as the
// result (exactly what `validate --format json` printed), its name, the experiment it validates and its summary
// in the row's configuration (what a list shows without reading documents), and a numeric question's answers
// as the input (the document keeps no counts for them; the dashboard's chart draws their histograms).
import { InputError } from "../core/index.ts";
import type { StoredListQuery } from "../engine/index.ts";
import { type EvaluationRow, findEvaluation, loadStoredResult, type Store } from "../engine/index.ts";
import type { NumericAnswers } from "./validation-chart.ts";
import { VALIDATION_FORMAT, type Validation, VERDICTS, type Verdict } from "./validation-format.ts";

/** A stored validation read back: its document, and the evaluation that holds it. */
export type StoredValidation = Validation & { evaluation_id: string };

/** What a stored validation's row keeps beside its document. */
interface ValidationConfig {
  name: string;
  experiment: string | null;
  questions: number;
  failed: number;
  verdicts: Record<Verdict, number>;
}

/** The numeric answers kept with a validation: question → both sides' answers. */
type KeptAnswers = Record<string, { real: number[]; simulated: number[] }>;

export interface StoreValidationOptions {
  store: Store;
  validation: Validation;
  /** What lists call it. Default: the two files, `SIMULATED against REAL`. */
  name?: string;
  /**
   * The stored experiment whose simulated answers these are (its id or first 8+ characters): checked to be one,
   * then kept in the document by its full id. An id of nothing or of another kind is an InputError.
   */
  experiment?: string;
  /** A numeric question's answers by name, kept for its histogram. */
  numeric?: ReadonlyMap<string, NumericAnswers>;
}

/** The default name of a validation: its two files. */
export function validationName(v: Validation): string {
  return `${v.simulated.file} against ${v.real.file}`;
}

/**
 * The full id of the stored experiment `id` (or its first 8+ characters) names; an InputError, naming
 * `--experiment`, when it names nothing or something else.
 */
export async function experimentIdOf(store: Store, id: string): Promise<string> {
  const row = await findEvaluation(store, id, { kind: "experiment", pick: "latest", place: "--experiment" });
  if (row.kind !== "experiment")
    throw new InputError(`${row.id.slice(0, 8)} is a ${row.kind} evaluation, not an experiment`, {
      place: "--experiment",
    });
  return row.id;
}

/** Stores a validation, completed, as an evaluation of kind `validation`: its id and the document kept. */
export async function storeValidation({
  store,
  validation: computed,
  name,
  experiment,
  numeric,
}: StoreValidationOptions): Promise<{ evaluation_id: string; validation: Validation }> {
  // Checked before anything is written; the experiment takes its place in the document's order.
  const { format, real, simulated, experiment: _, ...rest } = computed;
  const validation: Validation =
    experiment === undefined
      ? computed
      : { format, real, simulated, experiment: await experimentIdOf(store, experiment), ...rest };
  const config: ValidationConfig = {
    name: name ?? validationName(validation),
    experiment: validation.experiment ?? null,
    questions: validation.summary.questions,
    failed: validation.summary.failed,
    verdicts: validation.summary.verdicts,
  };
  const kept: KeptAnswers = {};
  for (const [question, answers] of numeric ?? [])
    kept[question] = { real: Array.from(answers.real), simulated: Array.from(answers.simulated) };
  const row = await store.evaluations.create({
    kind: "validation",
    source: config.name,
    config: { ...config },
    input: Object.keys(kept).length > 0 ? { numeric: kept } : undefined,
  });
  await store.evaluations.start(row.id);
  await store.evaluations.complete(row.id, { result: validation });
  return { evaluation_id: row.id, validation };
}

/** A stored validation by id (or its first 8+ characters); the latest with none. */
export function loadValidation({ store, id }: { store: Store; id?: string }): Promise<StoredValidation> {
  return loadStoredResult<Validation>(store, id, {
    kind: "validation",
    format: VALIDATION_FORMAT,
    noun: "validation",
  });
}

/** The numeric answers kept with a stored validation, for its chart (empty when none were). */
export async function validationAnswers(store: Store, id: string): Promise<Map<string, NumericAnswers>> {
  const input = (await store.evaluations.input(id)) as { numeric?: KeptAnswers } | undefined;
  return new Map(Object.entries(input?.numeric ?? {}));
}

/** One stored validation in a list. What comes from its summary is null for one stored without it. */
export interface ValidationListRow {
  id: string;
  created_at: string;
  status: string;
  name: string;
  /** The stored experiment it validates, by id. */
  experiment: string | null;
  questions: number | null;
  /** Questions whose verdict is not `consistent`. */
  failed: number | null;
  verdicts: Record<Verdict, number> | null;
}

const count = (value: unknown): number | null => (typeof value === "number" ? value : null);

/** A validation's list line from its row. */
export function validationListRow(row: EvaluationRow): ValidationListRow {
  const c = row.config as Partial<Record<keyof ValidationConfig, unknown>>;
  const verdicts = c.verdicts as Record<string, unknown> | undefined;
  return {
    id: row.id,
    created_at: row.created_at,
    status: row.status,
    name: typeof c.name === "string" ? c.name : row.source,
    experiment: typeof c.experiment === "string" ? c.experiment : null,
    questions: count(c.questions),
    failed: count(c.failed),
    verdicts:
      verdicts && typeof verdicts === "object"
        ? (Object.fromEntries(VERDICTS.map((v) => [v, count(verdicts[v]) ?? 0])) as Record<Verdict, number>)
        : null,
  };
}

/** Stored validations newest first, a line each: `runs --kind validation`, `/api/validations`. */
export async function listValidations({
  store,
  limit = 50,
  ...page
}: { store: Store; limit?: number } & Omit<StoredListQuery, "limit">): Promise<ValidationListRow[]> {
  return (await store.evaluations.list({ kind: "validation", limit, ...page })).map(validationListRow);
}

/** The validations that name a stored experiment, newest first (at most `limit`). */
export async function validationsOfExperiment(
  store: Store,
  experiment: string,
  limit = 500,
): Promise<ValidationListRow[]> {
  return (await listValidations({ store, limit })).filter((r) => r.experiment === experiment);
}
