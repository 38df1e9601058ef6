// Online rules on the queue: scheduled (one pg-boss cron schedule per rule, keyed by its name), run at once
// on demand, and reported — their schedules, their last runs and their alerts (`dramaturg online status`,
// the dashboard's agent page).
import { setTimeout as sleep } from "node:timers/promises";
import { InputError, StoreError } from "../core/index.ts";
import type { Queryable, Store } from "../engine/index.ts";
import { requireQueueStore, withQueue } from "./boss.ts";
import { ONLINE_TICKS, type OnlineRule, type OnlineTick, OnlineTickSchema } from "./online-rule.ts";

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

/** A row of online_runs as reports show it. */
export interface OnlineRunSummary {
  id: string;
  rule: string;
  window_start: string;
  window_end: string;
  messages: number;
  sampled: number;
  status: "queued" | "completed" | "failed" | "empty";
  evaluation_id: string | null;
  /** Regressions found (open alerts or not), when completed. */
  regressions: number | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface OnlineAlertSummary {
  id: string;
  rule: string;
  agent_id: string;
  dimension: string;
  baseline: number;
  score: number;
  online_run_id: string;
  evaluation_id: string | null;
  /** The agent's run in that evaluation (its first trial). */
  run_id: string | null;
  opened_at: string;
  resolved_at: string | null;
  delivery: { status: string; attempts: number; http_status?: number; error?: string } | null;
}

const iso = (value: unknown) =>
  value === null || value === undefined ? null : new Date(value as string).toISOString();

/** A row of online_runs as the driver gives it (times as Dates, counts as strings). */
function runSummary(r: Record<string, unknown>): OnlineRunSummary {
  return {
    id: r.id as string,
    rule: r.rule as string,
    window_start: iso(r.window_start)!,
    window_end: iso(r.window_end)!,
    messages: Number(r.messages),
    sampled: Number(r.sampled),
    status: r.status as OnlineRunSummary["status"],
    evaluation_id: (r.evaluation_id as string | null) ?? null,
    regressions: r.status === "completed" ? Number(r.regressions) : null,
    error: (r.error as string | null) ?? null,
    created_at: iso(r.created_at)!,
    finished_at: iso(r.finished_at),
  };
}

/** The newest runs of a rule (or of every rule, or the one run `id`), newest first. */
export async function onlineRuns(
  db: Queryable,
  { rule, id, limit = 10 }: { rule?: string; id?: string; limit?: number } = {},
): Promise<OnlineRunSummary[]> {
  const rows = await db.query(
    `SELECT id, rule, window_start, window_end, messages, sampled, status, evaluation_id, error, created_at,
            finished_at,
            (SELECT count(*) FROM jsonb_array_elements(COALESCE(outcome -> 'checks', '[]'::jsonb)) c
              WHERE c ->> 'status' = 'regression') AS regressions
       FROM online_runs WHERE ($1::text IS NULL OR rule = $1) AND ($3::uuid IS NULL OR id = $3)
      ORDER BY created_at DESC, id LIMIT $2`,
    [rule ?? null, limit, id ?? null],
  );
  return rows.rows.map(runSummary);
}

/** Alerts, newest first: of an agent or a rule, open ones only if asked. */
export async function onlineAlerts(
  db: Queryable,
  { agent, rule, open, limit = 20 }: { agent?: string; rule?: string; open?: boolean; limit?: number } = {},
): Promise<OnlineAlertSummary[]> {
  const rows = await db.query(
    `SELECT a.id, a.rule, a.agent_id, a.dimension, a.baseline, a.score, a.online_run_id, r.evaluation_id,
            (SELECT er.id FROM evaluation_runs er WHERE er.evaluation_id = r.evaluation_id AND er.agent_id = a.agent_id
              ORDER BY er.trial LIMIT 1) AS run_id,
            a.opened_at, a.resolved_at, a.delivery
       FROM online_alerts a JOIN online_runs r ON r.id = a.online_run_id
      WHERE ($1::text IS NULL OR a.agent_id = $1) AND ($2::text IS NULL OR a.rule = $2)
        AND (NOT $3::boolean OR a.resolved_at IS NULL)
      ORDER BY a.opened_at DESC, a.id LIMIT $4`,
    [agent ?? null, rule ?? null, open ?? false, limit],
  );
  return rows.rows.map((r) => ({
    id: r.id as string,
    rule: r.rule as string,
    agent_id: r.agent_id as string,
    dimension: r.dimension as string,
    baseline: Number(r.baseline),
    score: Number(r.score),
    online_run_id: r.online_run_id as string,
    evaluation_id: (r.evaluation_id as string | null) ?? null,
    run_id: (r.run_id as string | null) ?? null,
    opened_at: iso(r.opened_at)!,
    resolved_at: iso(r.resolved_at),
    delivery: (r.delivery as OnlineAlertSummary["delivery"]) ?? null,
  }));
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
  const db = requireQueueStore(store);
  const schedules = await withQueue(store, connectionString, (boss) => boss.getSchedules(ONLINE_TICKS));
  const rules = [];
  for (const schedule of [...schedules].sort((a, b) => a.key.localeCompare(b.key))) {
    const tick = OnlineTickSchema.safeParse(schedule.data);
    if (!tick.success) continue;
    rules.push({
      rule: tick.data.rule,
      schedule: schedule.cron,
      since: tick.data.since,
      runs: await onlineRuns(db, { rule: tick.data.rule.name, limit: runs }),
      open_alerts: await onlineAlerts(db, { rule: tick.data.rule.name, open: true, limit: 100 }),
    });
  }
  return { format: ONLINE_STATUS_FORMAT, rules, alerts: await onlineAlerts(db, { limit: 20 }) };
}

/**
 * Runs a rule now, through the queue (a worker takes it as it takes a scheduled run), and waits for the
 * run to end: its summary. Its window starts at `since`, else where its schedule started, else at the
 * beginning. `timeoutMs` bounds the wait (the run goes on).
 */
export async function runOnlineRuleNow(
  store: Store,
  connectionString: string,
  given: Omit<OnlineTick, "since"> & { since?: string },
  { timeoutMs = 3_600_000 }: { timeoutMs?: number } = {},
): Promise<OnlineRunSummary> {
  const db = requireQueueStore(store);
  return withQueue(store, connectionString, async (boss) => {
    // Without a start, a scheduled rule's first window starts when it was scheduled; else every stored item is new.
    const scheduled = (await boss.getSchedules(ONLINE_TICKS)).find((s) => s.key === given.rule.name);
    const since =
      given.since ?? OnlineTickSchema.safeParse(scheduled?.data).data?.since ?? new Date(0).toISOString();
    const tick: OnlineTick = { ...given, since };
    const jobId = await boss.send(ONLINE_TICKS, tick);
    const until = Date.now() + timeoutMs;
    for (;;) {
      const rows = await db.query<{ id: string; status: string }>(
        "SELECT id, status FROM online_runs WHERE job_id = $1",
        [jobId],
      );
      const row = rows.rows[0];
      if (row && row.status !== "queued") {
        // By its id: among the rule's newest runs it could be past any limit when many run at once.
        const [summary] = await onlineRuns(db, { id: row.id, limit: 1 });
        if (summary) return summary;
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
