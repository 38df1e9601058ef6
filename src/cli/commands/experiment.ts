// `dramaturg experiment …`: treatment versus control. `experiment compare FILE` reads a Dramaturg experiment
// result or a TinyTroupe experiment results file and prints each metric's Welch test in the Table 1 layout.
import { type Command, Option } from "commander";
import { InputError } from "../../core/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";

interface CompareFlags {
  control?: string;
  treatment?: string;
  format: "table" | "json" | "markdown";
  alpha: string;
}

export function registerExperimentCommand(program: Command): void {
  const experiment = program
    .command("experiment")
    .description("treatment vs control experiments: compare two arms' results with Welch's t-test");
  experiment
    .command("compare")
    .description(
      "compare two arms of a results file (dramaturg.experiment-result/v1 or TinyTroupe's) metric by metric",
    )
    .argument(
      "<file>",
      "results file (JSON): Dramaturg's experiment result or TinyTroupe's experiments.<arm>.results",
    )
    .option("--control <name>", 'the control arm (default: the arm named "control", any case)')
    .option(
      "--treatment <name>",
      'the treatment arm (default: the arm named "treatment", or the only other arm)',
    )
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .option("--alpha <a>", "significance level: a difference is significant when p < alpha", "0.05")
    .addHelpText(
      "after",
      examples(
        "dramaturg experiment compare brainstorming_1c.json",
        "dramaturg experiment compare result.json --control control --treatment gate --format markdown",
      ),
    )
    .action(async (file: string, flags: CompareFlags) => {
      setExitCode(await experimentCompareCommand(file, flags));
    });
}

export async function experimentCompareCommand(file: string, flags: CompareFlags): Promise<number> {
  const alpha = Number(flags.alpha);
  if (!(alpha > 0 && alpha < 1))
    throw new InputError(`expected a number between 0 and 1, got "${flags.alpha}"`, { place: "--alpha" });
  const experiments = await import("../../experiments/index.ts");
  const sets = experiments.readResultSets(file);
  const choice = { control: flags.control, treatment: flags.treatment, file };
  const comparison = experiments.compareResultSets(sets, { ...choice, alpha });
  if (flags.format === "json") {
    process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
    return 0;
  }
  const arms = experiments.chooseArms(sets, choice);
  const labels = { control: arms.control.name, treatment: arms.treatment.name, alpha, source: file };
  const render =
    flags.format === "markdown" ? experiments.renderComparisonMarkdown : experiments.renderComparisonTable;
  process.stdout.write(render(comparison, labels));
  return 0;
}
