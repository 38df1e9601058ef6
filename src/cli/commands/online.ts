// `dramaturg online schedule|run|status`: continuous evaluation of production traffic. The rules are in
// dramaturg.yaml under `online:`; `schedule` hands them to pg-boss's scheduler on the PostgreSQL store, where
// `dramaturg worker`s run them; `run` runs one now; `status` lists the rules, their last runs and alerts.
import { type Command, Option } from "commander";
import { InputError, parseStoreLocation, round } from "../../core/index.ts";
import type { OnlineTick } from "../../online/index.ts";
// The rules' schema module alone (zod), as settings.ts reads it: the queue loads only when a subcommand runs.
import { ruleMeasures } from "../../online/online-rule.ts";
import type { OnlineStatus } from "../../queue/index.ts";
import { type OnlineRunSummary, openStore } from "../../store/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { resolveSettings, type Settings } from "../settings.ts";

interface OnlineFlags {
  db?: string;
  config?: string;
  format?: string;
  since?: string;
}

export function registerOnlineCommand(program: Command): void {
  const online = program
    .command("online")
    .description(
      "continuous evaluation: schedule the online rules of dramaturg.yaml, run one, see their status",
    )
    .addHelpText(
      "after",
      examples(
        "dramaturg online schedule --db postgres://user@db/dramaturg",
        "dramaturg online status --db postgres://user@db/dramaturg",
        "dramaturg online run support-voice --db postgres://user@db/dramaturg",
      ),
    );
  const common = (command: Command) =>
    command
      .option("--db <location>", "the PostgreSQL store (postgres://…) the workers take jobs from")
      .option("--config <file>", "project file to use instead of searching for dramaturg.yaml");
  common(
    online
      .command("schedule")
      .description(
        "schedule every rule under online: (replacing their schedules; unscheduling rules no longer there)",
      )
      .addHelpText(
        "after",
        examples(
          "dramaturg online schedule --db postgres://user@db/dramaturg",
          "dramaturg online schedule --config prod/dramaturg.yaml",
        ),
      ),
  ).action(async (flags: OnlineFlags) => setExitCode(await scheduleCommand(flags)));
  common(
    online
      .command("run")
      .description(
        "run a rule now through the queue and wait for it (a worker must be running); exit 1 on a regression",
      )
      .argument("<rule>", "the rule's name")
      .option(
        "--since <time>",
        "a first run's window starts here (ISO 8601; default when it was scheduled, else every stored message)",
      )
      .addOption(new Option("--format <format>", "output format").choices(["text", "json"]).default("text"))
      .addHelpText(
        "after",
        examples(
          "dramaturg online run support-voice --db postgres://user@db/dramaturg",
          "dramaturg online run support-voice --since 2026-11-27T00:00:00Z --format json",
        ),
      ),
  ).action(async (rule: string, flags: OnlineFlags) => setExitCode(await runCommand(rule, flags)));
  common(
    online
      .command("status")
      .description("the scheduled rules, their last runs and their open alerts")
      .addOption(new Option("--format <format>", "output format").choices(["text", "json"]).default("text"))
      .addHelpText(
        "after",
        examples(
          "dramaturg online status --db postgres://user@db/dramaturg",
          "dramaturg online status --format json",
        ),
      ),
  ).action(async (flags: OnlineFlags) => setExitCode(await statusCommand(flags)));
}

/** The settings, with a PostgreSQL store (the only one workers can share). */
/** A session metric (0–1) more than this below its baseline is a regression, unless the rule says otherwise. */
const SESSION_REGRESSION = 0.1;

function onlineSettings(flags: OnlineFlags): Settings {
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  if (parseStoreLocation(settings.db).kind !== "postgres")
    throw new InputError(
      "online rules run on the queue of a PostgreSQL store: pass --db postgres://… (or set db: in dramaturg.yaml)",
      { place: "--db" },
    );
  return settings;
}

/** A rule with the project's defaults, as its runs need it. */
function tickOf(settings: Settings, name: string, since: string): OnlineTick {
  const index = settings.online.findIndex((r) => r.name === name);
  const rule = settings.online[index];
  if (!rule)
    throw new InputError(
      settings.online.length === 0
        ? "dramaturg.yaml has no online rules; add them under online:"
        : `no online rule "${name}"; dramaturg.yaml has ${settings.online.map((r) => `"${r.name}"`).join(", ")}`,
      { place: "online" },
    );
  const judge = rule.judge ?? settings.judge.model;
  if (!judge)
    throw new InputError(`online rule "${name}" has no judge: set its judge, or judge.model`, {
      place: `online[${index}].judge`,
    });
  return {
    rule,
    judge,
    ...(settings.judge.base_url ? { judge_base_url: settings.judge.base_url } : {}),
    ...(settings.propositions ? { propositions: settings.propositions } : {}),
    // Session metrics are 0–1: the project's threshold (on 0–9) would never fire on them.
    regression:
      rule.regression ?? (rule.source === "sessions" ? SESSION_REGRESSION : settings.thresholds.regression),
    since,
  };
}

function isoFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw new InputError("expected an ISO 8601 time such as 2026-11-27T09:00:00Z", { place: "--since" });
  return new Date(t).toISOString();
}

async function scheduleCommand(flags: OnlineFlags): Promise<number> {
  const settings = onlineSettings(flags);
  const now = new Date().toISOString();
  const ticks = settings.online.map((rule) => tickOf(settings, rule.name, now));
  const { scheduleOnlineRules } = await import("../../queue/index.ts");
  const store = await openStore(settings.db);
  try {
    const { scheduled, removed } = await scheduleOnlineRules(store, settings.db, ticks);
    for (const tick of ticks)
      process.stdout.write(`scheduled ${tick.rule.name}: ${tick.rule.schedule} (UTC)\n`);
    for (const name of removed) process.stdout.write(`unscheduled ${name} (no longer in dramaturg.yaml)\n`);
    if (scheduled.length === 0 && removed.length === 0) process.stdout.write("no online rules to schedule\n");
    return 0;
  } finally {
    await store.close();
  }
}

async function runCommand(name: string, flags: OnlineFlags): Promise<number> {
  const settings = onlineSettings(flags);
  const since = isoFlag(flags.since);
  // The rule is checked before the store opens: bad input writes nothing and needs no server.
  const given = tickOf(settings, name, since ?? "");
  const { runOnlineRuleNow } = await import("../../queue/index.ts");
  const store = await openStore(settings.db);
  try {
    const run = await runOnlineRuleNow(store, settings.db, { ...given, since });
    const alerts = (await store.online.alerts({ rule: name, limit: 100 })).filter(
      (a) => a.online_run_id === run.id,
    );
    if (flags.format === "json") process.stdout.write(`${JSON.stringify({ run, alerts }, null, 2)}\n`);
    else
      process.stdout.write(
        `${runLine(run)}\n${alerts.map((a) => `  alert: ${a.agent_id} ${a.dimension} ${round(a.score, 2)} (baseline ${round(a.baseline, 2)}), ${a.delivery?.status ?? "not posted"}\n`).join("")}`,
      );
    if (run.status === "failed") return 3;
    return (run.regressions ?? 0) > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

function runLine(run: OnlineRunSummary): string {
  const window = `${run.window_start} → ${run.window_end}`;
  const what = `${run.messages} new messages, ${run.sampled} sampled`;
  switch (run.status) {
    case "empty":
      return `${run.rule}: ${window}: ${what}; nothing to judge`;
    case "failed":
      return `${run.rule}: ${window}: ${what}; failed: ${run.error}`;
    case "queued":
      return `${run.rule}: ${window}: ${what}; evaluation ${run.evaluation_id ?? "being queued"} running`;
    default:
      return `${run.rule}: ${window}: ${what}; evaluation ${run.evaluation_id}: ${run.regressions === 0 ? "no regression" : `${run.regressions} regression${run.regressions === 1 ? "" : "s"}`}${run.export ? `; export to ${run.export.to} ${run.export.status}${run.export.error ? ` (${run.export.error})` : ""}` : ""}`;
  }
}

function renderStatus(status: OnlineStatus): string {
  if (status.rules.length === 0 && status.alerts.length === 0)
    return "no online rules are scheduled: add them under online: in dramaturg.yaml and run `dramaturg online schedule`\n";
  const lines: string[] = [];
  for (const { rule, schedule, runs, open_alerts } of status.rules) {
    const sample =
      "rate" in rule.sample
        ? `${round(rule.sample.rate * 100, 2)} % of new ${rule.source}`
        : `${rule.sample.messages} new ${rule.source} a run`;
    lines.push(
      `${rule.name}  ${schedule}  ${sample}  ${ruleMeasures(rule).join(", ")}  ${rule.agents ? rule.agents.join(", ") : "every agent"}`,
    );
    if (runs.length === 0) lines.push("  no run yet");
    for (const run of runs) lines.push(`  ${runLine(run)}`);
    for (const alert of open_alerts)
      lines.push(
        `  open alert since ${alert.opened_at}: ${alert.agent_id} ${alert.dimension} ${round(alert.score, 2)} (baseline ${round(alert.baseline, 2)})`,
      );
  }
  const closed = status.alerts.filter((a) => a.resolved_at !== null);
  if (closed.length > 0) {
    lines.push("", "resolved alerts:");
    for (const a of closed)
      lines.push(
        `  ${a.rule}: ${a.agent_id} ${a.dimension} ${round(a.score, 2)} (baseline ${round(a.baseline, 2)}), ${a.opened_at} → ${a.resolved_at}`,
      );
  }
  return `${lines.join("\n")}\n`;
}

async function statusCommand(flags: OnlineFlags): Promise<number> {
  const settings = onlineSettings(flags);
  const { onlineStatus } = await import("../../queue/index.ts");
  const store = await openStore(settings.db);
  try {
    const status = await onlineStatus(store, settings.db);
    process.stdout.write(
      flags.format === "json" ? `${JSON.stringify(status, null, 2)}\n` : renderStatus(status),
    );
    return 0;
  } finally {
    await store.close();
  }
}
