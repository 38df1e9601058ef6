// `dramaturg serve`: the HTTP API and the dashboard over the store, until Ctrl-C or SIGTERM. Loopback by
// default; any other host needs DRAMATURG_TOKEN, which every request must then carry. The token is never printed.
import type { Command } from "commander";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";

export interface ServeFlags {
  db?: string;
  host: string;
  port: string;
  bodyLimit?: string;
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  config?: string;
  baselines?: string;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description(
      "serve the JSON API and the dashboard over the store (agents, runs, sessions, conversations, corrections)",
    )
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--host <host>", "address to listen on; other than loopback needs DRAMATURG_TOKEN", "127.0.0.1")
    .option("--port <n>", "port to listen on (0: any free port)", "4477")
    .option("--body-limit <bytes>", "largest request body; larger get 413 (default 10 MiB)")
    .option(
      "--judge <judge>",
      "judge of posted sessions and traces (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL, fixtures:FILE); none = the deterministic parts only",
      "none",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server (Ollama, vLLM…)")
    .option("--judge-api-key-env <name>", "environment variable that holds the judge's API key")
    .option("--config <file>", "project file to use")
    .option(
      "--baselines <dir>",
      "baselines the drift charts draw and mark regressions against (default the project's)",
    )
    .addHelpText(
      "after",
      examples(
        "dramaturg serve",
        "dramaturg serve --db postgres://user@db/dramaturg --port 8080",
        "DRAMATURG_TOKEN=$(openssl rand -hex 24) dramaturg serve --host 0.0.0.0",
      ),
    )
    .action(async (flags: ServeFlags) => setExitCode(await serveCommand(flags)));
}

/** A whole number flag within bounds, or an InputError naming it. */
function wholeFlag(
  value: string,
  flag: string,
  min: number,
  max: number,
  InputError: typeof import("../../core/index.ts").InputError,
): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new InputError(`expected a whole number from ${min} to ${max}, got "${value}"`, { place: flag });
  return n;
}

/** Serves until SIGINT or SIGTERM, then stops listening and closes the store; 0 when stopped so. */
export async function serveCommand(
  flags: ServeFlags,
  signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"],
): Promise<number> {
  const [{ InputError }, { resolveSettings }, { startServer, TOKEN_ENV }] = await Promise.all([
    import("../../core/index.ts"),
    import("../settings.ts"),
    import("../../server/index.ts"),
  ]);
  const port = wholeFlag(flags.port, "--port", 0, 65535, InputError);
  const bodyLimit =
    flags.bodyLimit === undefined
      ? undefined
      : wholeFlag(flags.bodyLimit, "--body-limit", 1, 2 ** 31, InputError);
  const { settings, origins } = resolveSettings({
    flags: { db: flags.db, baselines: flags.baselines },
    projectFile: flags.config,
  });
  // Baselines are optional here: a project without them still gets its pages, without reference lines.
  // Only a folder named by a flag or the project file must be there and valid.
  const { existsSync } = await import("node:fs");
  const { readBaselineFolder } = await import("../../harness/index.ts");
  const baselines =
    origins.baselines === "default" && !existsSync(settings.baselines)
      ? undefined
      : readBaselineFolder(settings.baselines);
  const token = process.env[TOKEN_ENV] || undefined;
  const server = await startServer({
    db: settings.db,
    host: flags.host,
    port,
    token,
    bodyLimit,
    judge: flags.judge,
    judgeSettings: { baseUrl: flags.judgeBaseUrl, apiKeyEnv: flags.judgeApiKeyEnv },
    baselines,
    regressionThreshold: settings.thresholds.regression,
  });
  const { redactUrl } = await import("../../store/index.ts");
  process.stdout.write(
    `dramaturg: serving ${server.url} (store ${redactUrl(settings.db)}${token ? `; requests need ${TOKEN_ENV}` : ""}); Ctrl-C stops\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      for (const s of signals) process.off(s, stop);
      resolve();
    };
    for (const s of signals) process.once(s, stop);
  });
  await server.close();
  process.stderr.write("dramaturg: stopped\n");
  return 0;
}
