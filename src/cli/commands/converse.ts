// `dramaturg converse JOB.yml…`: the library's runConversationTrials per job, both passes side by side,
// the assertions with their actual values, the composite, pass^k over --trials; exit 1 when a job's
// score (any trial's) is under --min-score, 3 when a job could not be scored at all (the agent failed every
// pass). --record/--replay keep the models' answers in cassettes.
import { writeFileSync } from "node:fs";
import { type Command, Option } from "commander";
import {
  renderConversationMarkdown,
  renderConversationTable,
  renderTrials,
} from "../../conversations/conversation-report.ts";
import type { ConversationTrials } from "../../conversations/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { writeHtmlReport, writeHtmlReportFrom } from "../html-report.ts";
import { checkOutputPaths } from "../output-paths.ts";
import type { QueuedConversationsOutcome } from "../queued-conversations.ts";
import { registerStoredList } from "../stored-list.ts";

interface ConverseFlags {
  targetUrl?: string;
  userModel?: string;
  userBaseUrl?: string;
  userApiKeyEnv?: string;
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  passes: "both" | "without" | "with";
  minScore?: string;
  seed: string;
  concurrency: string;
  progress?: boolean;
  format: string;
  record?: string;
  replay?: string;
  trials: string;
  out?: string;
  db?: string;
  config?: string;
  queue?: boolean;
  detach?: boolean;
}

/** The report of every trial of the jobs that ran, in job order. */
const htmlReportOf = (jobs: readonly (ConversationTrials | undefined)[], out: string | undefined) => ({
  evaluationIds: jobs.flatMap(
    (j) => j?.trials.flatMap((t) => (t.evaluation_id ? [t.evaluation_id] : [])) ?? [],
  ),
  out,
});

export function registerConverseCommand(program: Command): void {
  registerStoredList(program, {
    name: "conversations",
    description: "list stored conversation runs, newest first",
    noun: "conversations",
    key: "conversations",
    kind: async () => (await import("../../conversations/index.ts")).conversationKind,
  });
  program
    .command("converse")
    .description("run conversation jobs against a live agent with a simulated user, and score them")
    .argument("<jobs...>", "conversation job files (YAML; `dramaturg schema conversation`)")
    .option("--target-url <url>", "the agent's endpoint (default: each job's target.url)")
    .option(
      "--user-model <spec>",
      "the simulated user's model (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL); not needed with --replay",
    )
    .option("--user-base-url <url>", "base URL of an OpenAI-compatible server for the simulated user")
    .option("--user-api-key-env <name>", "environment variable that holds the simulated user's API key")
    .requiredOption("--judge <spec>", "the transcript scorer (a model spec, or fixtures:FILE)")
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the scorer")
    .option("--judge-api-key-env <name>", "environment variable that holds the scorer's API key")
    .addOption(
      new Option("--passes <which>", "which passes to run")
        .choices(["both", "without", "with"])
        .default("both"),
    )
    .option("--concurrency <n>", "jobs run at once", "1")
    .option("--no-progress", "no live progress")
    .option(
      "--min-score <x>",
      "exit 1 when a job's score (the mean of its passes) is under this, in any trial; with --trials, report pass^k",
    )
    .option(
      "--seed <n>",
      "chooses the greetings (a rerun greets the same way); trial k uses seed + k − 1",
      "1",
    )
    .option("--trials <n>", "run each job this many times (each trial judged on its own)", "1")
    .option(
      "--record <dir>",
      "record the simulated user's and the model scorer's answers to DIR/<job>.cassette.json",
    )
    .option("--replay <dir>", "replay the answers from DIR/<job>.cassette.json: no model is called")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown", "html"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout (html: the report file)")
    .option("--db <location>", "store location (default .dramaturg; memory:// keeps nothing)")
    .option("--config <file>", "project file to use")
    .option(
      "--queue",
      "store each conversation and queue it for `dramaturg worker`s (--db postgres://…), then wait for them",
    )
    .option("--detach", "with --queue: print the conversations' evaluation ids and exit without waiting")
    .addHelpText(
      "after",
      examples(
        "OPENAI_API_KEY=… dramaturg converse jobs/reminders.yml --user-model openai:gpt-4o-mini --judge openai:gpt-4o-mini --min-score 0.7",
        "dramaturg converse job.yml --target-url http://127.0.0.1:8081/v1 --user-model openai-compatible:llama3.1 --user-base-url http://127.0.0.1:11434/v1 --judge fixtures:verdicts.json",
        "dramaturg converse job.yml --user-model openai:gpt-4o-mini --judge openai:gpt-4o-mini --record cassettes/",
        "dramaturg converse job.yml --judge openai:gpt-4o-mini --replay cassettes/ --trials 3 --min-score 0.7",
      ),
    )
    .action(async (patterns: string[], flags: ConverseFlags) => {
      checkOutputPaths({ "--out": flags.out }, { "--record": flags.record });
      const [
        { runConversationTrials, loadConversationJob, conversationCassetteFile, SIMULATED_USER_PROBE },
        { createJudgeModel, Cassette },
        { DramaturgError, expandFilePatterns, InputError, redactSecrets },
        { resolveSettings },
        { rateLimitSettingsOf },
      ] = await Promise.all([
        import("../../conversations/index.ts"),
        import("../../judge/index.ts"),
        import("../../core/index.ts"),
        import("../settings.ts"),
        import("../judge-rate-limit.ts"),
      ]);
      const jobs = expandFilePatterns(patterns, { noun: "conversation job file" });
      const minScore = flags.minScore === undefined ? undefined : Number(flags.minScore);
      if (minScore !== undefined && !(minScore >= -1 && minScore <= 1))
        throw new InputError(`--min-score must be a number from -1 to 1, got "${flags.minScore}"`);
      const seed = Number(flags.seed);
      if (!Number.isInteger(seed)) throw new InputError(`--seed must be a whole number, got "${flags.seed}"`);
      const trials = Number(flags.trials);
      if (!Number.isInteger(trials) || trials < 1 || trials > 100)
        throw new InputError(`--trials must be a whole number from 1 to 100, got "${flags.trials}"`);
      if (flags.record !== undefined && flags.replay !== undefined)
        throw new InputError("--record and --replay exclude each other");
      if (flags.detach && !flags.queue)
        throw new InputError("--detach goes with --queue", { place: "--detach" });
      // A worker runs the conversation on its own machine: this one's cassettes are not there.
      if (flags.queue && (flags.record !== undefined || flags.replay !== undefined))
        throw new InputError(
          "--queue takes neither --record nor --replay (cassettes are this machine's files)",
          {
            place: "--queue",
          },
        );
      const cassettes = flags.record ?? flags.replay;
      if (cassettes !== undefined) {
        // Two jobs named alike would share, and overwrite, one cassette.
        const seen = new Map<string, string>();
        for (const file of jobs) {
          const cassette = conversationCassetteFile(cassettes, file);
          const other = seen.get(cassette);
          if (other !== undefined)
            throw new InputError(`${other} and ${file} would share the cassette ${cassette}: rename one`);
          seen.set(cassette, file);
          // A replay reads every cassette first: a bad third one stops the first job too.
          if (flags.replay !== undefined) Cassette.replay(cassette);
        }
      }
      if (flags.userModel === undefined && flags.replay === undefined)
        throw new InputError("--user-model is required (unless --replay gives the simulated user's answers)");
      // Every job file is checked before anything runs: a mistake in the third stops the first too.
      const loaded = jobs.map((file) => ({ file, job: loadConversationJob(file) }));
      let queued: QueuedConversationsOutcome | undefined;
      if (flags.queue) {
        const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
        const { runQueuedConversations } = await import("../queued-conversations.ts");
        queued = await runQueuedConversations(loaded, {
          ...flags,
          userModel: flags.userModel!,
          db: settings.db,
          seed,
          trials,
          minScore,
        });
        if (!queued) return;
      }
      const slots: (ConversationTrials | undefined)[] = queued?.slots ?? new Array(loaded.length);
      const results = slots as ConversationTrials[];
      const failures: { job: string; error: unknown }[] = queued?.failures ?? [];
      if (!queued) {
        const userModel =
          flags.replay === undefined && flags.userModel !== undefined
            ? createJudgeModel(flags.userModel, {
                baseUrl: flags.userBaseUrl,
                apiKeyEnv: flags.userApiKeyEnv,
                probe: SIMULATED_USER_PROBE,
              }).model
            : undefined;
        const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
        const concurrency = Number(flags.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
          throw new InputError(
            `--concurrency must be a whole number from 1 to 64, got "${flags.concurrency}"`,
          );
        // One store for every job: a PGlite folder is opened once, whatever the concurrency.
        const { openStore } = await import("../../store/index.ts");
        const store = await openStore(settings.db);
        // Live progress on a terminal: which job and pass is at which exchange.
        const live = process.stderr.isTTY === true && flags.progress !== false;
        let finished = 0;
        const draw = (text: string) => {
          if (live) process.stderr.write(`\r\x1b[2K${text}`);
        };
        try {
          let next = 0;
          const worker = async () => {
            while (next < loaded.length) {
              const i = next++;
              let current = "";
              const { file, job } = loaded[i]!;
              // A job that cannot complete (its cassette lacks an answer, the scorer is unreachable) is reported
              // with its error; the other jobs go on, and the store stays open until every worker is done.
              try {
                results[i] = await runConversationTrials(job, {
                  trials,
                  minScore,
                  record: flags.record,
                  replay: flags.replay,
                  userModel,
                  judge: flags.judge,
                  judgeSettings: {
                    baseUrl: flags.judgeBaseUrl,
                    apiKeyEnv: flags.judgeApiKeyEnv,
                    ...rateLimitSettingsOf(settings),
                  },
                  targetUrl: flags.targetUrl,
                  passes: flags.passes,
                  seed,
                  store,
                  name: file,
                  onTrial: (trial) => (current = trials > 1 ? ` trial ${trial}/${trials}` : ""),
                  onTurn: (pass, turn, of) =>
                    draw(
                      `jobs ${finished}/${loaded.length} · ${file}${current} ${pass.replace("_", " ")}: exchange ${turn}/${of}`,
                    ),
                });
              } catch (error) {
                failures.push({ job: file, error });
              }
              finished++;
              draw(`jobs ${finished}/${loaded.length}`);
            }
          };
          await Promise.all(Array.from({ length: Math.min(concurrency, loaded.length) }, worker));
          // The report reads the stored conversations: written before a memory:// store lets them go.
          if (flags.format === "html") await writeHtmlReport(store, htmlReportOf(results, flags.out));
        } finally {
          if (live) process.stderr.write("\r\x1b[2K");
          await store.close();
        }
      }
      const done = slots.filter((r): r is ConversationTrials => r !== undefined);
      if (queued && flags.format === "html") {
        const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
        await writeHtmlReportFrom(settings.db, htmlReportOf(done, flags.out));
      }
      const failed = failures.map(({ job, error }) => ({
        job,
        error: {
          name: (error as Error)?.name ?? "Error",
          message: redactSecrets((error as Error)?.message ?? String(error)),
        },
      }));
      // One trial prints as before: the result document; more print the trials and pass^k.
      const shown = trials === 1 ? done.map((r) => r.trials[0]!) : done;
      // With --format html the report is written above; the log still gets the table.
      const format = flags.format === "html" ? "table" : flags.format;
      const text =
        flags.format === "html" && !flags.out
          ? ""
          : format === "json"
            ? `${JSON.stringify(
                failed.length > 0 ? { jobs: shown, failed } : shown.length === 1 ? shown[0] : { jobs: shown },
                null,
                2,
              )}\n`
            : done.length === 0
              ? ""
              : trials > 1
                ? `${renderTrials(done, format === "markdown" ? "markdown" : "table")}\n`
                : format === "markdown"
                  ? `${renderConversationMarkdown(done.map((r) => r.trials[0]!))}\n`
                  : `${renderConversationTable(done.map((r) => r.trials[0]!))}\n`;
      if (flags.out && flags.format !== "html") {
        writeFileSync(flags.out, text);
        process.stderr.write(`wrote ${flags.out}\n`);
      } else process.stdout.write(text);
      for (const f of failed)
        process.stderr.write(`dramaturg: ${f.job} could not complete: ${f.error.message}\n`);
      // A pass without a score is said here; a job none of whose passes scored, in any trial, could not
      // complete: a dead agent must not pass for want of a threshold.
      const unscored = done.filter((r) => r.trials.every((t) => t.unscored !== undefined));
      for (const r of done)
        if (!unscored.includes(r))
          for (const [i, t] of r.trials.entries())
            for (const p of t.passes)
              if (p.unscored !== undefined)
                process.stderr.write(
                  `dramaturg: ${r.job}${trials > 1 ? ` trial ${i + 1}` : ""} ${p.pass.replace("_", " ")}: no score: ${redactSecrets(p.unscored)}\n`,
                );
      for (const r of unscored)
        process.stderr.write(
          `dramaturg: ${r.job} could not be scored: ${redactSecrets([...new Set(r.trials.map((t) => t.unscored))].join("; "))}\n`,
        );
      // A job that could not complete outweighs a low score: its own exit code (3, or 2 for bad input).
      setExitCode(
        Math.max(
          minScore !== undefined && done.some((r) => r.passed?.includes(false)) ? 1 : 0,
          unscored.length > 0 ? 3 : 0,
          ...failures.map(({ error }) => (DramaturgError.isInstance(error) ? error.exitCode : 3)),
        ),
      );
    });
}
