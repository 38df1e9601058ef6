// Whether a worker has taken any of a queued evaluation's jobs yet: what a command following it tells a user
// whose workers are missing.
import type { Store } from "../engine/index.ts";
import { withQueue } from "./boss.ts";

/**
 * True once a job of `queue` whose data holds one of `matching` (e.g. `{ evaluation_id }`) has left the
 * `created` state: taken (active), done, or failed and waiting to be tried again.
 */
export function anyJobTaken(
  store: Store,
  connectionString: string,
  queue: string,
  matching: readonly Record<string, string>[],
): Promise<boolean> {
  return withQueue(store, connectionString, async (boss) => {
    for (const data of matching)
      if ((await boss.findJobs(queue, { data })).some((job) => job.state !== "created")) return true;
    return false;
  });
}
