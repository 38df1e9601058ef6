// The pending → running → completed | failed | interrupted life of evaluations and runs, shared by both tables.
import { StoreError } from "../core/index.ts";
import { isUuid } from "./columns.ts";
import type { Queryable } from "./db.ts";

export type LifecycleStatus = "pending" | "running" | "completed" | "failed" | "interrupted";

/**
 * Moves a row to a new status when it is in one of `from`, setting `set` (SQL assignments with
 * parameters numbered from $3). Throws a StoreError naming the row's actual status otherwise.
 */
export async function transition<T>(
  db: Queryable,
  {
    table,
    id,
    from,
    to,
    set = [],
    params = [],
    returning = "*",
  }: {
    table: "evaluations" | "evaluation_runs";
    id: string;
    from: readonly LifecycleStatus[];
    to: LifecycleStatus;
    set?: readonly string[];
    params?: unknown[];
    /** The columns to return (default all). */
    returning?: string;
  },
): Promise<T> {
  const what = table === "evaluations" ? "evaluation" : "run";
  if (!isUuid(id)) throw new StoreError(`${what} ${id} does not exist`);
  const assignments = ["status = $2", ...set].join(", ");
  const result = await db.query<T>(
    `UPDATE ${table} SET ${assignments} WHERE id = $1 AND status = ANY($${params.length + 3}::text[]) RETURNING ${returning}`,
    [id, to, ...params, [...from]],
  );
  const row = result.rows[0];
  if (row) return row;
  const current = await db.query<{ status: string }>(`SELECT status FROM ${table} WHERE id = $1`, [id]);
  throw transitionRefused(what, id, current.rows[0]?.status, to);
}

/** The error of a transition that is not allowed: the row is missing, or in a status `to` cannot follow. */
export function transitionRefused(
  what: "evaluation" | "run",
  id: string,
  status: string | undefined,
  to: LifecycleStatus,
): StoreError {
  return new StoreError(
    status === undefined
      ? `${what} ${id} does not exist`
      : `${what} ${id} is ${status}; it cannot become ${to}`,
  );
}

/** One allowed move: from any of `from` to `to`. Every backend allows exactly these. */
export interface Transition {
  readonly from: readonly LifecycleStatus[];
  readonly to: LifecycleStatus;
}

/** Starting: a pending row, or a running, failed or interrupted one again (resume). Clears the previous ending. */
export const START = {
  from: ["pending", "running", "failed", "interrupted"],
  to: "running",
  set: ["started_at = now()", "completed_at = NULL", "error = NULL"],
} as const satisfies { from: readonly LifecycleStatus[]; to: LifecycleStatus; set: readonly string[] };

/** Interrupting: a running row stops where it is (its scores kept), to be resumed. */
export const INTERRUPT = {
  from: ["pending", "running"],
  to: "interrupted",
  set: ["completed_at = now()"],
} as const satisfies { from: readonly LifecycleStatus[]; to: LifecycleStatus; set: readonly string[] };

/** Completing: only a running row. */
export const COMPLETE = { from: ["running"], to: "completed" } as const satisfies Transition;

/** Failing: a pending or running row, keeping its error. */
export const FAIL = { from: ["pending", "running"], to: "failed" } as const satisfies Transition;

/** Whether an evaluation's work may still be finished: it has not ended. */
export const unfinished = (status: LifecycleStatus | undefined) =>
  status === "pending" || status === "running";

/**
 * Runs `finish` unless `key` is held in this process: the lock of a store that only one process opens (PGlite,
 * memory), where a transaction around `finish` would hold back the statements it sends itself.
 */
export async function finishOnceInProcess<T>(
  held: Set<string>,
  key: string,
  status: () => Promise<LifecycleStatus | undefined>,
  finish: () => Promise<T>,
): Promise<T | undefined> {
  if (held.has(key)) return undefined;
  held.add(key);
  try {
    return unfinished(await status()) ? await finish() : undefined;
  } finally {
    held.delete(key);
  }
}
