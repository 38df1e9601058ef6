// `converse --queue`: each job file's conversations (one per trial) stored and queued for `dramaturg worker`s,
// then followed until every one has ended, giving what an in-process run gives (each job's trials, or why it
// could not complete) for converse to print the same way; with --detach, their evaluation ids are printed.

import type { ConversationJob, ConversationJobsOutcome } from "../conversations/index.ts";
import { InputError, parseStoreLocation } from "../core/index.ts";
import type { EnqueueConversationsOptions } from "../queue/index.ts";

export interface QueuedConversationsFlags
  extends Omit<EnqueueConversationsOptions, "store" | "connectionString" | "passes" | "seed" | "trials"> {
  /** The store's location: a PostgreSQL server the workers reach. */
  db: string;
  passes: "both" | "without" | "with";
  seed: number;
  trials: number;
  minScore?: number;
  detach?: boolean;
  progress?: boolean;
}

/** Queues the loaded jobs and follows them (or, detached, prints their ids and returns undefined). */
export async function runQueuedConversations(
  loaded: readonly { file: string; job: ConversationJob }[],
  flags: QueuedConversationsFlags,
): Promise<ConversationJobsOutcome | undefined> {
  if (parseStoreLocation(flags.db).kind !== "postgres")
    throw new InputError(
      "--queue needs a PostgreSQL store that workers can reach: pass --db postgres://… (this store is local to this process)",
      { place: "--queue" },
    );
  const { checkQueueSettings, followTellingOfNoWorker } = await import("./queued-wait.ts");
  await checkQueueSettings();
  const [
    { enqueueConversations, followConversations, CONVERSATION_JOBS },
    { openStore },
    { conversationTrialsOf },
  ] = await Promise.all([
    import("../queue/index.ts"),
    import("../store/index.ts"),
    import("../conversations/index.ts"),
  ]);
  const store = await openStore(flags.db);
  try {
    const queued = await enqueueConversations(
      loaded.map(({ file, job }) => ({ name: file, job })),
      {
        store,
        connectionString: flags.db,
        userModel: flags.userModel,
        userBaseUrl: flags.userBaseUrl,
        userApiKeyEnv: flags.userApiKeyEnv,
        judge: flags.judge,
        judgeBaseUrl: flags.judgeBaseUrl,
        judgeApiKeyEnv: flags.judgeApiKeyEnv,
        targetUrl: flags.targetUrl,
        passes: flags.passes,
        seed: flags.seed,
        trials: flags.trials,
        simulatedUser: flags.simulatedUser,
      },
    );
    const ids = queued.flatMap((q) => q.evaluationIds);
    if (flags.detach) {
      process.stdout.write(ids.map((id) => `${id}\n`).join(""));
      return undefined;
    }
    process.stderr.write(
      `queued ${ids.length} conversation${ids.length === 1 ? "" : "s"} as ${ids.length} job${ids.length === 1 ? "" : "s"}; waiting for workers\n`,
    );
    const live = process.stderr.isTTY === true && flags.progress !== false;
    let ended: Awaited<ReturnType<typeof followConversations>>;
    try {
      const waiting = { store, db: flags.db, queue: CONVERSATION_JOBS, id: ids[0]! };
      const matching = ids.map((id) => ({ evaluation_id: id }));
      const what = `conversation ${ids[0]}${ids.length > 1 ? ` (or the ${ids.length - 1} others)` : ""}`;
      ended = await followTellingOfNoWorker({ ...waiting, matching, what }, () =>
        followConversations(store, flags.db, ids, {
          onProgress: (n) => {
            if (live) process.stderr.write(`\r\x1b[2Kconversations ${n}/${ids.length}`);
          },
        }),
      );
    } finally {
      if (live) process.stderr.write("\r\x1b[2K");
    }
    const outcome: ConversationJobsOutcome = { slots: [], failures: [] };
    for (const { name, evaluationIds } of queued) {
      const trials = evaluationIds.map((id) => ended.get(id)!);
      const failed = trials.find((t) => t.status === "failed");
      if (failed?.status === "failed") {
        outcome.slots.push(undefined);
        outcome.failures.push({ job: name, error: new Error(failed.error) });
        continue;
      }
      const results = trials.map((t) => (t.status === "completed" ? t.result : undefined)!);
      outcome.slots.push(conversationTrialsOf(name, results, flags.minScore));
    }
    return outcome;
  } finally {
    await store.close();
  }
}
