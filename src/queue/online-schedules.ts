// Online rules on the queue: scheduled (one pg-boss cron schedule per rule, keyed by its name), run at once
// on demand, and reported — their schedules with their last runs and alerts (`dramaturg online status`; the
// runs and alerts themselves are the store's, which the dashboard reads).
import { setTimeout as sleep } from "node:timers/promises";
import { InputError, StoreError } from "../core/index.ts";
import type { Store } from "../engine/index.ts";
import { type OnlineRule, type OnlineTick, OnlineTickSchema } from "../online/index.ts";
import type { OnlineAlertSummary, OnlineRunSummary } from "../store/index.ts";
import { requireQueueStore, withQueue } from "./boss.ts";
import { ONLINE_TICKS } from "./queues.ts";

/**
 * Schedules every rule (replacing the schedule of a rule of the same name, keeping when it was first
 * scheduled) and unschedules the rules no longer given. A cron expression pg-boss refuses is bad input.
 */
export async function scheduleOnlineRules(
  store: Store,
  connectionString: string,
  ticks: readonly OnlineTick[],
): Promise<{ scheduled: string[]; removed: string[] }> {
  return withQueue(store, connectionString, async (boss) => {
    const existing = await boss.getSchedules(ONLINE_TICKS);
    for (const [i, tick] of ticks.entries()) {
      const before = existing.find((s) => s.key === tick.rule.name);
      const since = OnlineTickSchema.safeParse(before?.data).data?.since ?? tick.since;
      await boss
        .schedule(ONLINE_TICKS, tick.rule.schedule, { ...tick, since }, { key: tick.rule.name, tz: "UTC" })
        .catch((error: unknown) => {
          throw new InputError(
            `pg-boss cannot schedule "${tick.rule.schedule}": ${error instanceof Error ? error.message : String(error)}`,
            { place: `online[${i}].schedule` },
          );
        });
    }
    const names = new Set(ticks.map((t) => t.rule.name));
    const removed = existing.filter((s) => !names.has(s.key)).map((s) => s.key);
    for (const key of removed) await boss.unschedule(ONLINE_TICKS, key);
    return { scheduled: ticks.map((t) => t.rule.name), removed };
  });
}

export const ONLINE_STATUS_FORMAT = "dramaturg.online-status/v1";

export interface OnlineStatus {
  format: typeof ONLINE_STATUS_FORMAT;
  rules: {
    rule: OnlineRule;
    /** The schedule as pg-boss keeps it (cron, UTC). */
    schedule: string;
    /** When it was first scheduled: its first run's window starts there. */
    since: string;
    runs: OnlineRunSummary[];
    open_alerts: OnlineAlertSummary[];
  }[];
  /** The newest alerts of every rule, scheduled or not any more. */
  alerts: OnlineAlertSummary[];
}

/** The scheduled rules with their last runs and open alerts, and the newest alerts. */
export async function onlineStatus(
  store: Store,
  connectionString: string,
  { runs = 5 }: { runs?: number } = {},
): Promise<OnlineStatus> {
  requireQueueStore(store);
  const schedules = await withQueue(store, connectionString, (boss) => boss.getSchedules(ONLINE_TICKS));
  const rules = [];
  for (const schedule of [...schedules].sort((a, b) => a.key.localeCompare(b.key))) {
    const tick = OnlineTickSchema.safeParse(schedule.data);
    if (!tick.success) continue;
    rules.push({
      rule: tick.data.rule,
      schedule: schedule.cron,
      since: tick.data.since,
      runs: await store.online.runs({ rule: tick.data.rule.name, limit: runs }),
      open_alerts: await store.online.alerts({ rule: tick.data.rule.name, open: true, limit: 100 }),
    });
  }
  return { format: ONLINE_STATUS_FORMAT, rules, alerts: await store.online.alerts({ limit: 20 }) };
}

/**
 * Runs a rule now, through the queue (a worker takes it as it takes a scheduled run), and waits for the
 * run to end (and its export, when its rule exports): its summary. Its window starts at `since`, else where its schedule started, else at the
 * beginning. `timeoutMs` bounds the wait (the run goes on).
 */
export async function runOnlineRuleNow(
  store: Store,
  connectionString: string,
  given: Omit<OnlineTick, "since"> & { since?: string },
  { timeoutMs = 3_600_000 }: { timeoutMs?: number } = {},
): Promise<OnlineRunSummary> {
  requireQueueStore(store);
  return withQueue(store, connectionString, async (boss) => {
    // Without a start, a scheduled rule's first window starts when it was scheduled; else every stored item is new.
    const scheduled = (await boss.getSchedules(ONLINE_TICKS)).find((s) => s.key === given.rule.name);
    const since =
      given.since ?? OnlineTickSchema.safeParse(scheduled?.data).data?.since ?? new Date(0).toISOString();
    const tick: OnlineTick = { ...given, since };
    const jobId = await boss.send(ONLINE_TICKS, tick);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const row = jobId ? await store.online.runOfJob(jobId) : undefined;
      if (row && row.status !== "queued") {
        // By its id: among the rule's newest runs it could be past any limit when many run at once.
        const [summary] = await store.online.runs({ id: row.id, limit: 1 });
        // A completed run of a rule that exports is reported once its export is kept (or its job ended).
        const exporting = tick.rule.export && summary?.status === "completed" && !summary.export;
        const ended = async () =>
          ["completed", "failed"].includes((await boss.getJobById(ONLINE_TICKS, jobId!))?.state ?? "");
        if (summary && (!exporting || (await ended()))) return summary;
      }
      // A job that failed before it made its run (a store fault) says why.
      const job = jobId ? await boss.getJobById(ONLINE_TICKS, jobId) : null;
      if (!row && job?.state === "failed")
        throw new StoreError(
          `the run of online rule "${tick.rule.name}" failed: ${(job.output as { message?: string } | null)?.message ?? "no reason given"}`,
        );
      if (Date.now() > until)
        throw new StoreError(
          `the run of online rule "${tick.rule.name}" did not end within ${timeoutMs} ms: is a worker (dramaturg worker) running?`,
        );
      await sleep(250);
    }
  });
}
