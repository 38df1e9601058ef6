// `dramaturg serve`: the HTTP API and the dashboard over the store, until Ctrl-C or SIGTERM. Loopback by
// default; any other host needs DRAMATURG_TOKEN (32 characters at least), which every request must then
// carry. Requests must name this server in their Host header (`--allowed-host` adds names). The token is
// never printed.
import type { Command } from "commander";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";

export interface ServeFlags {
  db?: string;
  host: string;
  /** Undefined when not given: 4477, and a taken default port is the machine's state, not bad usage. */
  port?: string;
  bodyLimit?: string;
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  config?: string;
  baselines?: string;
  allowedHost: string[];
  sessionTtl: string;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description(
      "serve the JSON API and the dashboard over the store (agents, runs, sessions, conversations, corrections)",
    )
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--host <host>", "address to listen on; other than loopback needs DRAMATURG_TOKEN", "127.0.0.1")
    .option("--port <n>", "port to listen on (default 4477; 0: any free port)")
    .option(
      "--allowed-host <name>",
      "a name this server is reached by (dashboard.example.com, or NAME:PORT for one port); requests naming another host in Host get 421; repeatable",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      "--session-ttl <duration>",
      "how long a sign-in at /login lasts: 30m, 12h, 7d (at most 30d)",
      "12h",
    )
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
        "DRAMATURG_TOKEN=$(openssl rand -base64 32) dramaturg serve --host 0.0.0.0 --allowed-host dashboard.example.com",
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

const DURATION_SECONDS = { m: 60, h: 3600, d: 86_400 } as const;

/** A session lifetime flag, `30m`, `12h` or `7d`, in seconds; an InputError naming the flag otherwise. */
async function durationFlag(
  value: string,
  flag: string,
  InputError: typeof import("../../core/index.ts").InputError,
): Promise<number> {
  const { z } = await import("zod");
  const parsed = z
    .string()
    .regex(/^\d{1,6}[mhd]$/)
    .transform(
      (text) => Number(text.slice(0, -1)) * DURATION_SECONDS[text.at(-1) as keyof typeof DURATION_SECONDS],
    )
    .refine((seconds) => seconds >= 60 && seconds <= 30 * 86_400)
    .safeParse(value);
  if (!parsed.success)
    throw new InputError(`expected a duration from 1m to 30d such as 30m, 12h or 7d, got "${value}"`, {
      place: flag,
    });
  return parsed.data;
}

/** Serves until SIGINT or SIGTERM, then stops listening and closes the store; 0 when stopped so. */
export async function serveCommand(
  flags: ServeFlags,
  signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"],
): Promise<number> {
  const [{ DramaturgError, InputError }, { resolveSettings }, { startServer, TOKEN_ENV }] = await Promise.all(
    [import("../../core/index.ts"), import("../settings.ts"), import("../../server/index.ts")],
  );
  const port = wholeFlag(flags.port ?? "4477", "--port", 0, 65535, InputError);
  const sessionTtl = await durationFlag(flags.sessionTtl, "--session-ttl", InputError);
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
  const { readBaselineFolder } = await import("../../regression/index.ts");
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
    allowedHosts: flags.allowedHost,
    sessionTtl,
    bodyLimit,
    judge: flags.judge,
    judgeSettings: { baseUrl: flags.judgeBaseUrl, apiKeyEnv: flags.judgeApiKeyEnv },
    baselines,
    regressionThreshold: settings.thresholds.regression,
    // Where `dramaturg export` keeps what it sent: the pages link traces exported to Phoenix.
    exportLedger: (await import("../score-export.ts")).defaultLedger(settings.db),
  }).catch((error: unknown) => {
    // A port the user named that is taken is bad usage (exit 2); the default one taken is the machine's state,
    // so the server could not start (exit 3). Same message either way: the port and the fix.
    if (flags.port !== undefined || !InputError.isInstance(error) || error.place !== "--port") throw error;
    throw new DramaturgError("ListenError", error.message, { exitCode: 3, cause: error });
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
