// An online run's verdict on each agent's dimensions against its baseline, and the alert a regression posts:
// JSON to any webhook, Slack's `{ text }` body to an incoming webhook of hooks.slack.com.
import type { OnlineRunCheck } from "../store/index.ts";

/** An agent's dimension held against its baseline run (kept with the run: the store's OnlineRunCheck). */
export type DimensionCheck = OnlineRunCheck;

/**
 * The status of a score against its baseline, as `dramaturg ci` judges one trial (regression/compare.ts): a
 * regression when it is more than `threshold` below, both rounded to the baseline file's precision.
 */
export function checkDimension(
  agentId: string,
  dimension: string,
  score: number | null,
  baseline: number | null,
  threshold: number,
): DimensionCheck {
  const of = (status: DimensionCheck["status"]) => ({
    agent_id: agentId,
    dimension,
    score,
    baseline,
    status,
  });
  if (score === null) return of("unscored");
  if (baseline === null) return of("no-baseline");
  const drop = Math.round((score - baseline) * 1000) / 1000;
  return of(drop < -threshold ? "regression" : "ok");
}

export const ONLINE_ALERT_FORMAT = "dramaturg.online-alert/v1";

export interface OnlineAlert {
  format: typeof ONLINE_ALERT_FORMAT;
  rule: string;
  agent_id: string;
  dimension: string;
  score: number;
  baseline: number;
  /** How far below the baseline the score is. */
  drop: number;
  threshold: number;
  evaluation_id: string;
  window: { start: string; end: string };
  /** The messages judged in the window. */
  sampled: number;
  opened_at: string;
  /** One line for people. */
  text: string;
}

const fixed = (n: number) => n.toFixed(2);

export function alertText(alert: Omit<OnlineAlert, "format" | "text">): string {
  return `Dramaturg online rule "${alert.rule}": ${alert.agent_id}'s ${alert.dimension} is ${fixed(alert.score)}, ${fixed(alert.drop)} below its baseline ${fixed(alert.baseline)} (threshold ${alert.threshold}), on ${alert.sampled} messages sampled from ${alert.window.start} to ${alert.window.end}; evaluation ${alert.evaluation_id}`;
}

/** Slack's incoming webhooks take `{ text }` in mrkdwn, where &, < and > must be escaped. */
function slackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The body posted for an alert: Slack's for hooks.slack.com, the alert itself anywhere else. */
export function webhookBody(url: string, alert: OnlineAlert): string {
  const host = new URL(url).hostname;
  if (host === "hooks.slack.com") return JSON.stringify({ text: slackText(alert.text) });
  return JSON.stringify(alert);
}

/** What became of a post: kept with the alert (never the URL: a webhook URL is a secret). */
export interface Delivery {
  status: "posted" | "failed" | "no-webhook";
  attempts: number;
  http_status?: number;
  error?: string;
  at: string;
}

/** Posts an alert, three attempts a second and two apart; never throws. */
export async function deliverAlert(url: string | undefined, alert: OnlineAlert): Promise<Delivery> {
  const at = () => new Date().toISOString();
  if (!url) return { status: "no-webhook", attempts: 0, at: at() };
  let last: Omit<Delivery, "at" | "attempts" | "status"> = {};
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: webhookBody(url, alert),
        signal: AbortSignal.timeout(10_000),
      });
      await response.body?.cancel();
      if (response.ok) return { status: "posted", attempts: attempt, http_status: response.status, at: at() };
      last = { http_status: response.status, error: `HTTP ${response.status}` };
      // A refusal other than throttling or a server fault will not change on a second try.
      if (response.status < 500 && response.status !== 429)
        return { status: "failed", attempts: attempt, ...last, at: at() };
    } catch (error) {
      // Said without the URL, which is a secret (a Slack webhook's path is its key).
      last = { error: (error instanceof Error ? error.message : String(error)).split(url).join("<webhook>") };
    }
    if (attempt < 3) await new Promise((resolve) => setTimeout(resolve, attempt * 1000));
  }
  return { status: "failed", attempts: 3, ...last, at: at() };
}
