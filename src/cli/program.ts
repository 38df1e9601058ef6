// Builds the commander program. Commands stay thin: they parse, call the library, print. Command modules
// load lazily: `--help` and `--version` import commander alone, and a command imports its modules when it runs.
import { Command, CommanderError, Help, Option } from "commander";
import { commandExitCode, setExitCode } from "./exit-code.ts";
import { examples } from "./help-examples.ts";

/**
 * The command list of the top-level help, so that `dramaturg --help` needs no command module. A test keeps
 * it equal to what the full program prints: a new command adds its line here too.
 */
export const COMMAND_SUMMARY: readonly { name: string; term: string; description: string }[] = [
  {
    name: "eval",
    term: "eval [options] [transcripts...]",
    description: "evaluate personas in transcripts (or stored messages) and print the scores",
  },
  {
    name: "worker",
    term: "worker [options]",
    description: "judge queued evaluations (eval --queue) from a PostgreSQL store",
  },
  {
    name: "online",
    term: "online",
    description:
      "continuous evaluation: schedule the online rules of dramaturg.yaml, run one, see their status",
  },
  {
    name: "import",
    term: "import [options] <transcripts...>",
    description: "store a transcript's agents and messages for later evaluations (--from-store)",
  },
  { name: "runs", term: "runs [options]", description: "list stored evaluation runs, newest first" },
  {
    name: "show",
    term: "show [options] [id]",
    description: "print a stored evaluation's result again (no judge calls, no input files needed)",
  },
  {
    name: "export",
    term: "export [options] <id>",
    description: "send a stored evaluation's scores to Langfuse, Phoenix or an OTLP collector",
  },
  { name: "schema", term: "schema <format>", description: "print the JSON Schema of a Dramaturg format" },
  {
    name: "baseline",
    term: "baseline [options] [transcripts...]",
    description:
      "evaluate and write golden baselines: one <agent_id>.json per agent and _environments.json per channel",
  },
  {
    name: "ci",
    term: "ci [options] [transcripts...]",
    description:
      "evaluate the agents that have baselines and fail (exit 1) when a dimension fell more than the threshold",
  },
  {
    name: "record",
    term: "record [options] [transcripts...]",
    description:
      "record once live, replay in CI: judge with a live model, save every verdict as fixtures, and check the replay gives identical scores",
  },
  {
    name: "history",
    term: "history [options]",
    description: "an agent's scores over its stored runs: sparkline and table, or JSON",
  },
  {
    name: "calibrate",
    term: "calibrate [options]",
    description: "how far a judge agrees with human labels, per proposition; judges compared, with cost",
  },
  {
    name: "labels",
    term: "labels",
    description: "human labels entered on the dashboard's labelling page: export them for calibrate",
  },
  {
    name: "init",
    term: "init [options] [dir]",
    description:
      "create a Dramaturg project: dramaturg.yaml, propositions, an example and its baselines, a CI workflow",
  },
  {
    name: "config",
    term: "config",
    description: "show the settings commands use; set an agent's correction settings",
  },
  {
    name: "doctor",
    term: "doctor [options]",
    description: "check the project file, the store and the judge, and say what to fix",
  },
  {
    name: "cache",
    term: "cache",
    description: "inspect or empty the verdict cache (live judge answers kept in the store)",
  },
  {
    name: "sessions",
    term: "sessions [options]",
    description: "list stored session analyses, newest first",
  },
  {
    name: "session",
    term: "session",
    description: "analyse multi-agent sessions: tool calls, per-agent scores, bad turns",
  },
  {
    name: "conversations",
    term: "conversations [options]",
    description: "list stored conversation runs, newest first",
  },
  {
    name: "converse",
    term: "converse [options] <jobs...>",
    description: "run conversation jobs against a live agent with a simulated user, and score them",
  },
  {
    name: "corrections",
    term: "corrections",
    description: "the action gate's stored checks: statistics per agent or over all",
  },
  {
    name: "simulations",
    term: "simulations [options]",
    description: "list stored world simulations, newest first",
  },
  {
    name: "simulate",
    term: "simulate [options] <world>",
    description: "run a world of persona agents (dramaturg.world/v1), print its transcript and store it",
  },
  {
    name: "drift",
    term: "drift [options]",
    description:
      "persona drift turn by turn: forked probes along a self-chat or a simulated user, stability per turn",
  },
  {
    name: "redteam",
    term: "redteam [options]",
    description:
      "a persona red team: seven attack strategies with backtracking, success rate and turns to break, with and without the gate",
  },
  {
    name: "population",
    term: "population",
    description: "generate populations of personas, and check population folders",
  },
  {
    name: "experiment",
    term: "experiment",
    description:
      "treatment vs control experiments: run a scenario's arms in pairs, report, compare (Welch's t-test)",
  },
  {
    name: "validate",
    term: "validate [options] <real> <simulated>",
    description:
      "hold simulated answers against real people's: distributions, not just means (Welch, χ², KS, entropy)",
  },
  {
    name: "serve",
    term: "serve [options]",
    description:
      "serve the JSON API and the dashboard over the store (agents, runs, sessions, conversations, corrections)",
  },
];

/** The formats `dramaturg schema` prints, each built on demand (zod and the schemas load with the command). */
async function formatSchemas(): Promise<Record<string, () => unknown | Promise<unknown>>> {
  const [
    { z },
    core,
    judge,
    settings,
    harness,
    sessions,
    conversations,
    worlds,
    scenarios,
    results,
    populations,
    profiles,
    calibration,
    validation,
  ] = await Promise.all([
    import("zod"),
    import("../core/index.ts"),
    import("../judge/index.ts"),
    import("./settings.ts"),
    import("../regression/index.ts"),
    import("../sessions/session-format.ts"),
    import("../conversations/job.ts"),
    import("../sim/world-file.ts"),
    import("../experiments/scenario.ts"),
    import("../experiments/compare.ts"),
    import("../experiments/population.ts"),
    import("../experiments/population-profile.ts"),
    import("../calibration/index.ts"),
    import("../validation/index.ts"),
  ]);
  return {
    transcript: () => z.toJSONSchema(core.TranscriptSchema, { io: "input" }),
    propositions: () => z.toJSONSchema(core.PropositionFileSchema, { io: "input" }),
    "judge-fixtures": () => z.toJSONSchema(judge.JudgeFixturesSchema, { io: "input" }),
    cassette: () => z.toJSONSchema(judge.CassetteSchema, { io: "input" }),
    config: () => z.toJSONSchema(settings.ProjectFileSchema, { io: "input" }),
    session: () => z.toJSONSchema(sessions.SessionSchema, { io: "input" }),
    conversation: () => conversations.conversationJobJsonSchema(),
    world: () => z.toJSONSchema(worlds.WorldFileSchema, { io: "input" }),
    scenario: () => scenarios.scenarioJsonSchema(),
    "experiment-result": () => z.toJSONSchema(results.ExperimentResultSchema, { io: "input" }),
    population: () => z.toJSONSchema(populations.PopulationManifestSchema, { io: "input" }),
    "population-profile": () => z.toJSONSchema(profiles.PopulationProfileFileSchema, { io: "input" }),
    "persona-fragment": () => z.toJSONSchema(profiles.PersonaFragmentFileSchema, { io: "input" }),
    validation: () => validation.validationJsonSchema(),
    "validation-spec": () => z.toJSONSchema(validation.ValidationSpecSchema, { io: "input" }),
    // Loaded when asked for: the red-team folder is not on any other command's path.
    "drift-probes": async () => (await import("../redteam/index.ts")).driftProbesJsonSchema(),
    drift: async () =>
      z.toJSONSchema((await import("../redteam/index.ts")).DriftResultSchema, { io: "input" }),
    redteam: async () =>
      z.toJSONSchema((await import("../redteam/index.ts")).RedteamResultSchema, { io: "input" }),
    ...harness.BASELINE_JSON_SCHEMAS,
    ...calibration.LABELS_JSON_SCHEMAS,
  };
}

/** The program with its name, version, top-level help and error handling, and no commands yet. */
function baseProgram(): Command {
  return new Command("dramaturg")
    .description("Measure and correct how LLM agents behave: does each character stay in character?")
    .version("0.1.0")
    .showSuggestionAfterError(true)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      // Commander's own usage errors (a choice not allowed, an unknown option) read like ours.
      outputError: (s, write) => write(s.replace(/^error: /, "dramaturg: ")),
    })
    .addHelpText(
      "after",
      "\nExit codes: 0 ok · 1 regression or failed threshold · 2 bad input or usage · 3 could not complete · 130 interrupted (resumable)\n",
    );
}

/** What `dramaturg --help` and `--version` run: every command listed, none of their modules imported. */
export function summaryProgram(): Command {
  const program = baseProgram();
  for (const { name, description } of COMMAND_SUMMARY) program.command(name).description(description);
  const help = new Help();
  program.configureHelp({
    subcommandTerm: (command) =>
      COMMAND_SUMMARY.find((c) => c.name === command.name())?.term ?? help.subcommandTerm(command),
  });
  return program;
}

/** The full program: imports the command modules (not yet the AI SDK or a database; commands load those). */
export async function buildProgram(): Promise<Command> {
  const [
    { registerEvalCommand },
    { registerBaselineCommand },
    { registerCiCommand },
    { registerRecordCommand },
    { registerHistoryCommand },
    { registerInitCommand },
    { registerConfigCommand },
    { registerDoctorCommand },
    { registerCacheCommand },
    { registerSessionCommands },
    { registerConverseCommand },
    { registerCorrectionsCommand },
    { registerSimulateCommand },
    { registerServeCommand },
    schemas,
  ] = await Promise.all([
    import("./commands/eval.ts"),
    import("./commands/baseline.ts"),
    import("./commands/ci.ts"),
    import("./commands/record.ts"),
    import("./commands/history.ts"),
    import("./commands/init.ts"),
    import("./commands/config.ts"),
    import("./commands/doctor.ts"),
    import("./commands/cache.ts"),
    import("./commands/session.ts"),
    import("./commands/converse.ts"),
    import("./commands/corrections.ts"),
    import("./commands/simulate.ts"),
    import("./commands/serve.ts"),
    formatSchemas(),
  ]);
  const program = baseProgram();
  registerEvalCommand(program);
  (await import("./commands/worker.ts")).registerWorkerCommand(program);
  (await import("./commands/online.ts")).registerOnlineCommand(program);

  program
    .command("import")
    .description("store a transcript's agents and messages for later evaluations (--from-store)")
    .argument(
      "<transcripts...>",
      "transcript files (JSON or JSONL), or trace and log files read as sessions (Langfuse, LangSmith, Inspect…)",
    )
    .option(
      "--from <format>",
      "read the files as this trace or log format (langfuse, langsmith, inspect, openai, …; default: recognised)",
    )
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--source <name>", "name of this import batch (default: the file names)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg import logs/2026-03-*.jsonl",
        "dramaturg import chat.json --db postgres://user@db/dramaturg",
        "dramaturg import langfuse-traces.json --from langfuse",
      ),
    )
    .action(async (files: string[], flags) => {
      const { importCommand } = await import("./commands/import.ts");
      setExitCode(await importCommand(files, flags));
    });

  program
    .command("runs")
    .description("list stored evaluation runs, newest first")
    .option("--agent <id>", "only this agent's runs")
    .option(
      "--kind <kind>",
      "list evaluations of this stored kind (session, conversation…) instead of persona runs",
    )
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--limit <n>", "at most this many runs", "50")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText("after", examples("dramaturg runs", "dramaturg runs --agent ines --format json"))
    .action(async (flags) => {
      const { runsCommand } = await import("./commands/runs.ts");
      setExitCode(await runsCommand(flags));
    });

  program
    .command("show")
    .description("print a stored evaluation's result again (no judge calls, no input files needed)")
    .argument("[id]", "evaluation or run id, or its first 8+ characters (default: the latest evaluation)")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown", "html"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText("after", examples("dramaturg show", "dramaturg show 3f2a91c0 --format markdown"))
    .action(async (id: string | undefined, flags) => {
      const { showCommand } = await import("./commands/show.ts");
      setExitCode(await showCommand(id, flags));
    });

  program
    .command("export")
    .description("send a stored evaluation's scores to Langfuse, Phoenix or an OTLP collector")
    .argument("<id>", "evaluation or run id, or its first 8+ characters")
    .addOption(
      new Option("--to <tool>", "where to send them")
        .choices(["langfuse", "phoenix", "otlp"])
        .makeOptionMandatory(),
    )
    .option("--propositions", "also one score per proposition verdict, beside the dimension scores")
    .option(
      "--ledger <file>",
      "what already arrived, so a rerun sends only the rest (default <db>.exports.json)",
    )
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      `${examples("dramaturg export 3f2a91c0 --to langfuse", "dramaturg export 3f2a91c0 --to phoenix --propositions")}Hosts and keys come from the environment only: LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY, LANGFUSE_BASE_URL;
PHOENIX_COLLECTOR_ENDPOINT, PHOENIX_API_KEY; OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS.
`,
    )
    .action(async (id: string, flags) => {
      const { exportCommand } = await import("./commands/export.ts");
      setExitCode(await exportCommand(id, flags));
    });

  program
    .command("schema")
    .description("print the JSON Schema of a Dramaturg format")
    .argument("<format>", `one of: ${Object.keys(schemas).join(", ")}`)
    .addHelpText(
      "after",
      examples("dramaturg schema transcript > transcript.schema.json", "dramaturg schema config"),
    )
    .action(async (format: string) => {
      const schema = schemas[format];
      if (!schema) {
        const { InputError } = await import("../core/index.ts");
        throw new InputError(
          `unknown format "${format}"; expected one of ${Object.keys(schemas).join(", ")}`,
        );
      }
      process.stdout.write(`${JSON.stringify(await schema(), null, 2)}\n`);
    });

  // Further commands register themselves here, one line each.
  // <commands>
  registerBaselineCommand(program);
  registerCiCommand(program);
  registerRecordCommand(program);
  registerHistoryCommand(program);
  (await import("./commands/calibrate.ts")).registerCalibrateCommand(program);
  (await import("./commands/labels.ts")).registerLabelsCommand(program);
  registerInitCommand(program);
  registerConfigCommand(program);
  registerDoctorCommand(program);
  registerCacheCommand(program);
  registerSessionCommands(program);
  registerConverseCommand(program);
  registerCorrectionsCommand(program);
  registerSimulateCommand(program);
  (await import("./commands/drift.ts")).registerDriftCommand(program);
  (await import("./commands/redteam.ts")).registerRedteamCommand(program);
  (await import("./commands/population.ts")).registerPopulationCommand(program);
  (await import("./commands/experiment.ts")).registerExperimentCommand(program);
  (await import("./commands/validate.ts")).registerValidateCommand(program);
  registerServeCommand(program);
  // </commands>

  return program;
}

/**
 * The program with `eval` alone, for a command line that runs it: the most common command imports no other
 * command's modules. Its help and its errors are the full program's (a test keeps them equal).
 */
export async function evalProgram(): Promise<Command> {
  const program = baseProgram();
  (await import("./commands/eval.ts")).registerEvalCommand(program);
  return program;
}

const isCommandName = (word: string) => word === "help" || COMMAND_SUMMARY.some((c) => c.name === word);

/**
 * The command line cut just after its first word that names no command where a command is expected, so
 * that commander reports it (exit 2, with a suggestion) whatever follows: `dramaturg nosuch --help` must
 * not print the help and exit 0. A command with subcommands (`cache`, `session`…) has no action of its
 * own, so the word after it must be one of them.
 */
function upToUnknownCommand(program: Command, argv: readonly string[]): string[] {
  let command = program;
  for (const [i, word] of argv.entries()) {
    if (command.commands.length === 0 || word.startsWith("-")) break;
    // `help X` asks for X's help: X must name a command too.
    const name = word === "help" ? argv[i + 1] : word;
    if (name === undefined || name.startsWith("-")) break;
    const sub = command.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!sub) return [...argv.slice(0, i), name];
    if (word === "help") break;
    command = sub;
  }
  return [...argv];
}

/** Runs the CLI and returns the exit code (0 ok, 1 regression, 2 bad input, 3 could not complete). */
export async function runCli(argv: string[]): Promise<number> {
  setExitCode(0);
  try {
    const summary = argv.length === 1 && ["-h", "--help", "-V", "--version"].includes(argv[0]!);
    const known = argv[0] === undefined || argv[0].startsWith("-") || isCommandName(argv[0]);
    // An unknown command needs only the command names, for the error and its suggestion.
    const program =
      summary || !known ? summaryProgram() : argv[0] === "eval" ? await evalProgram() : await buildProgram();
    await program.parseAsync(upToUnknownCommand(program, argv), { from: "user" });
    return commandExitCode();
  } catch (error) {
    if (error instanceof CommanderError) {
      if (["commander.helpDisplayed", "commander.version", "commander.help"].includes(error.code)) return 0;
      return 2;
    }
    const { DramaturgError } = await import("../core/index.ts");
    if (DramaturgError.isInstance(error)) {
      process.stderr.write(`dramaturg: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`dramaturg: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    return 3;
  }
}
