// Finds a stored evaluation by what a person types: its id, one of its runs' ids, the first 8+
// characters of either (as `dramaturg runs` prints them), or nothing for the latest unfinished one.
import { InputError } from "../core/index.ts";
import type { EvaluationKind, EvaluationRow, Store } from "../store/index.ts";

export interface FindEvaluationOptions {
  /** Only evaluations of this kind. Default: persona. */
  kind?: EvaluationKind;
  /** With no id: the latest evaluation (`latest`) or the latest that did not complete (`unfinished`, the default). */
  pick?: "latest" | "unfinished";
  /** Where the id came from, for messages (e.g. `--resume`). */
  place?: string;
}

/** The evaluation an id (or prefix) names; with no id, the latest one of `kind` that did not complete. */
export async function findEvaluation(
  store: Store,
  id: string | undefined,
  { kind = "persona", pick = "unfinished", place }: FindEvaluationOptions = {},
): Promise<EvaluationRow> {
  if (id === undefined) {
    const latest =
      pick === "unfinished"
        ? await store.evaluations.latestIncomplete(kind)
        : (await store.evaluations.list({ kind, limit: 1 }))[0];
    if (!latest)
      throw new InputError(
        pick === "unfinished"
          ? `no interrupted ${kind} evaluation to resume in this store`
          : `no ${kind} evaluation in this store`,
        { place: store.location },
      );
    return latest;
  }
  if (id.length < 8) throw new InputError("give at least the first 8 characters of the id", { place });
  const direct = id.length === 36 ? await store.evaluations.get(id) : undefined;
  if (direct) return direct;
  const run = id.length === 36 ? await store.runs.get(id) : undefined;
  if (run?.evaluation_id) return (await store.evaluations.get(run.evaluation_id))!;
  // A prefix: search recent evaluations and runs.
  const evaluations = (await store.evaluations.list({ kind, limit: 500 })).filter((e) => e.id.startsWith(id));
  const runs = (await store.runs.list({ limit: 2000 })).filter((r) => r.id.startsWith(id) && r.evaluation_id);
  const ids = new Set([...evaluations.map((e) => e.id), ...runs.map((r) => r.evaluation_id!)]);
  if (ids.size === 0) throw new InputError(`no evaluation or run with id ${id}`, { place });
  if (ids.size > 1) throw new InputError(`id ${id} is ambiguous; give more characters`, { place });
  return (await store.evaluations.get([...ids][0]!))!;
}

/**
 * The result document stored with a completed evaluation of `kind` (the latest, or by id or its first 8+
 * characters), checked to be in `format`; `noun` names it in messages ("session analysis").
 */
export async function loadStoredResult<R extends { format: string }>(
  store: Store,
  id: string | undefined,
  { kind, format, noun }: { kind: EvaluationKind; format: string; noun: string },
): Promise<R & { evaluation_id: string }> {
  const evaluation = await findEvaluation(store, id, { kind, pick: "latest", place: "id" });
  const short = evaluation.id.slice(0, 8);
  if (evaluation.kind !== kind)
    throw new InputError(`${short} is a ${evaluation.kind} evaluation, not a ${noun}`);
  if (evaluation.status !== "completed")
    throw new InputError(`${noun} ${short} is ${evaluation.status}; it has no result`);
  const result = (await store.evaluations.result(evaluation.id)) as R | undefined;
  if (result?.format !== format)
    throw new InputError(`${noun} ${short} was stored without its result; run it again`);
  return { ...result, evaluation_id: evaluation.id };
}
