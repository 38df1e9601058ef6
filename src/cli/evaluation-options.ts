// The flags of a persona evaluation, shared by the commands that run one (eval, baseline, ci, record) and by
// `config print`, which shows what they resolve to.
import { type Command, Option } from "commander";
import { SESSION_FORMATS } from "../sessions/session-formats.ts";
import { DEFAULT_SETTINGS, type FlagSettings } from "./settings.ts";

export interface EvalFlags extends FlagSettings {
  format?: string;
  out?: string;
  record?: string;
  agent?: string;
  windowStart?: string;
  windowEnd?: string;
  fromStore?: boolean;
  /** Read the files as this session format (langfuse, langsmith, inspect…) instead of recognising each. */
  from?: string;
  progress?: boolean;
  config?: string;
  /** `true` for the last interrupted evaluation, or an evaluation or run id (or its first 8+ characters). */
  resume?: string | true;
  dryRun?: boolean;
  /** Synthetic mode: a world file to run, whose transcript is then evaluated. */
  synthetic?: string;
  /** The synthetic world's agents' model, its base URL and API key variable, and how many steps to run. */
  model?: string;
  modelBaseUrl?: string;
  modelApiKeyEnv?: string;
  steps?: string;
  /** Queue the judge calls for `dramaturg worker`s (a PostgreSQL store) instead of judging here. */
  queue?: boolean;
  /** With `queue`: print the evaluation's id and return without waiting for it. */
  detach?: boolean;
}

/** Options shared by eval, baseline, ci, record and config print. */
export function addEvaluationOptions(command: Command): Command {
  // Defaults are shown, not set: a value commander filled in would look like a flag and override the project file.
  const d = DEFAULT_SETTINGS;
  return command
    .option(
      "--propositions <dir>",
      "propositions folder (one subfolder per dimension: _default.yaml, <agent_id>.yaml); a dimension with no _default.yaml (or no subfolder) starts from the built-in set, agent files merged on top; without a folder, the built-in sets",
    )
    .option(
      "--dimensions <list>",
      "comma-separated: adherence,consistency,fluency,convergence,ideas_quantity (default: all five)",
    )
    .option("--agents <list>", "comma-separated agent ids (default: every agent with messages)")
    .option("--agent <id>", "a single agent (same as --agents <id>)")
    .option("--judge <spec>", "openai:MODEL | anthropic:MODEL | openai-compatible:MODEL | fixtures:FILE")
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp)")
    .option(
      "--judge-api-key-env <var>",
      "environment variable holding the judge's API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)",
    )
    .option(
      "--mode <mode>",
      `individual (one proposition per call) or batch (up to 10 per call) (default: ${d.judge.mode})`,
    )
    .option("--concurrency <n>", `judge calls in flight at once (default: ${d.judge.concurrency})`)
    .option("--timeout <ms>", `per-call timeout in milliseconds (default: ${d.judge.timeout_ms})`)
    .option("--temperature <t>", `judge sampling temperature (default: ${d.judge.temperature})`)
    .option(
      "--retries <n>",
      `retries per judge call (429, 5xx, malformed answers) (default: ${d.judge.retries})`,
    )
    .option(
      "--trials <n>",
      `judge everything N times (N real judgements) and report the spread (default: ${d.trials})`,
    )
    .option("--sample <n>", "judge at most N messages per agent, picked with --seed (default: every message)")
    .option("--seed <n>", "seed of --sample (default: 0)")
    .option("--window-start <iso>", "only messages at or after this time")
    .option("--window-end <iso>", "only messages at or before this time")
    .option("--from-store", "evaluate the messages stored by `dramaturg import` instead of a file")
    .addOption(
      new Option(
        "--from <format>",
        "read the files as this trace or log format (default: a transcript as it is, any other file recognised)",
      ).choices(SESSION_FORMATS),
    )
    .option("--db <location>", `store: a PGlite folder, memory://, or postgres://… (default: ${d.db})`)
    .option("--config <file>", "project file to use instead of searching for dramaturg.yaml")
    .option("--dry-run", "print the judge calls, tokens and cost this needs; judge nothing, write nothing")
    .option("--no-cache", "neither read nor write the verdict cache (live judges; default: cached)")
    .option("--no-progress", "no progress bar on stderr");
}
