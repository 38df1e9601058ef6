// A run named the way the pages show it: its uuid, or its first 8 or more characters (as `dramaturg show ID`
// takes them), found through the store's id-prefix search (a primary-key range, not a scan of recent runs).
import { z } from "zod";
import { MAX_SEARCH_LIMIT, type RunRow, type Store } from "../store/index.ts";
import { PageInputError } from "./page-query.ts";

const isUuid = (ref: string) => z.uuid().safeParse(ref).success;

/** The shortest prefix taken, as the CLI's: shorter ones are too often ambiguous. */
export const MIN_RUN_PREFIX = 8;

export const RUN_REF_ERROR =
  "expected a run id (a uuid, or its first 8 or more characters as the pages show it)";

/** Whether `ref` can name a run: a uuid, or 8 or more of its first characters. */
export function isRunRef(ref: string): boolean {
  // Hyphens in the wrong places are left to the search, whose id range then matches no run.
  return isUuid(ref) || /^[0-9a-f][0-9a-f-]{7,35}$/i.test(ref);
}

/**
 * The run `ref` names; undefined when none does. A malformed ref, or a prefix two runs share, is a
 * PageInputError naming `parameter` (a 400 page that says to give more characters).
 */
export async function findRun(store: Store, ref: string, parameter: string): Promise<RunRow | undefined> {
  if (isUuid(ref)) return store.runs.get(ref);
  if (!isRunRef(ref)) throw new PageInputError(RUN_REF_ERROR, parameter);
  const prefix = ref.trim().toLowerCase();
  // The search also finds runs of agents named like the query; only ids starting with the prefix count.
  const { runs } = await store.search.query({ q: prefix, kinds: ["run"], limit: MAX_SEARCH_LIMIT });
  const ids = [...new Set(runs.hits.filter((r) => r.id.startsWith(prefix)).map((r) => r.id))];
  if (ids.length > 1)
    throw new PageInputError(
      `${ref} is the start of ${ids.length} runs' ids; give more characters`,
      parameter,
    );
  return ids[0] === undefined ? undefined : store.runs.get(ids[0]);
}
