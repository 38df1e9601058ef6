// What every queued evaluation shares, whatever its kind: ending it failed when its work cannot be done.
import type { Store } from "../engine/index.ts";

/** Marks a queued evaluation failed (`why: reason`), unless it ended already. */
export async function failQueuedEvaluation(
  store: Store,
  evaluationId: string,
  why: string,
  error: unknown,
): Promise<void> {
  const row = await store.evaluations.get(evaluationId);
  if (!row || row.status === "completed" || row.status === "failed") return;
  const message = error instanceof Error ? error.message : String(error);
  await store.evaluations.fail(evaluationId, `${why}: ${message}`);
}
