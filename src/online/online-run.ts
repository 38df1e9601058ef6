// One run of an online rule, step by step, over the store: the window of messages (or sessions) stored since
// the rule's last run and the sample it judges; the evaluation of that sample, which the run's queued job
// (queue/online-tick.ts) hands to the workers; and, once that completes, each sampled agent's dimensions held
// against its baseline, where a regression opens an alert (one per regression: it stays open, and silent,
// until a later run finds the dimension back) that is posted to the rule's webhook. Every step can be taken
// again: a job tried again (its worker killed) continues its own run.
import type { Transcript } from "../core/index.ts";
import { type PreparedPersonaEvaluation, preparePersonaEvaluation, transcriptOf } from "../personas/index.ts";
import {
  type PreparedSessionAnalysis,
  type Session,
  type SessionsAnalysis,
  validateToolCalls,
} from "../sessions/index.ts";
import type { OnlineRunRow, Store } from "../store/index.ts";
import {
  alertText,
  checkDimension,
  type DimensionCheck,
  deliverAlert,
  ONLINE_ALERT_FORMAT,
  type OnlineAlert,
} from "./online-alerts.ts";
import { type OnlineTick, ruleMeasures } from "./online-rule.ts";
import { type CandidateMessage, sampleMessages } from "./online-sample.ts";

/**
 * The agents whose messages or sessions a rule samples: those it names, else every stored agent's messages,
 * or every session (a session's agents are not stored ones).
 */
async function ruleAgents(store: Store, tick: OnlineTick): Promise<string[] | null> {
  if (tick.rule.agents) return tick.rule.agents;
  return tick.rule.source === "sessions" ? null : (await store.agents.list()).map((a) => a.id);
}

/**
 * The run the job `jobId` makes, or made on an earlier attempt: a new window from the end of the rule's last
 * one (or from when it was scheduled) to now, less a second for imports still committing, and its sample.
 */
export async function openOnlineRun(store: Store, tick: OnlineTick, jobId: string): Promise<OnlineRunRow> {
  return store.online.openRun(
    {
      rule: tick.rule.name,
      jobId,
      source: tick.rule.source,
      agents: await ruleAgents(store, tick),
      since: tick.since,
    },
    (candidates) => sampleMessages(tick.rule, candidates),
  );
}

/** The source of a run's evaluation: what finds the one it queued on an earlier attempt. */
export function onlineRunSource(tick: OnlineTick, run: OnlineRunRow): string {
  return `online:${tick.rule.name}:${run.id}`;
}

/** The evaluation of a run's sample, prepared: a persona evaluation (a rule over messages) or a session analysis. */
export type OnlineSampleEvaluation =
  | { source: "messages"; prepared: PreparedPersonaEvaluation }
  | { source: "sessions"; prepared: PreparedSessionAnalysis };

/** Prepares the evaluation of a run's sample, stored as `source` (onlineRunSource). */
export async function prepareOnlineSample(
  store: Store,
  tick: OnlineTick,
  run: OnlineRunRow,
  source: string,
): Promise<OnlineSampleEvaluation> {
  const sampled = await store.online.sampled(run.id);
  return tick.rule.source === "sessions"
    ? { source: "sessions", prepared: await sampledSessions(store, sampled, source) }
    : { source: "messages", prepared: await sampledMessages(tick, store, run, sampled, source) };
}

/** The window's messages as a transcript: every sender's, so the sampled ones keep their context. */
async function windowTranscript(store: Store, run: OnlineRunRow): Promise<Transcript> {
  const [rows, agents] = [await store.online.windowMessages(run), await store.agents.list()];
  return transcriptOf(agents, rows);
}

/** A persona evaluation of the window's messages that judges only the sampled ones (the rest is context). */
async function sampledMessages(
  tick: OnlineTick,
  store: Store,
  run: OnlineRunRow,
  sampled: readonly CandidateMessage[],
  source: string,
): Promise<PreparedPersonaEvaluation> {
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
    const baseline = await store.online.firstScore(tick.rule.name, agent, metric);
    out.push(checkDimension(agent, metric, total / n, baseline, tick.regression));
  }
  return out;
}

/** Posts this run's alerts not posted yet (a job tried again after a crash posts what the first did not). */
async function postAlerts(tick: OnlineTick, store: Store, run: OnlineRunRow, evaluationId: string) {
  const url = tick.rule.webhook_env ? process.env[tick.rule.webhook_env] : undefined;
  for (const row of await store.online.alertsToPost(run.id)) {
    const fields = {
      rule: tick.rule.name,
      agent_id: row.agent_id,
      dimension: row.dimension,
      score: row.score,
      baseline: row.baseline,
      drop: Math.round((row.baseline - row.score) * 1000) / 1000,
      threshold: tick.regression,
      evaluation_id: evaluationId,
      window: { start: run.window_start, end: run.window_end },
      sampled: run.sampled,
      opened_at: row.opened_at,
    };
    const alert: OnlineAlert = { format: ONLINE_ALERT_FORMAT, ...fields, text: alertText(fields) };
    await store.online.setDelivery(row.id, await deliverAlert(url, alert));
  }
}

/**
 * Completes a run whose evaluation completed, once: holds each agent's dimensions against its baseline, opens
 * an alert for each regression that has none open, resolves the open alerts of dimensions found back, and
 * posts this run's alerts not posted yet.
 */
export async function completeOnlineRun(
  store: Store,
  tick: OnlineTick,
  run: OnlineRunRow,
  evaluationId: string,
): Promise<void> {
  await store.online.complete(tick.rule.name, run.id, await checks(tick, store, evaluationId));
  await postAlerts(tick, store, run, evaluationId);
}
