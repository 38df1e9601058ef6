// Builds the commander program. Commands stay thin: they parse, call the library, print.
import { Command, CommanderError, Option } from "commander";
import { z } from "zod";
import { DramaturgError, InputError, PropositionFileSchema, TranscriptSchema } from "../core/index.ts";
import { JudgeFixturesSchema } from "../judge/index.ts";
import { addEvaluationOptions, evalCommand } from "./commands/eval.ts";
import { HARNESS_SCHEMAS, registerHarnessCommands } from "./commands/harness.ts";
import { importCommand } from "./commands/import.ts";
import { registerProjectCommands } from "./commands/project-commands.ts";
import { runsCommand } from "./commands/runs.ts";
import { ProjectFileSchema } from "./settings.ts";

const SCHEMAS: Record<string, () => unknown> = {
  transcript: () => z.toJSONSchema(TranscriptSchema, { io: "input" }),
  propositions: () => z.toJSONSchema(PropositionFileSchema, { io: "input" }),
  "judge-fixtures": () => z.toJSONSchema(JudgeFixturesSchema, { io: "input" }),
  config: () => z.toJSONSchema(ProjectFileSchema, { io: "input" }),
  ...HARNESS_SCHEMAS,
};

/** Help text with real examples, appended to a command's --help. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;
}

/** The exit code a command returned, carried out of commander's action handler. */
let commandExit = 0;

/** Commands call this with their exit code (0 ok, 1 regression/threshold, 2 bad input, 3 could not complete). */
export function setExitCode(code: number): void {
  commandExit = code;
}

export function buildProgram(): Command {
  const program = new Command("dramaturg")
    .description("Measure and correct how LLM agents behave: does each character stay in character?")
    .version("0.1.0")
    .showSuggestionAfterError(true)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .addHelpText(
      "after",
      "\nExit codes: 0 ok · 1 regression or failed threshold · 2 bad input or usage · 3 could not complete\n",
    );

  addEvaluationOptions(
    program
      .command("eval")
      .description("evaluate personas in transcripts (or stored messages) and print the scores")
      .argument(
        "[transcripts...]",
        "transcript files (JSON or JSONL, globs allowed); default: the project's sources",
      ),
  )
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .option(
      "--record <file>",
      "also write every verdict as judge fixtures (replay them with --judge fixtures:FILE)",
    )
    .option(
      "--resume [id]",
      "complete the last interrupted evaluation (or this evaluation or run id) in place",
    )
    .addHelpText(
      "after",
      examples(
        "dramaturg eval examples/ensemble/transcript.json --propositions examples/ensemble/propositions --judge fixtures:examples/ensemble/judge-fixtures.json",
        "OPENAI_API_KEY=… dramaturg eval chat.jsonl --judge openai:gpt-4o-mini --mode batch --record fixtures.json",
        "dramaturg eval --from-store --agent ines --window-start 2026-03-01 --sample 20 --seed 7 --format json",
        "dramaturg eval chat.jsonl --judge anthropic:claude-haiku-4-5 --dry-run",
        "dramaturg eval --resume",
      ),
    )
    .action(async (transcripts: string[], flags) => {
      commandExit = await evalCommand(transcripts, flags);
    });

  program
    .command("import")
    .description("store a transcript's agents and messages for later evaluations (--from-store)")
    .argument("<transcripts...>", "transcript files (JSON or JSONL)")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--source <name>", "name of this import batch (default: the file names)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg import logs/2026-03-*.jsonl",
        "dramaturg import chat.json --db postgres://user@db/dramaturg",
      ),
    )
    .action(async (files: string[], flags) => {
      commandExit = await importCommand(files, flags);
    });

  program
    .command("runs")
    .description("list stored evaluation runs, newest first")
    .option("--agent <id>", "only this agent's runs")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--limit <n>", "at most this many runs", "50")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText("after", examples("dramaturg runs", "dramaturg runs --agent ines --format json"))
    .action(async (flags) => {
      commandExit = await runsCommand(flags);
    });

  program
    .command("show")
    .description("print a stored evaluation's result again (no judge calls, no input files needed)")
    .argument("[id]", "evaluation or run id, or its first 8+ characters (default: the latest evaluation)")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText("after", examples("dramaturg show", "dramaturg show 3f2a91c0 --format markdown"))
    .action(async (id: string | undefined, flags) => {
      const { showCommand } = await import("./commands/show.ts");
      commandExit = await showCommand(id, flags);
    });

  program
    .command("schema")
    .description("print the JSON Schema of a Dramaturg format")
    .argument("<format>", `one of: ${Object.keys(SCHEMAS).join(", ")}`)
    .addHelpText(
      "after",
      examples("dramaturg schema transcript > transcript.schema.json", "dramaturg schema config"),
    )
    .action((format: string) => {
      const schema = SCHEMAS[format];
      if (!schema)
        throw new InputError(
          `unknown format "${format}"; expected one of ${Object.keys(SCHEMAS).join(", ")}`,
        );
      process.stdout.write(`${JSON.stringify(schema(), null, 2)}\n`);
    });

  // Further commands register themselves here, one line each.
  // <commands>
  registerHarnessCommands(program);
  registerProjectCommands(program);
  // </commands>

  return program;
}

/** Runs the CLI and returns the exit code (0 ok, 1 regression, 2 bad input, 3 could not complete). */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  commandExit = 0;
  try {
    await program.parseAsync(argv, { from: "user" });
    return commandExit;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (["commander.helpDisplayed", "commander.version", "commander.help"].includes(error.code)) return 0;
      return 2;
    }
    if (DramaturgError.isInstance(error)) {
      process.stderr.write(`dramaturg: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`dramaturg: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
    return 3;
  }
}
