// What a `--queue` command says while it waits and no worker has taken any of its jobs: that nothing has, how to
// start a worker on the same store (its password hidden), how to queue without waiting, and how to look later.
import { InputError, redactUrl } from "../core/index.ts";
import type { Store } from "../store/index.ts";

/** Seconds without a job taken before the notice. DRAMATURG_QUEUE_NOTICE_SECONDS sets it (tests make it short). */
export function noWorkerNoticeSeconds(): number {
  const text = process.env.DRAMATURG_QUEUE_NOTICE_SECONDS;
  if (text === undefined || text === "") return 5;
  const given = Number(text);
  if (!Number.isFinite(given) || given < 0)
    throw new InputError(`expected a number of seconds, got "${text}"`, {
      place: "DRAMATURG_QUEUE_NOTICE_SECONDS",
    });
  return given;
}

/** Refuses a bad DRAMATURG_QUEUE_* setting before anything is queued (exit 2, nothing written). */
export async function checkQueueSettings(): Promise<void> {
  noWorkerNoticeSeconds();
  (await import("../queue/index.ts")).jobHeartbeatSeconds();
}

export interface WaitingForWorkers {
  store: Store;
  /** The store's location, as the command was given it (the workers need the same). */
  db: string;
  /** The pg-boss queue of the jobs, and what their data holds (`{ evaluation_id }`, …), one per job or group. */
  queue: string;
  matching: readonly Record<string, string>[];
  /** What `show` prints: `evaluation 3f2a…`, and the id to pass it. */
  what: string;
  id: string;
}

/** The notice, as printed; the password of `db` shown as `***`. */
export function noWorkerNotice(
  { db, what, id }: Pick<WaitingForWorkers, "db" | "what" | "id">,
  seconds: number,
) {
  const location = redactUrl(db);
  return [
    `no worker has taken a job of ${what} in ${seconds} s. Start one, on any machine that reaches the database:`,
    `  npx dramaturg worker --db ${location}`,
    "Or stop waiting (Ctrl-C: its jobs stay queued; --detach queues without waiting) and look later:",
    `  npx dramaturg show ${id} --db ${location}`,
    "",
  ].join("\n");
}

/**
 * Runs `follow` (waiting for the workers); if none has taken a job of it after the notice's seconds, says so on
 * stderr, once.
 */
export async function followTellingOfNoWorker<T>(
  waiting: WaitingForWorkers,
  follow: () => Promise<T>,
): Promise<T> {
  const seconds = noWorkerNoticeSeconds();
  let done = false;
  const timer = setTimeout(() => {
    void (async () => {
      const { anyJobTaken } = await import("../queue/index.ts");
      const taken = await anyJobTaken(waiting.store, waiting.db, waiting.queue, waiting.matching);
      if (!taken && !done) process.stderr.write(noWorkerNotice(waiting, seconds));
    })().catch(() => {
      // Only a hint: the follow itself reports a store that went away.
    });
  }, seconds * 1000);
  try {
    return await follow();
  } finally {
    done = true;
    clearTimeout(timer);
  }
}
