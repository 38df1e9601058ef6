// The flags of `dramaturg experiment …` and their checks, once: the comparison's output (arms, format, alpha,
// chart) for compare, report and run; the models, scale, store and concurrency for run and table1, resolved
// against the project's settings (the judge's concurrency as eval reads it) before a store opens or a model
// is called; the result files `table1 --results` names.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { InputError } from "../core/index.ts";
import { addModelServerOptions, CONCURRENCY_HELP, type ModelServerFlags, wholeFlag } from "./flags.ts";

export interface ReportFlags {
  control?: string;
  treatment?: string;
  format: "table" | "json" | "markdown";
  alpha: string;
  svg?: string;
  db?: string;
  config?: string;
}

/** What `experiment run` and `experiment table1` share: the models, the scale, the store. */
export interface ExperimentModelFlags extends ModelServerFlags {
  scale: string;
  concurrency?: string;
  dryRun?: boolean;
}

export interface RunFlags extends ReportFlags, ExperimentModelFlags {
  population?: string;
  out?: string;
  queue?: boolean;
  detach?: boolean;
}

export interface Table1Flags extends Partial<ExperimentModelFlags> {
  results?: string[];
  format: "table" | "json" | "markdown";
  out?: string;
}

export interface CompareFlags {
  control?: string;
  treatment?: string;
  format: "table" | "json" | "markdown";
  alpha: string;
}

/**
 * The options of a comparison's output, shared by compare, report and run: the arms (where a file may hold
 * others), the format, alpha, and the chart.
 */
export function comparisonOptions(command: Command, { arms, svg }: { arms: boolean; svg: boolean }): Command {
  if (arms)
    command
      .option("--control <name>", 'the control arm (default: the arm named "control", any case)')
      .option(
        "--treatment <name>",
        'the treatment arm (default: the arm named "treatment", or the only other arm)',
      );
  command
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .option("--alpha <a>", "significance level: a difference is significant when p < alpha", "0.05");
  if (svg)
    command.option("--svg <file>", "also write a chart: per metric, both arms' values, means and 95% CIs");
  return command;
}

/**
 * The flags that say how experiments run: the models, the scale, the store; required for `run`, not for
 * `table1 --results`.
 */
function modelOptions(command: Command, required: boolean): Command {
  const model = "the agents' model (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL)";
  const judge = "judges the dimensions, the extraction, the gate (a model spec or fixtures:FILE)";
  if (required) command.requiredOption("--model <spec>", model).requiredOption("--judge <spec>", judge);
  else command.option("--model <spec>", model).option("--judge <spec>", judge);
  return addModelServerOptions(
    command.option("--scale <s>", "shrink the environments and agents proportionally (0 < s ≤ 1)", "1"),
  )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the judge")
    .option("--judge-api-key-env <var>", "environment variable holding the judge's API key")
    .option("--seed <n>", "seed of every environment's world (default: the scenario's)")
    .option("--concurrency <n>", CONCURRENCY_HELP)
    .option("--db <location>", "store location (default .dramaturg; a rerun on it resumes)")
    .option("--config <file>", "project file to use")
    .option(
      "--dry-run",
      "print the calls, tokens and cost per arm (agents and judge) this needs; call nothing, write nothing",
    );
}

/** `run`'s options: the models' and the comparison's, the people, the result file, the queue. */
export function runOptions(command: Command): Command {
  modelOptions(command, true)
    .option("--population <dir>", "the people (a population folder) instead of the scenario's")
    .option("--out <file>", "also write the result document (dramaturg.experiment-result/v1, JSON) here")
    .option(
      "--queue",
      "store the experiment and queue its environment runs for `dramaturg worker`s (--db postgres://…), then wait for them",
    )
    .option("--detach", "with --queue: print the experiment's id and exit without waiting for it");
  return comparisonOptions(command, { arms: false, svg: true });
}

/** `table1`'s options: the result files to compare, or the models' to run them, and where they go. */
export function table1Options(command: Command): Command {
  command.option(
    "--results <paths...>",
    "compare these instead of running: result files, folders of them, or EXPERIMENT=FILE (Dramaturg's results or TinyTroupe's)",
  );
  return modelOptions(command, false)
    .option("--out <dir>", "also write each experiment's result document here, as <scenario>.json")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    );
}

export function alphaOf(text: string): number {
  const alpha = Number(text);
  if (!(alpha > 0 && alpha < 1))
    throw new InputError(`expected a number between 0 and 1, got "${text}"`, { place: "--alpha" });
  return alpha;
}

/** `run --detach` goes with `--queue`, which does not go with `--dry-run`. */
export function checkRunModes({
  detach,
  queue,
  dryRun,
}: Pick<RunFlags, "detach" | "queue" | "dryRun">): void {
  if (detach && !queue) throw new InputError("--detach goes with --queue", { place: "--detach" });
  if (queue && dryRun)
    throw new InputError("--queue runs the experiment; --dry-run prices it: expected one or the other", {
      place: "--queue",
    });
}

/**
 * The files `table1 --results` names (it compares them, so it takes none of the flags that run experiments):
 * each file as given, each folder's `*.json` files in name order.
 */
export function table1ResultFiles({ results = [], model, judge, dryRun }: Table1Flags): string[] {
  if (model !== undefined || judge !== undefined || dryRun)
    throw new InputError(
      "--results compares result files, --model and --judge run the experiments; expected one or the other",
      { place: "--results" },
    );
  const out: string[] = [];
  for (const path of results) {
    // EXPERIMENT=FILE names a file; anything else may be a folder.
    if (/^[a-z0-9-]+=/.test(path) || !existsSync(path) || !statSync(path).isDirectory()) {
      out.push(path);
      continue;
    }
    const files = readdirSync(path)
      .filter((name) => name.toLowerCase().endsWith(".json"))
      .sort();
    if (files.length === 0) throw new InputError("no results files (*.json) in this folder", { file: path });
    out.push(...files.map((name) => join(path, name)));
  }
  return out;
}

/**
 * The flags of `run` and `table1`, checked, as the library's options: everything is read before a store is
 * opened or a model is called. Prices for a dry run come from the project's `prices` and the built-in table.
 */
export async function runSetup(flags: ExperimentModelFlags, command: "run" | "table1") {
  const [{ resolveSettings }, { priceFor }, { rateLimitSettingsOf }] = await Promise.all([
    import("./settings.ts"),
    import("./prices.ts"),
    import("./judge-rate-limit.ts"),
  ]);
  const scale = Number(flags.scale);
  if (!(scale > 0 && scale <= 1))
    throw new InputError(`expected a number above 0 and at most 1, got "${flags.scale}"`, {
      place: "--scale",
    });
  const seed = wholeFlag(flags.seed, "--seed", 0);
  for (const [flag, value] of [
    ["--model", flags.model],
    ["--judge", flags.judge],
  ] as const)
    if (value === undefined)
      throw new InputError(
        `experiment ${command} needs --model and --judge${command === "table1" ? " (or --results to compare files)" : ""}`,
        { place: flag },
      );
  const model = flags.model!;
  const judge = flags.judge!;
  const { settings } = resolveSettings({
    flags: { db: flags.db, concurrency: flags.concurrency },
    projectFile: flags.config,
  });
  const runOptions = {
    model,
    modelSettings: { baseUrl: flags.modelBaseUrl, apiKeyEnv: flags.modelApiKeyEnv },
    judge,
    judgeSettings: {
      baseUrl: flags.judgeBaseUrl,
      apiKeyEnv: flags.judgeApiKeyEnv,
      ...rateLimitSettingsOf(settings),
    },
    store: settings.db,
    scale,
    ...(seed === undefined ? {} : { seed }),
    concurrency: settings.judge.concurrency,
  };
  const agents = priceFor(model, settings.prices);
  const judged = priceFor(judge, settings.prices);
  const priceOptions = {
    model,
    judge,
    scale,
    prices: { ...(agents ? { agents } : {}), ...(judged ? { judge: judged } : {}) },
  };
  return { runOptions, priceOptions };
}
