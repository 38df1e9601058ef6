// An experiment's result document read back from the store by its id (or the id's first 8+ characters, as
// `dramaturg show` takes them): exactly the document the run returned and `--out` wrote. It is the experiment
// kind's loader (stored-kind.ts), and `experiment report ID`'s.
import { InputError } from "../core/index.ts";
import { findEvaluation, openStore, type Store, storeExists } from "../engine/index.ts";
import { EXPERIMENT_RESULT_FORMAT } from "./compare.ts";
import type { ExperimentResultDocument } from "./run-experiment.ts";

export interface StoredExperiment {
  evaluation_id: string;
  document: ExperimentResultDocument;
}

/** Whether a command argument reads as an experiment id (or its first 8+ characters) rather than a file name. */
export function looksLikeExperimentId(text: string): boolean {
  return /^[0-9a-f][0-9a-f-]{7,35}$/i.test(text);
}

/**
 * The completed experiment an id names in a store (an open Store or a location); the latest with no id. An
 * unknown id, an id of something else, or an experiment that did not finish is an InputError saying so.
 */
export async function loadExperimentResult({
  store: location,
  id,
}: {
  store: Store | string;
  id?: string;
}): Promise<StoredExperiment> {
  if (typeof location === "string" && !storeExists(location)) {
    const what = id === undefined ? "an experiment" : `experiment ${id}`;
    throw new InputError(`no store here to read ${what} from`, { place: location });
  }
  const opened = typeof location === "object" ? undefined : await openStore(location);
  const store = typeof location === "object" ? location : opened!;
  try {
    const row = await findEvaluation(store, id, { kind: "experiment", pick: "latest", place: "ID" });
    const short = row.id.slice(0, 8);
    if (row.kind !== "experiment")
      throw new InputError(`${short} is a ${row.kind} evaluation, not an experiment`);
    if (row.status !== "completed")
      throw new InputError(
        `experiment ${short} is ${row.status}; it has no result yet (run it again with the same flags and --db to finish it)`,
      );
    const document = (await store.evaluations.result(row.id)) as ExperimentResultDocument | undefined;
    if (document?.format !== EXPERIMENT_RESULT_FORMAT)
      throw new InputError(`experiment ${short} was stored without its result; run it again`);
    return { evaluation_id: row.id, document };
  } finally {
    await opened?.close();
  }
}
