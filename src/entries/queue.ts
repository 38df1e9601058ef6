// The package's `dramaturg/queue` entry: workers that judge evaluations queued on a PostgreSQL store (pg-boss).
// test/public-api.test.ts pins this list.
export type { RunningWorker, WorkerEvent, WorkerOptions } from "../queue/index.ts";
export {
  /** Starts a worker on a PostgreSQL store's queue: it takes jobs until `stop()`, which drains it. */
  startWorker,
} from "../queue/index.ts";
