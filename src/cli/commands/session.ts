// `dramaturg session analyze FILE…`: the library's analyzeSession, rendered as JSON (the seed's API
// response plus tool findings and latency), a table, or Markdown.
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { Option } from "commander";
import type { SessionAnalysis, SessionsAnalysis } from "../../sessions/index.ts";
import { renderSessionMarkdown, renderSessionTable } from "../../sessions/session-report.ts";
import type { Store } from "../../store/index.ts";
import { examples } from "../help-examples.ts";
import { storeKeptForReport, writeHtmlReportAfter } from "../html-report.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { registerStoredList } from "../stored-list.ts";

export function registerSessionCommands(program: Command): void {
  registerStoredList(program, {
    name: "sessions",
    description: "list stored session analyses, newest first",
    noun: "session analyses",
    key: "analyses",
    kind: async () => (await import("../../sessions/index.ts")).sessionKind,
  });
  const session = program
    .command("session")
    .description("analyse multi-agent sessions: tool calls, per-agent scores, bad turns");
  session
    .command("analyze")
    .description(
      "analyse sessions (our format, ReAsk's, OpenAI chat logs, OpenAI Agents SDK traces, OTLP traces) and print the analysis",
    )
    .argument("[files...]", "session files (JSON, or JSONL with one session or chat log per line)")
    .addOption(
      new Option("--from <format>", "read the files as this format (default: recognised)").choices([
        "session",
        "openai",
        "openai-agents",
        "otlp",
      ]),
    )
    .option("--tools <file>", "OpenAI-format tools for chat logs that do not carry them")
    .option(
      "--judge <judge>",
      "judge of the judged metrics (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL, fixtures:FILE); none = the deterministic parts only",
      "none",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server (Ollama, vLLM…)")
    .option("--judge-api-key-env <name>", "environment variable that holds the judge's API key")
    .option("--concurrency <n>", "judge calls in flight", "16")
    .option("--no-cache", "ask the judge even where the verdict cache has the answer")
    .option(
      "--ccm-threshold <x>",
      "word overlap (0–1) the two user messages need for a re-ask to count",
      "0.5",
    )
    .option("--db <location>", "store location (default .dramaturg; memory:// keeps nothing)")
    .option("--resume [id]", "complete the last interrupted analysis (or this one) in place")
    .option(
      "--queue",
      "store the analysis and queue its judge calls for `dramaturg worker`s (needs --db postgres://…), then wait for it",
    )
    .option("--detach", "with --queue: print the analysis's id and return without waiting")
    .option("--no-progress", "no progress bar")
    .option("--config <file>", "project file to use")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown", "html"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout (html: the report file)")
    .addHelpText(
      "after",
      examples(
        "dramaturg session analyze examples/sessions/refund.session.json --judge none",
        "dramaturg session analyze examples/sessions/refund.session.json --judge fixtures:examples/sessions/refund.judge-fixtures.json",
        "OPENAI_API_KEY=… dramaturg session analyze session.json --judge openai:gpt-4o-mini --format markdown",
        "dramaturg session analyze chat-log.jsonl --tools tools.json --format json",
        "dramaturg session analyze sessions/*.json --judge openai:gpt-4o-mini --db postgres://… --queue",
      ),
    )
    .action(async (files: string[], flags: SessionFlags) => {
      checkOutputPaths({ "--out": flags.out });
      const { analyzeSession } = await import("../../sessions/index.ts");
      const { InputError, expandFilePatterns } = await import("../../core/index.ts");
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
        throw new InputError(
          `--concurrency must be a whole number from 1 to 256, got "${flags.concurrency}"`,
        );
      const ccmThreshold = Number(flags.ccmThreshold);
      if (!(ccmThreshold >= 0 && ccmThreshold <= 1))
        throw new InputError(`--ccm-threshold must be a number from 0 to 1, got "${flags.ccmThreshold}"`);
      const [{ resolveSettings }, { withInterrupts }, { progressBar }, { rateLimitSettingsOf }] =
        await Promise.all([
          import("../settings.ts"),
          import("../interrupts.ts"),
          import("../progress.ts"),
          import("../judge-rate-limit.ts"),
        ]);
      const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
      const judgeSettings = {
        baseUrl: flags.judgeBaseUrl,
        apiKeyEnv: flags.judgeApiKeyEnv,
        ...rateLimitSettingsOf(settings),
      };
      const onProgress = progressBar(flags.resume ? "resuming" : "judging", flags.progress !== false);
      let result: SessionsAnalysis;
      let kept: Store | undefined;
      if (flags.detach && !flags.queue)
        throw new InputError("--detach goes with --queue", { place: "--detach" });
      if (flags.queue) {
        if (flags.resume !== undefined)
          throw new InputError("--queue starts a new analysis; a queued one is resumed by its workers", {
            place: "--queue",
          });
        if (files.length === 0) throw new InputError("give the session files to analyse");
        const queued = await analyzeQueued(expandFilePatterns(files, { noun: "session file" }), {
          from: flags.from,
          tools: flags.tools,
          judge: flags.judge,
          judgeSettings,
          db: settings.db,
          ccmThreshold,
          detach: flags.detach === true,
        });
        if (!queued.result) {
          process.stdout.write(`${queued.evaluationId}\n`);
          return;
        }
        result = queued.result;
      } else if (flags.resume !== undefined) {
        if (files.length > 0)
          throw new InputError("--resume continues a stored analysis; give no files with it");
        const { resumeSessionAnalysis } = await import("../../sessions/index.ts");
        const { openStore, storeExists } = await import("../../store/index.ts");
        if (!storeExists(settings.db))
          throw new InputError("no store here to resume from", { place: settings.db });
        const store = await openStore(settings.db);
        try {
          result = await withInterrupts(
            (signal) =>
              resumeSessionAnalysis({
                store,
                id: typeof flags.resume === "string" ? flags.resume : undefined,
                judge: flags.judge === "none" ? undefined : flags.judge,
                judgeSettings,
                concurrency,
                cache: flags.cache,
                onProgress,
                signal,
              }),
            { resumeWith: "dramaturg session analyze --resume" },
          );
        } finally {
          await store.close();
        }
      } else {
        if (files.length === 0) throw new InputError("give the session files to analyse (or --resume)");
        const sessionFiles = expandFilePatterns(files, { noun: "session file" });
        // The run exists in the store once it has started: until then a second Ctrl-C waits for it.
        let started!: () => void;
        const resumable = new Promise<void>((resolve) => {
          started = resolve;
        });
        kept = flags.format === "html" ? await storeKeptForReport(settings.db) : undefined;
        result = await withInterrupts(
          (signal) =>
            analyzeSession(sessionFiles, {
              from: flags.from,
              tools: flags.tools,
              judge: flags.judge,
              judgeSettings,
              store: kept ?? settings.db,
              concurrency,
              cache: flags.cache,
              ccmThreshold,
              onProgress: (event) => {
                if (event.type === "started") started();
                onProgress(event);
              },
              signal,
            }),
          { resumable, resumeWith: "dramaturg session analyze --resume" },
        );
      }
      if (result.judge?.errored)
        process.stderr.write(
          `dramaturg: ${result.judge.errored} judge verdict(s) failed; their metrics are null and left out of the scores\n`,
        );
      if (flags.format !== "html") return emitSessions(result, flags.format, flags.out);
      if (result.evaluation_id === undefined) throw new Error("the analysis was not stored");
      await writeHtmlReportAfter(kept, settings.db, {
        evaluationIds: [result.evaluation_id],
        out: flags.out,
      });
      if (flags.out) await emitSessions(result, "table");
    });
}

/**
 * `session analyze --queue`: the sessions read and checked and the judge built as in process (bad input
 * writes nothing), the analysis stored and its judge calls queued for `dramaturg worker`s; then followed until
 * it completes (its result), or with `detach` left to them. Only a PostgreSQL store can be shared with workers.
 */
async function analyzeQueued(
  files: string[],
  options: {
    from?: string;
    tools?: string;
    judge: string;
    judgeSettings: { baseUrl?: string; apiKeyEnv?: string };
    db: string;
    ccmThreshold: number;
    detach: boolean;
  },
): Promise<{ evaluationId: string; result?: SessionsAnalysis }> {
  const { InputError, parseStoreLocation } = await import("../../core/index.ts");
  if (parseStoreLocation(options.db).kind !== "postgres")
    throw new InputError(
      "--queue needs a PostgreSQL store that workers can reach: pass --db postgres://… (this store is local to this process)",
      { place: "--queue" },
    );
  if (options.judge === "none")
    throw new InputError("--queue queues judge calls; --judge none makes none (run it without --queue)", {
      place: "--judge",
    });
  const [{ prepareSessionAnalysis }, { prepareJudge, openStore }, queue] = await Promise.all([
    import("../../sessions/index.ts"),
    import("../../engine/index.ts"),
    import("../../queue/index.ts"),
  ]);
  const prepared = prepareSessionAnalysis(files, { from: options.from, tools: options.tools });
  const { checkQueueSettings, followTellingOfNoWorker } = await import("../queued-wait.ts");
  await checkQueueSettings();
  // Built to check it (a bad spec, a missing fixtures file or API key is bad input) and to describe it.
  const built = prepareJudge(options.judge, options.judgeSettings, { cache: false });
  try {
    const store = await openStore(options.db);
    try {
      const { evaluationId, jobs } = await queue.enqueueSessionAnalysis(prepared, {
        store,
        connectionString: options.db,
        judge: built.judge.descriptor,
        judgeSpec: options.judge,
        ccmThreshold: options.ccmThreshold,
      });
      if (options.detach) return { evaluationId };
      process.stderr.write(`queued session analysis ${evaluationId} as ${jobs} jobs; waiting for workers\n`);
      const waiting = { store, db: options.db, queue: queue.SESSION_CHUNKS, id: evaluationId };
      const analysis = await followTellingOfNoWorker(
        { ...waiting, matching: [{ evaluation_id: evaluationId }], what: `session analysis ${evaluationId}` },
        () => queue.followEvaluation<SessionsAnalysis>(store, evaluationId),
      );
      return { evaluationId, result: { ...analysis, evaluation_id: evaluationId } };
    } finally {
      await store.close();
    }
  } finally {
    await built.close();
  }
}

interface SessionFlags {
  from?: string;
  tools?: string;
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  concurrency: string;
  cache: boolean;
  ccmThreshold: string;
  db?: string;
  config?: string;
  resume?: string | boolean;
  queue?: boolean;
  detach?: boolean;
  progress?: boolean;
  format: string;
  out?: string;
}

export type { SessionAnalysis };

/** Writes an analysis in `format` to `out` or stdout (JSON: the library's document of it). */
async function emitSessions(result: SessionsAnalysis, format: string, out?: string): Promise<void> {
  const text =
    format === "json"
      ? `${JSON.stringify((await import("../../sessions/index.ts")).sessionsDocument(result), null, 2)}\n`
      : `${format === "markdown" ? renderSessionMarkdown(result) : renderSessionTable(result)}\n`;
  if (out) {
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(text);
}
