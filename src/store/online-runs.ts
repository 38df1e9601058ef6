// Continuous evaluation's rows (`online_runs`, `online_alerts`): each run of an online rule — the window of
// new messages or sessions it looked at, its sample, the evaluation it queued, how that compared with the
// agents' baselines — and the alerts it raised, one open per rule, agent and dimension. What reports and the
// dashboard read (runs, alerts) and what a worker running a rule writes, each run and its alerts under the
// rule's advisory lock, so that two runs at once never share a message or open an alert twice.
import { iso, isoOrNull, isUuid } from "./columns.ts";
import type { Db, Queryable } from "./db.ts";

/** A run of an online rule as reports show it. */
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
  /** What became of the export of its evaluation's scores, when its rule exports them. */
  export?: OnlineRunExport;
}

/** What became of a run's export (the tool and the counts; never a key or a host's credentials). */
export interface OnlineRunExport {
  to: string;
  /** The tool's host as the export ledger keys it (no credentials), once the export got so far. */
  destination?: string;
  status: "exported" | "partial" | "failed";
  /** Scores read, sent now, already there unchanged, and refused by the tool. */
  scores?: number;
  sent?: number;
  unchanged?: number;
  refused?: number;
  /** Why it failed or what was refused, in one line. */
  error?: string;
  at: string;
}

/** An alert of an online rule as reports and the dashboard show it. */
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
  delivery: OnlineAlertDelivery | null;
}

/** What became of an alert's post (never the URL: a webhook URL is a secret). */
export interface OnlineAlertDelivery {
  status: string;
  attempts: number;
  http_status?: number;
  error?: string;
}

/** What a run may sample: a message (its source, id and sender), or a stored session (its analysis, its id or `#place`). */
export interface OnlineCandidate {
  source: string;
  id: string;
  sender: string;
}

/** A run as the worker running it reads it. Window times are ISO strings, to the millisecond. */
export interface OnlineRunRow {
  id: string;
  rule: string;
  window_start: string;
  window_end: string;
  messages: number;
  sampled: number;
  evaluation_id: string | null;
  status: OnlineRunSummary["status"];
}

/** An agent's dimension (or session metric) held against its baseline by a run, as the run keeps it. */
export interface OnlineRunCheck {
  agent_id: string;
  dimension: string;
  /** The run's score, null when every verdict errored. */
  score: number | null;
  /** The agent's baseline score, null when it has none for the dimension. */
  baseline: number | null;
  status: "ok" | "regression" | "no-baseline" | "unscored";
}

/** A message of a run's window, as the transcript of its evaluation takes it. */
export interface OnlineWindowMessage {
  id: string;
  sender: string;
  channel: string;
  recipient: string | null;
  text: string;
  at: string;
}

/** An alert of a run not posted yet. */
export interface OnlineAlertToPost {
  id: string;
  agent_id: string;
  dimension: string;
  baseline: number;
  score: number;
  opened_at: string;
}

export interface NewOnlineRun {
  rule: string;
  /** The pg-boss job that makes it: the job tried again finds its run. */
  jobId: string;
  /** What the rule samples: messages by import time, or sessions stored by their analyses. */
  source: "messages" | "sessions";
  /** Whose messages or sessions; null: every session. */
  agents: readonly string[] | null;
  /** The first window starts here (when the rule was scheduled). */
  since: string;
}

export interface OnlineRepository {
  /** The newest runs of a rule (or of every rule, or the one run `id`), newest first. Default 10. */
  runs(query?: { rule?: string; id?: string; limit?: number }): Promise<OnlineRunSummary[]>;
  /** Alerts, newest first: of an agent or a rule, open ones only if asked. Default 20. */
  alerts(query?: {
    agent?: string;
    rule?: string;
    open?: boolean;
    limit?: number;
  }): Promise<OnlineAlertSummary[]>;
  /** The run a pg-boss job made, once it made one. */
  runOfJob(jobId: string): Promise<{ id: string; status: OnlineRunSummary["status"] } | undefined>;

  /**
   * The run a job makes, or made on an earlier attempt: a new window from the end of the rule's last one (or
   * `since`) to now less a second (imports still committing), its candidates, and the sample `sample` draws
   * from them. Under the rule's lock.
   */
  openRun(
    run: NewOnlineRun,
    sample: (candidates: OnlineCandidate[]) => OnlineCandidate[],
  ): Promise<OnlineRunRow>;
  /** The candidates a run sampled, in their order. */
  sampled(runId: string): Promise<OnlineCandidate[]>;
  /** Every message imported in a run's window (every sender's: the sampled ones keep their context), in order. */
  windowMessages(run: OnlineRunRow): Promise<OnlineWindowMessage[]>;
  /** The evaluation a run queued on an earlier attempt, found by its source. */
  queuedEvaluation(source: string): Promise<string | undefined>;
  /** Keeps the evaluation a run queued. */
  setEvaluation(runId: string, evaluationId: string): Promise<void>;
  /** The score of a rule's first completed run that scored an agent's dimension (a session metric's baseline). */
  firstScore(rule: string, agentId: string, dimension: string): Promise<number | null>;
  /**
   * Completes a queued run once, under the rule's lock: opens an alert for each regression that has none open,
   * resolves the open alerts of the dimensions found back, keeps the checks.
   */
  complete(rule: string, runId: string, checks: readonly OnlineRunCheck[]): Promise<void>;
  /** Ends a queued run failed, with the reason. */
  fail(runId: string, error: string): Promise<void>;
  /** Ends the queued run a job made (if it got so far) failed, with the reason. */
  failJob(jobId: string, error: string): Promise<void>;
  /** A run's alerts not posted yet, by agent and dimension. */
  alertsToPost(runId: string): Promise<OnlineAlertToPost[]>;
  /** Keeps what became of an alert's post. */
  setDelivery(alertId: string, delivery: OnlineAlertDelivery): Promise<void>;
  /** Keeps what became of the export of a run's scores (the last attempt's). */
  setExport(runId: string, record: OnlineRunExport): Promise<void>;
  /** What became of the exports of the runs whose evaluation is `evaluationId` (those that kept one), oldest first. */
  exportsOfEvaluation(evaluationId: string): Promise<OnlineRunExport[]>;
}

/** Takes the rule's lock for the transaction: its runs are made and completed one at a time. */
const lockRule = (tx: Queryable, rule: string) =>
  tx.query("SELECT pg_advisory_xact_lock(hashtext('dramaturg:online:' || $1))", [rule]);

/** The agents' messages imported in a window. */
const NEW_MESSAGES = `SELECT source, id, sender FROM run_messages
  WHERE imported_at > $1 AND imported_at <= $2 AND sender = ANY($3::text[])
  ORDER BY at, source, id`;

/**
 * The sessions stored in a window (by POST /api/traces, /api/sessions/analyze or session analyze; not an
 * online run's own analyses) that one of the agents took part in: their analysis (source) and their id, or
 * their place in it.
 */
const NEW_SESSIONS = `SELECT e.id::text AS source, COALESCE(s.value ->> 'id', '#' || s.ordinality) AS id, '' AS sender
  FROM evaluations e, jsonb_array_elements(e.input::jsonb -> 'sessions') WITH ORDINALITY s
  WHERE e.kind = 'session' AND e.created_at > $1 AND e.created_at <= $2 AND e.source NOT LIKE 'online:%'
    AND jsonb_typeof(e.input::jsonb -> 'sessions') = 'array'
    AND ($3::text[] IS NULL
         OR EXISTS (SELECT 1 FROM jsonb_array_elements(s.value -> 'agents') a WHERE a ->> 'id' = ANY($3::text[])))
  ORDER BY e.created_at, e.id, s.ordinality`;

/** A row of online_runs as the driver gives it (times as Dates, counts as strings). */
function runSummary(r: Record<string, unknown>): OnlineRunSummary {
  return {
    id: r.id as string,
    rule: r.rule as string,
    window_start: iso(r.window_start as Date),
    window_end: iso(r.window_end as Date),
    messages: Number(r.messages),
    sampled: Number(r.sampled),
    status: r.status as OnlineRunSummary["status"],
    evaluation_id: (r.evaluation_id as string | null) ?? null,
    regressions: r.status === "completed" ? Number(r.regressions) : null,
    error: (r.error as string | null) ?? null,
    created_at: iso(r.created_at as Date),
    finished_at: isoOrNull(r.finished_at as Date | null),
    ...(r.export ? { export: r.export as OnlineRunExport } : {}),
  };
}

interface RawRun extends Omit<OnlineRunRow, "window_start" | "window_end"> {
  window_start: Date | string;
  window_end: Date | string;
}

const runRow = (r: RawRun): OnlineRunRow => ({
  id: r.id,
  rule: r.rule,
  window_start: iso(r.window_start),
  window_end: iso(r.window_end),
  messages: Number(r.messages),
  sampled: Number(r.sampled),
  evaluation_id: r.evaluation_id ?? null,
  status: r.status,
});

const RUN_COLUMNS = "id, rule, window_start, window_end, messages, sampled, evaluation_id, status";

export function onlineRepository(db: Db): OnlineRepository {
  return {
    async runs({ rule, id, limit = 10 } = {}) {
      if (id !== undefined && !isUuid(id)) return [];
      const rows = await db.query(
        `SELECT id, rule, window_start, window_end, messages, sampled, status, evaluation_id, error, created_at,
                finished_at,
                (SELECT count(*) FROM jsonb_array_elements(COALESCE(outcome -> 'checks', '[]'::jsonb)) c
                  WHERE c ->> 'status' = 'regression') AS regressions,
                outcome -> 'export' AS export
           FROM online_runs WHERE ($1::text IS NULL OR rule = $1) AND ($3::uuid IS NULL OR id = $3)
          ORDER BY created_at DESC, id LIMIT $2`,
        [rule ?? null, limit, id ?? null],
      );
      return rows.rows.map(runSummary);
    },
    async alerts({ agent, rule, open, limit = 20 } = {}) {
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
        opened_at: iso(r.opened_at as Date),
        resolved_at: isoOrNull(r.resolved_at as Date | null),
        delivery: (r.delivery as OnlineAlertDelivery | null) ?? null,
      }));
    },
    async runOfJob(jobId) {
      const rows = await db.query<{ id: string; status: OnlineRunSummary["status"] }>(
        "SELECT id, status FROM online_runs WHERE job_id = $1",
        [jobId],
      );
      return rows.rows[0];
    },

    openRun({ rule, jobId, source, agents, since }, sample) {
      return db.transaction(async (tx) => {
        await lockRule(tx, rule);
        const made = await tx.query<RawRun>(`SELECT ${RUN_COLUMNS} FROM online_runs WHERE job_id = $1`, [
          jobId,
        ]);
        if (made.rows[0]) return runRow(made.rows[0]);
        const bounds = await tx.query<{ start: Date; end: Date }>(
          `SELECT COALESCE(MAX(window_end), $2::timestamptz) AS start, now() - interval '1 second' AS end
             FROM online_runs WHERE rule = $1`,
          [rule, since],
        );
        const { start, end } = bounds.rows[0]!;
        const candidates =
          end <= start
            ? []
            : (
                await tx.query<OnlineCandidate>(source === "sessions" ? NEW_SESSIONS : NEW_MESSAGES, [
                  start,
                  end,
                  agents,
                ])
              ).rows;
        const sampled = sample(candidates);
        const inserted = await tx.query<RawRun>(
          `INSERT INTO online_runs (rule, job_id, window_start, window_end, messages, sampled, status, outcome)
           VALUES ($1, $2, $3::timestamptz, GREATEST($3::timestamptz, $4::timestamptz), $5, $6, $7, $8)
           RETURNING ${RUN_COLUMNS}`,
          [
            rule,
            jobId,
            start,
            end,
            candidates.length,
            sampled.length,
            sampled.length > 0 ? "queued" : "empty",
            JSON.stringify({ messages: sampled.map((m) => ({ source: m.source, id: m.id })) }),
          ],
        );
        return runRow(inserted.rows[0]!);
      });
    },
    async sampled(runId) {
      const rows = await db.query<{ outcome: { messages: OnlineCandidate[] } }>(
        "SELECT outcome FROM online_runs WHERE id = $1",
        [runId],
      );
      return rows.rows[0]?.outcome.messages ?? [];
    },
    async windowMessages(run) {
      const rows = await db.query<Omit<OnlineWindowMessage, "at"> & { at: Date }>(
        `SELECT id, sender, channel, recipient, text, at FROM run_messages
          WHERE imported_at > $1 AND imported_at <= $2 ORDER BY at, source, id`,
        [run.window_start, run.window_end],
      );
      return rows.rows.map((r) => ({ ...r, at: iso(r.at) }));
    },
    async queuedEvaluation(source) {
      const rows = await db.query<{ id: string }>("SELECT id FROM evaluations WHERE source = $1", [source]);
      return rows.rows[0]?.id;
    },
    async setEvaluation(runId, evaluationId) {
      await db.query("UPDATE online_runs SET evaluation_id = $2 WHERE id = $1", [runId, evaluationId]);
    },
    async firstScore(rule, agentId, dimension) {
      const rows = await db.query<{ score: number }>(
        `SELECT (c ->> 'score')::float8 AS score
           FROM online_runs r, jsonb_array_elements(r.outcome -> 'checks') c
          WHERE r.rule = $1 AND r.status = 'completed' AND c ->> 'agent_id' = $2 AND c ->> 'dimension' = $3
            AND c ->> 'score' IS NOT NULL
          ORDER BY r.window_start LIMIT 1`,
        [rule, agentId, dimension],
      );
      return rows.rows[0]?.score ?? null;
    },
    complete(rule, runId, checks) {
      return db.transaction(async (tx) => {
        await lockRule(tx, rule);
        const now = await tx.query<{ status: string }>(
          "SELECT status FROM online_runs WHERE id = $1 FOR UPDATE",
          [runId],
        );
        if (now.rows[0]?.status !== "queued") return;
        for (const check of checks) {
          if (check.status === "regression")
            await tx.query(
              `INSERT INTO online_alerts (rule, agent_id, dimension, online_run_id, baseline, score)
               VALUES ($1, $2, $3, $4, $5, $6)
               ON CONFLICT (rule, agent_id, dimension) WHERE resolved_at IS NULL DO NOTHING`,
              [rule, check.agent_id, check.dimension, runId, check.baseline, check.score],
            );
          else if (check.status === "ok")
            await tx.query(
              `UPDATE online_alerts SET resolved_at = now()
                WHERE rule = $1 AND agent_id = $2 AND dimension = $3 AND resolved_at IS NULL`,
              [rule, check.agent_id, check.dimension],
            );
        }
        await tx.query(
          `UPDATE online_runs SET status = 'completed', finished_at = now(),
                  outcome = outcome || jsonb_build_object('checks', $2::jsonb)
            WHERE id = $1`,
          [runId, JSON.stringify(checks)],
        );
      });
    },
    async fail(runId, error) {
      await db.query(
        `UPDATE online_runs SET status = 'failed', error = $2, finished_at = now() WHERE id = $1 AND status = 'queued'`,
        [runId, error],
      );
    },
    async failJob(jobId, error) {
      await db.query(
        `UPDATE online_runs SET status = 'failed', error = $2, finished_at = now()
          WHERE job_id = $1 AND status = 'queued'`,
        [jobId, error],
      );
    },
    async alertsToPost(runId) {
      const rows = await db.query<Omit<OnlineAlertToPost, "opened_at"> & { opened_at: Date }>(
        `SELECT id, agent_id, dimension, baseline, score, opened_at FROM online_alerts
          WHERE online_run_id = $1 AND delivery IS NULL ORDER BY agent_id, dimension`,
        [runId],
      );
      return rows.rows.map((r) => ({ ...r, opened_at: iso(r.opened_at) }));
    },
    async setExport(runId, record) {
      await db.query(
        "UPDATE online_runs SET outcome = COALESCE(outcome, '{}'::jsonb) || jsonb_build_object('export', $2::jsonb) WHERE id = $1",
        [runId, JSON.stringify(record)],
      );
    },
    async exportsOfEvaluation(evaluationId) {
      if (!isUuid(evaluationId)) return [];
      const rows = await db.query<{ export: OnlineRunExport }>(
        `SELECT outcome -> 'export' AS export FROM online_runs
          WHERE evaluation_id = $1 AND outcome -> 'export' IS NOT NULL ORDER BY created_at, id`,
        [evaluationId],
      );
      return rows.rows.map((r) => r.export);
    },
    async setDelivery(alertId, delivery) {
      await db.query("UPDATE online_alerts SET delivery = $2 WHERE id = $1", [
        alertId,
        JSON.stringify(delivery),
      ]);
    },
  };
}
