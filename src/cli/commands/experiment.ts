// `dramaturg experiment …`: treatment versus control. `experiment compare FILE` reads a Dramaturg experiment
// result or a TinyTroupe experiment results file and prints each metric's Welch test in the Table 1 layout;
// `experiment report FILE` does the same for an experiment's result, naming the experiment, with an SVG chart;
// `experiment table1 --results …` holds four experiments' results against TinyTroupe's published Table 1;
// `experiment run SCENARIO` runs a scenario's control and treatment worlds in pairs and reports them.
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { InputError } from "../../core/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";

interface ReportFlags {
  control?: string;
  treatment?: string;
  format: "table" | "json" | "markdown";
  alpha: string;
  svg?: string;
}

interface RunFlags extends ReportFlags {
  scale: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  judge?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  population?: string;
  seed?: string;
  concurrency: string;
  out?: string;
  db?: string;
  config?: string;
}

interface Table1Flags {
  results: string[];
  format: "table" | "json" | "markdown";
}

interface CompareFlags {
  control?: string;
  treatment?: string;
  format: "table" | "json" | "markdown";
  alpha: string;
}

export function registerExperimentCommand(program: Command): void {
  const experiment = program
    .command("experiment")
    .description(
      "treatment vs control experiments: run a scenario's arms in pairs, report, compare (Welch's t-test)",
    );
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
  experiment
    .command("report")
    .description("an experiment's result in the Table 1 layout (table, Markdown or JSON), and an SVG chart")
    .argument(
      "<file>",
      "the experiment's result (dramaturg.experiment-result/v1), or TinyTroupe's results file",
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
    .option("--svg <file>", "also write a chart: per metric, both arms' values, means and 95% CIs")
    .addHelpText(
      "after",
      examples(
        "dramaturg experiment report result.json",
        "dramaturg experiment report result.json --format markdown --svg result.svg",
      ),
    )
    .action(async (file: string, flags: ReportFlags) => {
      setExitCode(await experimentReportCommand(file, flags));
    });
  experiment
    .command("run")
    .description(
      "run a scenario: control and treatment worlds in pairs, judged, stored, reported in the Table 1 layout",
    )
    .argument("<scenario>", "a built-in scenario (brainstorming-average, …) or a scenario file (YAML)")
    .option("--scale <s>", "shrink the environments and agents proportionally (0 < s ≤ 1)", "1")
    .requiredOption(
      "--model <spec>",
      "the agents' model (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL)",
    )
    .option("--base-url <url>", "base URL of an OpenAI-compatible server for the agents' model")
    .option("--api-key-env <var>", "environment variable holding the agents' API key")
    .requiredOption(
      "--judge <spec>",
      "judges the dimensions, the extraction, the gate (a model spec or fixtures:FILE)",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the judge")
    .option("--judge-api-key-env <var>", "environment variable holding the judge's API key")
    .option("--population <dir>", "the people (a population folder) instead of the scenario's")
    .option("--seed <n>", "seed of every environment's world (default: the scenario's)")
    .option("--concurrency <n>", "judge calls in flight at once", "16")
    .option("--out <file>", "also write the result document (dramaturg.experiment-result/v1, JSON) here")
    .addOption(
      new Option("--format <format>", "output format of the report")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .option("--alpha <a>", "significance level: a difference is significant when p < alpha", "0.05")
    .option("--svg <file>", "also write a chart: per metric, both arms' values, means and 95% CIs")
    .option("--db <location>", "store location (default .dramaturg; a rerun on it resumes)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "OPENAI_API_KEY=… dramaturg experiment run brainstorming-average --scale 0.1 --model openai:gpt-4o-mini --judge openai:gpt-4o-mini --out avg.json",
        "dramaturg experiment run my-scenario.yaml --population people/ --model openai-compatible:llama3.1 --base-url http://127.0.0.1:11434/v1 --judge openai-compatible:llama3.1 --judge-base-url http://127.0.0.1:11434/v1",
      ),
    )
    .action(async (scenario: string, flags: RunFlags) => {
      setExitCode(await experimentRunCommand(scenario, flags));
    });
  experiment
    .command("table1")
    .description(
      "hold four experiments' results against TinyTroupe's published Table 1: direction and significance per cell",
    )
    .requiredOption(
      "--results <paths...>",
      "result files, folders of them, or EXPERIMENT=FILE (Dramaturg's results or TinyTroupe's)",
    )
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .addHelpText(
      "after",
      examples(
        "dramaturg experiment table1 --results test/fixtures/experiments/tinytroupe-june-2025",
        "dramaturg experiment table1 --results brainstorming-average=avg.json debate-controversial=debate.json",
      ),
    )
    .action(async (flags: Table1Flags) => {
      setExitCode(await experimentTable1Command(flags));
    });
}

function alphaOf(text: string): number {
  const alpha = Number(text);
  if (!(alpha > 0 && alpha < 1))
    throw new InputError(`expected a number between 0 and 1, got "${text}"`, { place: "--alpha" });
  return alpha;
}

export async function experimentReportCommand(file: string, flags: ReportFlags): Promise<number> {
  const alpha = alphaOf(flags.alpha);
  const experiments = await import("../../experiments/index.ts");
  emitReport(
    experiments,
    experiments.readExperimentReport(file, { control: flags.control, treatment: flags.treatment, alpha }),
    flags,
  );
  return 0;
}

/** Prints a report in its format and writes its chart, the chart made first: a failure leaves nothing half done. */
function emitReport(
  experiments: typeof import("../../experiments/index.ts"),
  { report, chart }: import("../../experiments/index.ts").ExperimentReportWithValues,
  flags: Pick<ReportFlags, "format" | "svg">,
): void {
  // The chart is made before anything is printed or written: a failure leaves nothing half done.
  const svg =
    flags.svg === undefined ? undefined : { file: flags.svg, text: experiments.renderExperimentChart(chart) };
  const text =
    flags.format === "json"
      ? `${JSON.stringify(report, null, 2)}\n`
      : flags.format === "markdown"
        ? experiments.renderExperimentReportMarkdown(report)
        : experiments.renderExperimentReportTable(report);
  if (svg !== undefined) {
    try {
      writeFileSync(svg.file, svg.text);
    } catch (error) {
      throw new InputError(`cannot write the chart (${(error as NodeJS.ErrnoException).code ?? "error"})`, {
        file: svg.file,
        cause: error,
      });
    }
  }
  process.stdout.write(text);
}

/** The files `--results` names: each file as given, each folder's `*.json` files in name order. */
function resultArguments(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of paths) {
    // EXPERIMENT=FILE names a file; anything else may be a folder.
    if (/^[a-z0-9-]+=/.test(path) || !existsSync(path) || !statSync(path).isDirectory()) {
      out.push(path);
      continue;
    }
    const files = readdirSync(path)
      .filter((name) => name.toLowerCase().endsWith(".json"))
      .sort();
    if (files.length === 0) throw new InputError("no results files (*.json) in this folder", { file: path });
    out.push(...files.map((name) => join(path, name)));
  }
  return out;
}

export async function experimentTable1Command(flags: Table1Flags): Promise<number> {
  const experiments = await import("../../experiments/index.ts");
  const results = resultArguments(flags.results).map((argument) => experiments.readTable1Result(argument));
  const comparison = experiments.compareWithTable1(results);
  const text =
    flags.format === "json"
      ? `${JSON.stringify(comparison, null, 2)}\n`
      : flags.format === "markdown"
        ? experiments.renderTable1Markdown(comparison)
        : experiments.renderTable1Table(comparison);
  // Agreement is information, not a verdict on the run: exit 0 whatever the cells say.
  process.stdout.write(text);
  return 0;
}

export async function experimentCompareCommand(file: string, flags: CompareFlags): Promise<number> {
  const alpha = alphaOf(flags.alpha);
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

/** A whole number flag of at least `min`, or an InputError naming the flag. */
function wholeFlag(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new InputError(`expected a whole number of ${min} or more, got "${value}"`, { place: flag });
  return n;
}

export async function experimentRunCommand(name: string, flags: RunFlags): Promise<number> {
  const [experiments, { resolveSettings }, { withInterrupts }] = await Promise.all([
    import("../../experiments/index.ts"),
    import("../settings.ts"),
    import("../interrupts.ts"),
  ]);
  // Everything is read and checked before a store is opened or a model is called.
  const alpha = alphaOf(flags.alpha);
  const scale = Number(flags.scale);
  if (!(scale > 0 && scale <= 1))
    throw new InputError(`expected a number above 0 and at most 1, got "${flags.scale}"`, {
      place: "--scale",
    });
  const seed = wholeFlag(flags.seed, "--seed", 0);
  const concurrency = wholeFlag(flags.concurrency, "--concurrency", 1)!;
  const scenario = experiments.resolveScenario(name);
  const population =
    flags.population === undefined ? undefined : experiments.loadPopulation(flags.population);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const progress = (event: import("../../experiments/index.ts").ExperimentProgressEvent) => {
    if (event.type === "started")
      process.stderr.write(
        `experiment ${event.experiment_id.slice(0, 8)}: ${event.total} environment runs${event.reused ? `, ${event.reused} finished already` : ""}\n`,
      );
    else if (event.type === "environment" && (event.phase === "completed" || event.phase === "failed"))
      process.stderr.write(`  ${event.arm} environment ${event.index + 1}: ${event.phase}\n`);
  };
  const run = await withInterrupts(
    (signal) =>
      experiments.runExperiment(scenario, {
        model: flags.model!,
        modelSettings: { baseUrl: flags.baseUrl, apiKeyEnv: flags.apiKeyEnv },
        judge: flags.judge!,
        judgeSettings: { baseUrl: flags.judgeBaseUrl, apiKeyEnv: flags.judgeApiKeyEnv },
        store: settings.db,
        scale,
        ...(seed === undefined ? {} : { seed }),
        ...(population === undefined ? {} : { population: { people: population.people } }),
        concurrency,
        signal,
        onProgress: progress,
      }),
    { resumeWith: `dramaturg experiment run ${name} (the same flags and --db)` },
  );
  if (flags.out) writeFileSync(flags.out, `${JSON.stringify(run.document, null, 2)}\n`);
  emitReport(experiments, experiments.experimentReport(run.document, { alpha }), flags);
  return 0;
}
