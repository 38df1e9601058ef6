// The package's `dramaturg/queue` entry: workers that run what is queued on a PostgreSQL store (pg-boss), and
// the online rules they run on a schedule. test/public-api.test.ts pins this list.
export type { RateLimit } from "../judge/index.ts";
export type { OnlineAlert, OnlineRule, OnlineTick } from "../online/index.ts";
export type { OnlineStatus, RunningWorker, WorkerEvent, WorkerOptions } from "../queue/index.ts";
export {
  /** The scheduled online rules, their last runs and open alerts (`dramaturg online status`). */
  onlineStatus,
  /** Runs an online rule now through the queue and waits for its run (`dramaturg online run`). */
  runOnlineRuleNow,
  /** Puts online rules on pg-boss's scheduler, replacing theirs and removing those not given (`dramaturg online schedule`). */
  scheduleOnlineRules,
  /** Starts a worker on a PostgreSQL store's queue: it takes jobs until `stop()`, which drains it. */
  startWorker,
} from "../queue/index.ts";
export type { OnlineAlertSummary, OnlineRunSummary } from "../store/index.ts";
