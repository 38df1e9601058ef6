// The one bounded pool: work on a list of items, a few at once, for every family that runs independent
// pieces side by side (an experiment's environment runs, converse's jobs).

export interface PoolOptions {
  /** Items worked on at once, at most (at least 1). */
  limit: number;
  /** Once aborted, no further item starts; those under way finish (or heed the signal themselves). */
  signal?: AbortSignal;
}

/**
 * Runs `work` on each item, at most `limit` at once, started in the items' order, and resolves once every
 * started item has finished. No item starts once `signal` has aborted. When `work` throws, no further item
 * starts either: those under way finish, and the pool rejects with the first error.
 */
export async function pool<T>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
  { limit, signal }: PoolOptions,
): Promise<void> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a whole number ≥ 1, got ${limit}`);
  let next = 0;
  let failed = false;
  let failure: unknown;
  const worker = async () => {
    while (next < items.length && !failed && !signal?.aborted) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        if (!failed) failure = error;
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed) throw failure;
}
