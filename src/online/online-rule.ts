// An online rule: whose new messages to sample, how many, judged on which dimensions, how often, and where a
// regression is posted. Written in dramaturg.yaml under `online:`; scheduled, a rule travels in its pg-boss
// schedule as an OnlineTick — with nothing secret in it: the webhook is named by an environment variable.
import { z } from "zod";
import { EXPORT_TARGETS } from "../core/index.ts";

/** The dimensions a rule over messages can judge (the channel dimensions are not an agent's). */
export const ONLINE_DIMENSIONS = ["adherence", "consistency", "fluency"] as const;

/** The per-agent session metrics (0–1) a rule over sessions can hold against its baseline. */
export const ONLINE_SESSION_METRICS = [
  "overall",
  "tool_use",
  "reasoning",
  "handoff",
  "response_quality",
] as const;

/**
 * Where finished runs send their scores (`dramaturg export`'s tools): the project file's `export:` rules
 * (export/export-rule.ts, above this folder, builds on it) and an online rule's `export`. Host and keys come from
 * the environment of the process that exports (a worker's, for an online rule), never from here.
 */
export const ExportTargetSchema = z
  .object({
    to: z
      .enum(EXPORT_TARGETS)
      .describe("The tracing tool; its host and keys from the environment (a worker's, for an online rule)"),
    propositions: z
      .boolean()
      .optional()
      .describe(
        "Also one score per proposition verdict (or judged interaction), beside the dimension scores",
      ),
  })
  .strict();

/** Five cron fields (minute hour day-of-month month day-of-week), as pg-boss schedules them. */
const CRON = /^\s*\S+(\s+\S+){4}\s*$/;

export const OnlineRuleSchema = z
  .object({
    source: z
      .enum(["messages", "sessions"])
      .default("messages")
      .describe(
        "messages: stored by dramaturg import, judged on persona dimensions; sessions: analyses stored by POST /api/traces, /api/sessions/analyze or session analyze, judged on session metrics",
      ),
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "a name of up to 64 letters, digits, '.', '_' or '-'")
      .describe("The rule's name: `dramaturg online run NAME`, its alerts and its status say it"),
    agents: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("Agent ids whose messages are sampled (default: every stored agent)"),
    sample: z
      .union([
        z
          .object({ rate: z.number().gt(0).max(1).describe("The share of new messages judged, 0–1") })
          .strict(),
        z
          .object({ messages: z.number().int().min(1).describe("New messages judged per run, at most") })
          .strict(),
      ])
      .describe("{ rate: 0.05 } judges about 5 % of the new messages; { messages: 50 } at most 50 a run"),
    dimensions: z
      .array(z.enum(ONLINE_DIMENSIONS))
      .min(1)
      .default(["adherence", "consistency"])
      .describe("Dimensions judged, for messages (default adherence and consistency)"),
    metrics: z
      .array(z.enum(ONLINE_SESSION_METRICS))
      .min(1)
      .optional()
      .describe("Per-agent session metrics held against the baseline, for sessions (default all five)"),
    schedule: z
      .string()
      .regex(CRON, 'a cron expression of five fields, such as "*/5 * * * *" (every five minutes)')
      .describe("When the rule runs (cron, UTC)"),
    judge: z.string().min(1).optional().describe("The judge (default: the project's judge.model)"),
    regression: z
      .number()
      .min(0)
      .optional()
      .describe(
        "A dimension more than this below the agent's baseline is a regression (default thresholds.regression; 0.1 for session metrics)",
      ),
    webhook_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name such as ONLINE_WEBHOOK_URL")
      .optional()
      .describe(
        "Environment variable holding the URL alerts are posted to (JSON; Slack's body for hooks.slack.com); read by the worker",
      ),
    export: ExportTargetSchema.optional().describe(
      "Export each completed run's scores (dramaturg export): { to: langfuse, propositions: false }; keys from the worker's environment",
    ),
  })
  .strict()
  .refine((rule) => rule.source === "sessions" || rule.metrics === undefined, {
    message: "metrics are for source: sessions; a rule over messages judges dimensions",
    path: ["metrics"],
  });
export type OnlineRule = z.infer<typeof OnlineRuleSchema>;

/** What a rule holds against the baseline: its dimensions (messages) or its session metrics. */
export function ruleMeasures(rule: OnlineRule): readonly string[] {
  return rule.source === "sessions" ? (rule.metrics ?? ONLINE_SESSION_METRICS) : rule.dimensions;
}

export const OnlineRulesSchema = z
  .array(OnlineRuleSchema)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((rule, i) => {
      if (seen.has(rule.name))
        ctx.addIssue({ code: "custom", path: [i, "name"], message: `a second rule named "${rule.name}"` });
      seen.add(rule.name);
    });
  })
  .describe("Continuous evaluation: rules that sample new messages on a schedule (`dramaturg online`)");

/** A rule as its runs need it: the project's defaults filled in. What a schedule carries; no secret. */
export const OnlineTickSchema = z.object({
  rule: OnlineRuleSchema,
  judge: z.string().min(1),
  judge_base_url: z.string().optional(),
  /** The propositions folder (absolute), read by the worker; default the built-in sets. */
  propositions: z.string().optional(),
  regression: z.number().min(0),
  /** The first run looks at messages imported after this (when the rule was scheduled). */
  since: z.string(),
});
export type OnlineTick = z.infer<typeof OnlineTickSchema>;
