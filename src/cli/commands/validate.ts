// `dramaturg validate REAL SIMULATED`: simulated answers held against real people's, question by question,
// with a verdict that does not stop at the mean, stored as a `validation` evaluation (`show`, `runs --kind
// validation`, the dashboard read it back); exit 1 when a question is not consistent (for CI), 2 on bad input
// (having written nothing).
import { type Command, Option } from "commander";
import { InputError, parseStoreLocation, shownPath } from "../../core/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";
import {
  readReasons,
  type ValidateFlags,
  validationQuestions,
  withReasonThemes,
} from "../validate-inputs.ts";

export function registerValidateCommand(program: Command): void {
  program
    .command("validate")
    .description(
      "hold simulated answers against real people's: distributions, not just means (Welch, χ², KS, entropy)",
    )
    .argument("<real>", "the real answers: CSV, JSON (an array of records) or JSONL, one row per person")
    .argument(
      "<simulated>",
      "the simulated answers, in any of the same shapes, or experiment:ID (a stored experiment's survey answers)",
    )
    .option(
      "--column <name>",
      "the question's column (the real answers'; the simulated too unless --simulated-column)",
    )
    .option("--simulated-column <name>", "the simulated answers' column, when it is named differently")
    .option("--kind <kind>", "numeric, ordinal (Likert), categorical, ranking (A-C-B-D) or binary")
    .option("--scale <range>", "ordinal: the scale's points, such as 1-5 (an answer outside it is bad input)")
    .option("--options <options...>", "categorical: the allowed categories; ranking: the options ranked")
    .option("--spec <file>", "a YAML spec of several questions (and thresholds) instead of --column/--kind")
    .option("--alpha <p>", "significance level of every test (default 0.05)")
    .option(
      "--collapse-sd-ratio <r>",
      "simulated/real sd below this (the distributions differing): collapsed (default 0.6)",
    )
    .option(
      "--collapse-entropy-ratio <r>",
      "simulated/real entropy below this (the distributions differing): collapsed (default 0.75)",
    )
    .option("--seed <n>", "seed of the Monte-Carlo χ² p when expected counts are small (default 49)")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "markdown", "json"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .option("--svg <file>", "also draw the two distributions side by side, per question, as SVG")
    .option("--name <name>", "what the stored validation is called (default: the two files)")
    .option("--experiment <id>", "the stored experiment whose simulated answers these are (its id)")
    .option("--arm <arm>", "with experiment:ID, the arm whose answers are validated (default treatment)")
    .option(
      "--reasons <column>",
      "also compare the themes of the reasons people gave (this column), through --judge",
    )
    .option(
      "--simulated-reasons <column>",
      "the simulated answers' reasons column, when it is named differently",
    )
    .option(
      "--judge <spec>",
      "the judge that lists and matches the reasons' themes (a model spec, or fixtures:FILE)",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the judge")
    .option("--judge-api-key-env <name>", "environment variable that holds the judge's API key")
    .option("--db <location>", "store location (default .dramaturg; memory:// keeps nothing)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      `\nVerdicts: consistent · shifted (the location differs) · collapsed (spread or entropy far below the real one, the location agreeing) · different. Exit 1 when a question is not consistent.\n${examples(
        "dramaturg validate survey.csv simulated.csv --column Vote --kind ordinal --scale 1-5",
        "dramaturg validate survey.csv agents.jsonl --column Vote --simulated-column response --kind ordinal --scale 1-5 --svg votes.svg",
        "dramaturg validate survey.csv rankings.json --column Vote --simulated-column response --kind ranking --format markdown",
        "dramaturg validate survey.csv simulated.csv --spec questions.yaml --format json --out validation.json",
        "dramaturg validate survey.csv simulated.csv --column Vote --kind ordinal --scale 1-5 --experiment 3f2a91c0 --name 'gazpacho, arm B'",
        "dramaturg validate survey.csv experiment:3f2a91c0 --arm control --column Vote --simulated-column vote --kind ordinal --scale 1-5",
      )}`,
    )
    .action(async (real: string, simulated: string, flags: ValidateFlags) =>
      setExitCode(await validateCommand(real, simulated, flags)),
    );
}

export async function validateCommand(
  real: string,
  simulated: string,
  flags: ValidateFlags,
): Promise<number> {
  checkOutputPaths({ "--out": flags.out, "--svg": flags.svg });
  const v = await import("../../validation/index.ts");
  const { questions, thresholds } = validationQuestions(v, flags);

  if (flags.name !== undefined && flags.name.trim() === "")
    throw new InputError("expected a name, got an empty one", { place: "--name" });
  const fromExperiment = v.EXPERIMENT_ANSWERS.exec(simulated)?.[1];
  if (fromExperiment === undefined && flags.arm !== undefined)
    throw new InputError("--arm is for answers read from an experiment (experiment:ID)", { place: "--arm" });
  if (fromExperiment !== undefined && flags.experiment !== undefined)
    throw new InputError("the answers come from an experiment already; leave out --experiment", {
      place: "--experiment",
    });
  const experiment = fromExperiment ?? flags.experiment;

  // Each file read once: the answers and the reasons come from the same tables.
  const realTable = v.readAnswerTable(real);
  const compute = (simulatedTable: import("../../validation/index.ts").AnswerTable) => {
    const answers = v.readAnswers({ real: realTable, simulated: simulatedTable, questions });
    const computed = v.validateAnswers({
      questions: answers,
      real,
      simulated: simulatedTable.file,
      thresholds,
    });
    return { answers, computed };
  };
  // Both files read and every cell checked before anything is computed or written (an experiment's answers as
  // soon as its store is open).
  const simulatedTable = fromExperiment === undefined ? v.readAnswerTable(simulated) : undefined;
  let done = simulatedTable ? compute(simulatedTable) : undefined;
  const reasons = readReasons(v, { real: realTable, simulated: simulatedTable }, flags);
  if (reasons && done) done.computed = await withReasonThemes(v, done.computed, reasons, flags);

  // Stored before any file is written: an experiment id that names none stops here, having written nothing.
  const [{ resolveSettings }, { openStore, storeExists }] = await Promise.all([
    import("../settings.ts"),
    import("../../store/index.ts"),
  ]);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  if (experiment !== undefined && !storeExists(settings.db))
    throw new InputError(`no store here to find experiment ${experiment} in`, { place: settings.db });
  const store = await openStore(settings.db);
  let stored: Awaited<ReturnType<typeof v.storeValidation>>;
  try {
    if (fromExperiment !== undefined) {
      const { id, result } = await v.storedExperimentResult(store, fromExperiment);
      done = compute(v.surveyAnswerTable(result, flags.arm ?? "treatment", `experiment ${id.slice(0, 8)}`));
    }
    stored = await v.storeValidation({
      store,
      validation: done!.computed,
      name: flags.name,
      experiment,
      numeric: v.numericAnswers(done!.answers),
    });
  } finally {
    await store.close();
  }
  const answers = done!.answers;
  const { validation, evaluation_id: id } = stored;

  const text =
    flags.format === "json"
      ? `${JSON.stringify(validation, null, 2)}\n`
      : flags.format === "markdown"
        ? v.renderValidationMarkdown(validation)
        : v.renderValidationTable(validation);
  const { writeFileSync } = await import("node:fs");
  if (flags.svg !== undefined) {
    writeFileSync(flags.svg, v.renderValidationChart(validation, v.numericAnswers(answers)));
    process.stderr.write(`wrote ${flags.svg}\n`);
  }
  if (flags.out !== undefined) {
    writeFileSync(flags.out, text);
    process.stderr.write(`wrote ${flags.out}\n`);
  } else process.stdout.write(text);
  process.stderr.write(`${storedLine(settings.db, id)}\n`);
  return v.validationExitCode(validation);
}

/** Where the validation was stored, and how to print it again. */
function storedLine(db: string, id: string): string {
  const location = parseStoreLocation(db);
  if (location.kind === "memory") return `validation ${id} kept in memory:// only (nothing lasting)`;
  const where = location.kind === "folder" ? shownPath(location.path) : location.display;
  return `stored as validation ${id} in ${where}; \`dramaturg show ${id.slice(0, 8)}\` prints it again`;
}
