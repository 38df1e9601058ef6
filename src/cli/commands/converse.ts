// `dramaturg converse JOB.yml…`: the library's runConversationJobs (--jobs at once), both passes side by side,
// the assertions with their actual values, the composite, pass^k over --trials; exit 1 when a job's
// score (any trial's) is under --min-score, 3 when a job could not be scored at all (the agent failed every
// pass). --record/--replay keep the models' answers in cassettes. The simulated user's own turns are checked
// (one more judge request a pass): --fail-on-simulator-fault exits 1 when one broke its brief.
import { type Command, Option } from "commander";
import type { ConversationJobsOutcome } from "../../conversations/index.ts";
import type { ConverseFlags } from "../converse-settings.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { writeHtmlReportFrom } from "../html-report.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { registerStoredList } from "../stored-list.ts";
import { addTargetOptions } from "../target-flags.ts";

export function registerConverseCommand(program: Command): void {
  registerStoredList(program, {
    name: "conversations",
    description: "list stored conversation runs, newest first",
    noun: "conversations",
    key: "conversations",
    kind: async () => (await import("../../conversations/index.ts")).conversationKind,
  });
  addTargetOptions(
    program
      .command("converse")
      .description("run conversation jobs against a live agent with a simulated user, and score them")
      .argument("<jobs...>", "conversation job files (YAML; `dramaturg schema conversation`)"),
    {
      targetUrl: "the agent's endpoint (default: each job's target.url)",
      userModel:
        "the simulated user's model (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL); not needed with --replay",
    },
  )
    .requiredOption("--judge <spec>", "the transcript scorer (a model spec, or fixtures:FILE)")
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the scorer")
    .option("--judge-api-key-env <name>", "environment variable that holds the scorer's API key")
    .addOption(
      new Option("--passes <which>", "which passes to run")
        .choices(["both", "without", "with"])
        .default("both"),
    )
    .option("--jobs <n>", "jobs run at once", "1")
    // Its old name, for one release: --concurrency means judge calls in flight in every other command.
    .addOption(new Option("--concurrency <n>").hideHelp())
    .hook("preAction", (command) => {
      const old = command.opts().concurrency;
      if (old === undefined) return;
      process.stderr.write(
        "dramaturg: converse --concurrency is deprecated and will be removed: use --jobs (jobs run at once)\n",
      );
      if (command.getOptionValueSource("jobs") === "default") command.setOptionValue("jobs", old);
    })
    .option("--no-progress", "no live progress")
    .option(
      "--min-score <x>",
      "exit 1 when a job's score (the mean of its passes) is under this, in any trial; with --trials, report pass^k",
    )
    .option(
      "--fail-on-simulator-fault",
      "exit 1 when a pass's simulated user broke its brief (a simulator fault, kept apart from the agent's score)",
    )
    .option(
      "--no-simulator-check",
      "do not judge the simulated user's own turns (saves one judge request per pass; no simulator faults are found)",
    )
    .option(
      "--simulator-propositions <file>",
      "propositions about the simulated user to check it on (YAML; default: the built-in set)",
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
      const [{ converseSettings }, { conversationJobsExitCode }] = await Promise.all([
        import("../converse-settings.ts"),
        import("../../conversations/index.ts"),
      ]);
      const setup = converseSettings(patterns, flags);
      let outcome: ConversationJobsOutcome | undefined;
      if (flags.queue) {
        const { runQueuedConversations } = await import("../queued-conversations.ts");
        const { seed, trials, minScore, settings, simulatedUser } = setup;
        outcome = await runQueuedConversations(setup.loaded, {
          ...flags,
          userModel: flags.userModel!,
          db: settings.db,
          seed,
          trials,
          minScore,
          simulatedUser,
        });
        if (!outcome) return;
        if (flags.format === "html") {
          const { evaluationIdsOf } = await import("../converse-output.ts");
          await writeHtmlReportFrom(settings.db, { evaluationIds: evaluationIdsOf(outcome), out: flags.out });
        }
      } else outcome = await (await import("../local-conversations.ts")).runLocalConversations(setup, flags);
      const { printConversationJobs } = await import("../converse-output.ts");
      printConversationJobs(outcome, { format: flags.format, out: flags.out, trials: setup.trials });
      const code = conversationJobsExitCode(outcome, setup.minScore, {
        failOnSimulatorFault: flags.failOnSimulatorFault === true,
      });
      setExitCode(code);
      if (setup.settings.export.length > 0) {
        const [{ exportAfterRun }, { evaluationIdsOf }] = await Promise.all([
          import("../score-export.ts"),
          import("../converse-output.ts"),
        ]);
        const exported = await exportAfterRun(setup.settings.export, {
          command: "converse",
          db: setup.settings.db,
          evaluationIds: evaluationIdsOf(outcome),
        });
        if (exported && !code) setExitCode(exported);
      }
    });
}
