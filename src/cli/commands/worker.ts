// `dramaturg worker`: takes queued evaluations' jobs from a PostgreSQL store until SIGTERM or Ctrl-C, which
// drain it (no new jobs; those in hand finish), then exits 0.
import type { Command } from "commander";
import { InputError, parseStoreLocation } from "../../core/index.ts";
import { openStore } from "../../store/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { judgeSettingsOf } from "../persona-evaluation.ts";
import { resolveSettings } from "../settings.ts";

export interface WorkerFlags {
  db?: string;
  concurrency?: string;
  kinds?: string;
  config?: string;
  judgeApiKeyEnv?: string;
  timeout?: string;
  retries?: string;
  cache?: boolean;
}

/** Adds the `worker` command to the program. */
export function registerWorkerCommand(program: Command): void {
  program
    .command("worker")
    .description("judge queued evaluations (eval --queue) from a PostgreSQL store")
    .option("--db <location>", "the PostgreSQL store the evaluations are queued in (postgres://…)")
    .option("--concurrency <n>", "judge calls in flight at once in this worker (default: the project's)")
    .option(
      "--kinds <list>",
      "the kinds of job to take, comma-separated (default: all): persona, conversation, experiment",
    )
    .option("--judge-api-key-env <var>", "environment variable holding the judges' API key")
    .option("--timeout <ms>", "per-call timeout in milliseconds")
    .option("--retries <n>", "retries per judge call")
    .option("--no-cache", "neither read nor write the verdict cache")
    .option("--config <file>", "project file to use instead of searching for dramaturg.yaml")
    .addHelpText(
      "after",
      examples(
        "dramaturg worker --db postgres://user@db/dramaturg --concurrency 8",
        "OPENAI_API_KEY=… dramaturg worker --db postgres://user@db/dramaturg --judge-api-key-env OPENAI_API_KEY",
      ),
    )
    .action(async (flags: WorkerFlags) => {
      setExitCode(await workerCommand(flags));
    });
}

export async function workerCommand(flags: WorkerFlags): Promise<number> {
  const { settings } = resolveSettings({
    flags: {
      db: flags.db,
      concurrency: flags.concurrency,
      judgeApiKeyEnv: flags.judgeApiKeyEnv,
      timeout: flags.timeout,
      retries: flags.retries,
      cache: flags.cache,
    },
    projectFile: flags.config,
  });
  if (parseStoreLocation(settings.db).kind !== "postgres")
    throw new InputError("a worker takes its jobs from a PostgreSQL store: pass --db postgres://…", {
      place: "--db",
    });
  const { startWorker } = await import("../../queue/index.ts");
  const store = await openStore(settings.db);
  try {
    // The rate limit is kept in the store's database by the worker itself (startWorker), through its own pool.
    const { baseUrl: _, rateLimits: __, ...judgeSettings } = judgeSettingsOf(settings);
    const worker = await startWorker({
      store,
      connectionString: settings.db,
      concurrency: settings.judge.concurrency,
      kinds: flags.kinds
        ?.split(",")
        .map((kind) => kind.trim())
        .filter(Boolean),
      judgeSettings,
      cache: settings.cache,
    });
    process.stderr.write(`dramaturg worker: taking jobs from ${store.location}\n`);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once("SIGTERM", () => resolve("SIGTERM"));
      process.once("SIGINT", () => resolve("SIGINT"));
    });
    process.stderr.write(`dramaturg worker: ${signal}: finishing the jobs in hand\n`);
    await worker.stop();
    return 0;
  } finally {
    await store.close();
  }
}
