// Builds the commander program. Commands stay thin: they parse, call the library, print.
import { Command, CommanderError } from "commander";
import { z } from "zod";
import { DramaturgError, TranscriptSchema } from "../core/index.ts";

const SCHEMAS: Record<string, () => unknown> = {
  transcript: () => z.toJSONSchema(TranscriptSchema, { io: "input" }),
};

export function buildProgram(): Command {
  const program = new Command("dramaturg")
    .description("Measure and correct how LLM agents behave: does each character stay in character?")
    .showSuggestionAfterError(true)
    .exitOverride();

  program
    .command("schema")
    .description("print the JSON Schema of a Dramaturg format")
    .argument("<format>", `one of: ${Object.keys(SCHEMAS).join(", ")}`)
    .action((format: string) => {
      const schema = SCHEMAS[format];
      if (!schema)
        throw new DramaturgError(
          "InputError",
          `unknown format "${format}"; expected one of ${Object.keys(SCHEMAS).join(", ")}`,
          { exitCode: 2 },
        );
      process.stdout.write(`${JSON.stringify(schema(), null, 2)}\n`);
    });

  return program;
}

/** Runs the CLI and returns the exit code (0 ok, 1 regression, 2 bad input, 3 could not complete). */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
      )
        return 0;
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
