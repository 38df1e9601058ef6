// Flags that several commands share, and checks of them for callers that bypass commander's own choices.
import { type Command, Option } from "commander";
import { DEFAULT_CONCURRENCY, InputError } from "../core/index.ts";

/**
 * `--concurrency` of a command whose judge runs here: model (judge) calls in flight at once. It has no
 * default of its own, so that the project's `judge.concurrency` holds when the flag is not given.
 */
export const CONCURRENCY_HELP = `judge calls in flight at once (default: judge.concurrency of the project file, else ${DEFAULT_CONCURRENCY})`;

/** `--format` of the listing commands: table (the default) or json. */
export function tableOrJson(format: string | undefined): "table" | "json" {
  const chosen = format ?? "table";
  if (chosen !== "table" && chosen !== "json")
    throw new InputError(`--format must be table or json, got ${JSON.stringify(format)}`);
  return chosen;
}

/** `--limit`: a positive whole number, or `fallback` when the flag is absent. */
export function limitFlag(limit: string | undefined, fallback: number): number {
  const value = limit === undefined ? fallback : Number(limit);
  if (!Number.isInteger(value) || value < 1)
    throw new InputError(`--limit must be a whole number of at least 1, got ${JSON.stringify(limit)}`);
  return value;
}

/** A whole number flag of at least `min` (undefined when absent), or an InputError naming the flag. */
export function wholeFlag(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < min)
    throw new InputError(`expected a whole number of ${min} or more, got "${value}"`, { place: flag });
  return n;
}

/** A κ bar (`--min-kappa`, `--min-agreement`): a number from -1 to 1; undefined when not given. */
export function kappaFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const k = Number(value);
  if (value.trim() === "" || !Number.isFinite(k) || k < -1 || k > 1)
    throw new InputError(`expected a quadratic κ from -1 to 1, got "${value}"`, { place: flag });
  return k;
}

/** The flags of a command that runs the agents' model and judges it: the model, the judge, their servers. */
export interface ModelServerFlags {
  model?: string;
  modelBaseUrl?: string;
  modelApiKeyEnv?: string;
  judge?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  seed?: string;
  db?: string;
  config?: string;
}

/**
 * The agents' model's server, under the names eval and population use: `--model-base-url` and
 * `--model-api-key-env`. simulate and experiment called them `--base-url` and `--api-key-env`; those still
 * work, hidden from help, and are read as the new names (a name given under both: the new one wins).
 */
export function addModelServerOptions(command: Command): Command {
  return command
    .option("--model-base-url <url>", "base URL of an OpenAI-compatible server for the agents' model")
    .option("--model-api-key-env <var>", "environment variable holding the agents' API key")
    .addOption(new Option("--base-url <url>").hideHelp())
    .addOption(new Option("--api-key-env <var>").hideHelp())
    .hook("preAction", (cmd) => {
      const { baseUrl, apiKeyEnv, modelBaseUrl, modelApiKeyEnv } = cmd.opts();
      if (modelBaseUrl === undefined && baseUrl !== undefined) cmd.setOptionValue("modelBaseUrl", baseUrl);
      if (modelApiKeyEnv === undefined && apiKeyEnv !== undefined)
        cmd.setOptionValue("modelApiKeyEnv", apiKeyEnv);
    });
}
