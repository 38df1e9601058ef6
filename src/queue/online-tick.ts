// One run of an online rule, as a queued job: the window of messages imported since the rule's last run,
// the sample it judges, a persona evaluation of it queued for the workers (chunks, as `eval --queue` makes),
// and, once that completes, each sampled agent's dimensions held against its baseline run: a regression opens
// an alert (one per regression: it stays open, and silent, until a later run finds the dimension back) that
// is posted to the rule's webhook. A job tried again (its worker killed) continues its own run.
import { setTimeout as sleep } from "node:timers/promises";
import { TRANSCRIPT_FORMAT, type Transcript } from "../core/index.ts";
import { prepareJudge, type Queryable, type Store } from "../engine/index.ts";
import { preparePersonaEvaluation } from "../personas/index.ts";
import {
  type PreparedSessionAnalysis,
  type Session,
  type SessionsAnalysis,
  validateToolCalls,
} from "../sessions/index.ts";
import { enqueuePersonaEvaluation, enqueueSessionAnalysis } from "./enqueue.ts";
import type { QueuedJobKind, WorkerContext } from "./job-kind.ts";
import {
  alertText,
  checkDimension,
  type DimensionCheck,
  deliverAlert,
  ONLINE_ALERT_FORMAT,
  type OnlineAlert,
} from "./online-alerts.ts";
import { type OnlineTick, OnlineTickSchema, ruleMeasures } from "./online-rule.ts";
import { type CandidateMessage, sampleMessages } from "./online-sample.ts";
import { ONLINE_RETRY_LIMIT, ONLINE_TICKS } from "./queues.ts";

/** Takes the rule's lock for the transaction: its runs are made and completed one at a time. */
const lockRule = (tx: Queryable, rule: string) =>
  tx.query("SELECT pg_advisory_xact_lock(hashtext('dramaturg:online:' || $1))", [rule]);

/** A row of online_runs as the tick reads it. */
interface OnlineRunRow {
  id: string;
  rule: string;
  window_start: Date;
  window_end: Date;
  messages: number;
  sampled: number;
  evaluation_id: string | null;
  status: "queued" | "completed" | "failed" | "empty";
}

export const onlineTicks: QueuedJobKind<OnlineTick> = {
  name: "online",
  queue: ONLINE_TICKS,
  data: OnlineTickSchema,
  retryLimit: ONLINE_RETRY_LIMIT,
  run: runOnlineTick,
  // The run this job made (if it got so far) ends failed with the reason; the rule's next run starts after it.
  failed: async (_tick, error, { store }, job) => {
    const message = error instanceof Error ? error.message : String(error);
    await store.db!.query(
      `UPDATE online_runs SET status = 'failed', error = $2, finished_at = now()
        WHERE job_id = $1 AND status = 'queued'`,
      [job.id, message],
    );
  },
};

/**
 * The agents whose messages or sessions a rule samples: those it names, else every stored agent's messages,
 * or every session (a session's agents are not stored ones).
 */
async function ruleAgents(store: Store, tick: OnlineTick): Promise<string[] | null> {
  if (tick.rule.agents) return tick.rule.agents;
  return tick.rule.source === "sessions" ? null : (await store.agents.list()).map((a) => a.id);
}

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

/**
 * The run this job makes, or made on an earlier attempt: a new window from the end of the rule's last one
 * (or from when it was scheduled) to now, less a second for imports still committing, and its sample.
 * Under the rule's lock, so that two runs at once never share a message.
 */
async function openRun(tick: OnlineTick, context: WorkerContext, jobId: string): Promise<OnlineRunRow> {
  const db = context.store.db!;
  const agents = await ruleAgents(context.store, tick);
  return db.transaction(async (tx) => {
    await lockRule(tx, tick.rule.name);
    const made = await tx.query<OnlineRunRow>("SELECT * FROM online_runs WHERE job_id = $1", [jobId]);
    if (made.rows[0]) return made.rows[0];
    const bounds = await tx.query<{ start: Date; end: Date }>(
      `SELECT COALESCE(MAX(window_end), $2::timestamptz) AS start, now() - interval '1 second' AS end
         FROM online_runs WHERE rule = $1`,
      [tick.rule.name, tick.since],
    );
    const { start, end } = bounds.rows[0]!;
    const candidates =
      end <= start
        ? []
        : (
            await tx.query<CandidateMessage>(tick.rule.source === "sessions" ? NEW_SESSIONS : NEW_MESSAGES, [
              start,
              end,
              agents,
            ])
          ).rows;
    const sampled = sampleMessages(tick.rule, candidates);
    const inserted = await tx.query<OnlineRunRow>(
      `INSERT INTO online_runs (rule, job_id, window_start, window_end, messages, sampled, status, outcome)
       VALUES ($1, $2, $3::timestamptz, GREATEST($3::timestamptz, $4::timestamptz), $5, $6, $7, $8) RETURNING *`,
      [
        tick.rule.name,
        jobId,
        start,
        end,
        candidates.length,
        sampled.length,
        sampled.length > 0 ? "queued" : "empty",
        JSON.stringify({ messages: sampled.map((m) => ({ source: m.source, id: m.id })) }),
      ],
    );
    return inserted.rows[0]!;
  });
}

/** The window's messages as a transcript: every sender's, so the sampled ones keep their context. */
async function windowTranscript(store: Store, run: OnlineRunRow): Promise<Transcript> {
  const rows = await store.db!.query<{
    id: string;
    sender: string;
    channel: string;
    recipient: string | null;
    text: string;
    at: Date;
  }>(
    `SELECT id, sender, channel, recipient, text, at FROM run_messages
      WHERE imported_at > $1 AND imported_at <= $2 ORDER BY at, source, id`,
    [run.window_start, run.window_end],
  );
  const agents = await store.agents.list();
  return {
    format: TRANSCRIPT_FORMAT,
    agents: agents.map((a) => ({ id: a.id, name: a.name, persona: a.persona })),
    messages: rows.rows.map((r) => ({
      id: r.id,
      sender: r.sender,
      channel: r.channel,
      ...(r.recipient ? { recipient: r.recipient } : {}),
      text: r.text,
      at: r.at.toISOString(),
    })),
  };
}

/** The evaluation of a run's sample, queued once: a job tried again finds the one it queued by its source. */
async function queueEvaluation(tick: OnlineTick, context: WorkerContext, run: OnlineRunRow): Promise<string> {
  const { store } = context;
  const source = `online:${tick.rule.name}:${run.id}`;
  const queued = await store.db!.query<{ id: string }>("SELECT id FROM evaluations WHERE source = $1", [
    source,
  ]);
  let evaluationId = queued.rows[0]?.id;
  if (!evaluationId) {
    const sampled =
      (
        await store.db!.query<{ outcome: { messages: CandidateMessage[] } }>(
          "SELECT outcome FROM online_runs WHERE id = $1",
          [run.id],
        )
      ).rows[0]?.outcome.messages ?? [];
    const judge = prepareJudge(
      tick.judge,
      { ...context.judgeSettings, baseUrl: context.judgeSettings?.baseUrl ?? tick.judge_base_url },
      { cache: false },
    );
    const queue = { store, connectionString: context.connectionString, judge: judge.judge.descriptor };
    try {
      ({ evaluationId } =
        tick.rule.source === "sessions"
          ? await enqueueSessionAnalysis(await sampledSessions(store, sampled, source), {
              ...queue,
              judgeSpec: tick.judge,
            })
          : await enqueuePersonaEvaluation(await sampledMessages(tick, store, run, sampled, source), queue));
    } finally {
      await judge.close();
    }
  }
  await store.db!.query("UPDATE online_runs SET evaluation_id = $2 WHERE id = $1", [run.id, evaluationId]);
  return evaluationId;
}

/** A persona evaluation of the window's messages that judges only the sampled ones (the rest is context). */
async function sampledMessages(
  tick: OnlineTick,
  store: Store,
  run: OnlineRunRow,
  sampled: readonly CandidateMessage[],
  source: string,
) {
  const transcript = await windowTranscript(store, run);
  const sampledIds = new Set(sampled.map((m) => m.id));
  const agents = [
    ...new Set(transcript.messages.filter((m) => sampledIds.has(m.id)).map((m) => m.sender)),
  ].sort();
  return preparePersonaEvaluation({
    transcript,
    source,
    dimensions: tick.rule.dimensions,
    agents,
    messages: [...sampledIds],
    propositions: tick.propositions,
    judgeSpec: tick.judge,
    judgeBaseUrl: tick.judge_base_url,
  });
}

/**
 * A session analysis of the sampled sessions, read from the analyses that stored them (in their stored,
 * already imported form, as a resume reads them), in their order.
 */
async function sampledSessions(
  store: Store,
  sampled: readonly CandidateMessage[],
  source: string,
): Promise<PreparedSessionAnalysis> {
  const inputs = new Map<string, Session[]>();
  const sessions: Session[] = [];
  for (const { source: analysis, id } of sampled) {
    if (!inputs.has(analysis)) {
      const input = (await store.evaluations.input(analysis)) as { sessions?: Session[] } | undefined;
      inputs.set(analysis, input?.sessions ?? []);
    }
    const stored = inputs.get(analysis)!;
    const session = id.startsWith("#") ? stored[Number(id.slice(1)) - 1] : stored.find((s) => s.id === id);
    if (session) sessions.push(session);
  }
  return {
    sessions,
    validations: sessions.map((session) => validateToolCalls(session)),
    sources: [{ file: source, from: "dramaturg.session/v1", sessions: sessions.length, notes: [] }],
  };
}

/** Waits for the run's evaluation to end; its status. */
async function evaluationEnd(
  store: Store,
  evaluationId: string,
): Promise<{ status: string; error?: string }> {
  for (;;) {
    const row = await store.evaluations.get(evaluationId);
    if (!row) return { status: "failed", error: `evaluation ${evaluationId} is gone` };
    if (row.status === "completed" || row.status === "failed" || row.status === "interrupted")
      return { status: row.status, error: row.error ?? undefined };
    await sleep(250);
  }
}

/** Each sampled agent's dimensions in the evaluation against its baseline run. */
async function checks(tick: OnlineTick, store: Store, evaluationId: string): Promise<DimensionCheck[]> {
  if (tick.rule.source === "sessions") return sessionChecks(tick, store, evaluationId);
  const runs = await store.runs.list({ evaluation: evaluationId, status: "completed" });
  const out: DimensionCheck[] = [];
  for (const run of [...runs].sort((a, b) => a.agent_id.localeCompare(b.agent_id))) {
    const [baseline] = await store.runs.list({
      agent: run.agent_id,
      status: "completed",
      isBaseline: true,
      limit: 1,
    });
    for (const dimension of tick.rule.dimensions)
      out.push(
        checkDimension(
          run.agent_id,
          dimension,
          run.dimension_scores?.[dimension]?.score ?? null,
          baseline?.dimension_scores?.[dimension]?.score ?? null,
          tick.regression,
        ),
      );
  }
  return out;
}

/**
 * Each agent's session metrics, averaged over the sampled sessions it took part in, against its baseline:
 * session metrics have no `dramaturg baseline`, so an agent's is the rule's first completed run that
 * scored it (run the rule on known-good traffic first; that run reports "no-baseline" and becomes it).
 */
async function sessionChecks(
  tick: OnlineTick,
  store: Store,
  evaluationId: string,
): Promise<DimensionCheck[]> {
  const result = (await store.evaluations.result(evaluationId)) as SessionsAnalysis | undefined;
  const sums = new Map<string, { total: number; n: number }>();
  for (const analysis of result?.analyses ?? [])
    for (const [agent, scores] of Object.entries(analysis.per_agent_scores))
      for (const metric of ruleMeasures(tick.rule)) {
        const value = scores[metric as keyof typeof scores];
        if (typeof value !== "number") continue;
        const key = `${agent}\0${metric}`;
        const sum = sums.get(key) ?? { total: 0, n: 0 };
        sums.set(key, { total: sum.total + value, n: sum.n + 1 });
      }
  const wanted = tick.rule.agents && new Set(tick.rule.agents);
  const out: DimensionCheck[] = [];
  for (const key of [...sums.keys()].sort()) {
    const [agent, metric] = key.split("\0") as [string, string];
    if (wanted && !wanted.has(agent)) continue;
    const { total, n } = sums.get(key)!;
    const baseline = await store.db!.query<{ score: number }>(
      `SELECT (c ->> 'score')::float8 AS score
         FROM online_runs r, jsonb_array_elements(r.outcome -> 'checks') c
        WHERE r.rule = $1 AND r.status = 'completed' AND c ->> 'agent_id' = $2 AND c ->> 'dimension' = $3
          AND c ->> 'score' IS NOT NULL
        ORDER BY r.window_start LIMIT 1`,
      [tick.rule.name, agent, metric],
    );
    out.push(checkDimension(agent, metric, total / n, baseline.rows[0]?.score ?? null, tick.regression));
  }
  return out;
}

/**
 * Completes the run once (its status moves from queued under the rule's lock): opens an alert for each
 * regression that has none open, resolves the open alerts of dimensions found back. Returns nothing; the
 * alerts to post are those of this run without a delivery.
 */
async function settle(tx: Queryable, tick: OnlineTick, run: OnlineRunRow, found: DimensionCheck[]) {
  const now = await tx.query<{ status: string }>("SELECT status FROM online_runs WHERE id = $1 FOR UPDATE", [
    run.id,
  ]);
  if (now.rows[0]?.status !== "queued") return;
  for (const check of found) {
    if (check.status === "regression")
      await tx.query(
        `INSERT INTO online_alerts (rule, agent_id, dimension, online_run_id, baseline, score)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (rule, agent_id, dimension) WHERE resolved_at IS NULL DO NOTHING`,
        [tick.rule.name, check.agent_id, check.dimension, run.id, check.baseline, check.score],
      );
    else if (check.status === "ok")
      await tx.query(
        `UPDATE online_alerts SET resolved_at = now()
          WHERE rule = $1 AND agent_id = $2 AND dimension = $3 AND resolved_at IS NULL`,
        [tick.rule.name, check.agent_id, check.dimension],
      );
  }
  await tx.query(
    `UPDATE online_runs SET status = 'completed', finished_at = now(),
            outcome = outcome || jsonb_build_object('checks', $2::jsonb)
      WHERE id = $1`,
    [run.id, JSON.stringify(found)],
  );
}

/** Posts this run's alerts not posted yet (a job tried again after a crash posts what the first did not). */
async function postAlerts(tick: OnlineTick, store: Store, run: OnlineRunRow, evaluationId: string) {
  const alerts = await store.db!.query<{
    id: string;
    agent_id: string;
    dimension: string;
    baseline: number;
    score: number;
    opened_at: Date;
  }>(
    `SELECT id, agent_id, dimension, baseline, score, opened_at FROM online_alerts
      WHERE online_run_id = $1 AND delivery IS NULL ORDER BY agent_id, dimension`,
    [run.id],
  );
  const url = tick.rule.webhook_env ? process.env[tick.rule.webhook_env] : undefined;
  for (const row of alerts.rows) {
    const fields = {
      rule: tick.rule.name,
      agent_id: row.agent_id,
      dimension: row.dimension,
      score: row.score,
      baseline: row.baseline,
      drop: Math.round((row.baseline - row.score) * 1000) / 1000,
      threshold: tick.regression,
      evaluation_id: evaluationId,
      window: { start: run.window_start.toISOString(), end: run.window_end.toISOString() },
      sampled: run.sampled,
      opened_at: row.opened_at.toISOString(),
    };
    const alert: OnlineAlert = { format: ONLINE_ALERT_FORMAT, ...fields, text: alertText(fields) };
    const delivery = await deliverAlert(url, alert);
    await store.db!.query("UPDATE online_alerts SET delivery = $2 WHERE id = $1", [
      row.id,
      JSON.stringify(delivery),
    ]);
  }
}

async function runOnlineTick(tick: OnlineTick, context: WorkerContext, job: { id: string }): Promise<void> {
  const { store } = context;
  const run = await openRun(tick, context, job.id);
  if (run.status === "empty" || run.status === "failed") return;
  const evaluationId = run.evaluation_id ?? (await queueEvaluation(tick, context, run));
  const end = await evaluationEnd(store, evaluationId);
  if (end.status !== "completed") {
    await store.db!.query(
      `UPDATE online_runs SET status = 'failed', error = $2, finished_at = now() WHERE id = $1 AND status = 'queued'`,
      [run.id, `evaluation ${evaluationId} ${end.status}${end.error ? `: ${end.error}` : ""}`],
    );
    return;
  }
  const found = await checks(tick, store, evaluationId);
  await store.db!.transaction(async (tx) => {
    await lockRule(tx, tick.rule.name);
    await settle(tx, tick, run, found);
  });
  await postAlerts(tick, store, run, evaluationId);
}
