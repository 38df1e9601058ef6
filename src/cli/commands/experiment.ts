// `dramaturg experiment …`: treatment versus control. `experiment compare FILE` reads a Dramaturg experiment
// result or a TinyTroupe experiment results file and prints each metric's Welch test in the Table 1 layout;
// `experiment report FILE|ID` does the same for an experiment's result (a file, or a stored experiment),
// naming the experiment, with an SVG chart; `experiment table1 --results …` holds four experiments' results
// against TinyTroupe's published Table 1, and without `--results` runs the four first; `experiment run
// SCENARIO` runs a scenario's control and treatment worlds in pairs and reports them (`--dry-run`: prices it).
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { InputError } from "../../core/index.ts";
import { setExitCode } from "../exit-code.ts";
import { addModelServerOptions, wholeFlag } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";

interface ReportFlags {
  control?: string;
  treatment?: string;
  format: "table" | "json" | "markdown";
  alpha: string;
  svg?: string;
  db?: string;
  config?: string;
}

/** What `experiment run` and `experiment table1` share: the models, the scale, the store. */
interface ExperimentModelFlags {
  scale: string;
  model?: string;
  modelBaseUrl?: string;
  modelApiKeyEnv?: string;
  judge?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  seed?: string;
  concurrency: string;
  db?: string;
  config?: string;
  dryRun?: boolean;
}

interface RunFlags extends ReportFlags, ExperimentModelFlags {
  population?: string;
  out?: string;
  queue?: boolean;
  detach?: boolean;
}

interface Table1Flags extends Partial<ExperimentModelFlags> {
  results?: string[];
  format: "table" | "json" | "markdown";
  out?: string;
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
  const compare = experiment
    .command("compare")
    .description(
      "compare two arms of a results file (dramaturg.experiment-result/v1 or TinyTroupe's) metric by metric",
    )
    .argument(
      "<file>",
      "results file (JSON): Dramaturg's experiment result or TinyTroupe's experiments.<arm>.results",
    );
  comparisonOptions(compare, { arms: true, svg: false })
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
  const report = experiment
    .command("report")
    .description("an experiment's result in the Table 1 layout (table, Markdown or JSON), and an SVG chart")
    .argument(
      "<file-or-id>",
      "the experiment's result (dramaturg.experiment-result/v1) or TinyTroupe's results file, or a stored experiment's id (its first 8+ characters do)",
    );
  comparisonOptions(report, { arms: true, svg: true })
    .option("--db <location>", "store to read a stored experiment from (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg experiment report result.json",
        "dramaturg experiment report result.json --format markdown --svg result.svg",
        "dramaturg experiment report 3f2a9c1e --db .dramaturg",
      ),
    )
    .action(async (file: string, flags: ReportFlags) => {
      setExitCode(await experimentReportCommand(file, flags));
    });
  const run = experiment
    .command("run")
    .description(
      "run a scenario: control and treatment worlds in pairs, judged, stored, reported in the Table 1 layout",
    )
    .argument("<scenario>", "a built-in scenario (brainstorming-average, …) or a scenario file (YAML)");
  modelOptions(run, true)
    .option("--population <dir>", "the people (a population folder) instead of the scenario's")
    .option("--out <file>", "also write the result document (dramaturg.experiment-result/v1, JSON) here")
    .option(
      "--queue",
      "store the experiment and queue its environment runs for `dramaturg worker`s (--db postgres://…), then wait for them",
    )
    .option("--detach", "with --queue: print the experiment's id and exit without waiting for it");
  comparisonOptions(run, { arms: false, svg: true })
    .addHelpText(
      "after",
      examples(
        "dramaturg experiment run brainstorming-average --scale 0.1 --model openai:gpt-4o-mini --judge openai:gpt-4o-mini --dry-run",
        "OPENAI_API_KEY=… dramaturg experiment run brainstorming-average --scale 0.1 --model openai:gpt-4o-mini --judge openai:gpt-4o-mini --out avg.json",
        "dramaturg experiment run my-scenario.yaml --population people/ --model openai-compatible:llama3.1 --model-base-url http://127.0.0.1:11434/v1 --judge openai-compatible:llama3.1 --judge-base-url http://127.0.0.1:11434/v1",
      ),
    )
    .action(async (scenario: string, flags: RunFlags) => {
      setExitCode(await experimentRunCommand(scenario, flags));
    });
  const table1 = experiment
    .command("table1")
    .description(
      "run the four Table 1 experiments (or read their results) and hold them against TinyTroupe's published Table 1: direction and significance per cell",
    )
    .option(
      "--results <paths...>",
      "compare these instead of running: result files, folders of them, or EXPERIMENT=FILE (Dramaturg's results or TinyTroupe's)",
    );
  modelOptions(table1, false)
    .option("--out <dir>", "also write each experiment's result document here, as <scenario>.json")
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
        "dramaturg experiment table1 --scale 0.1 --model openai:gpt-4o-mini --judge openai:gpt-4o-mini --dry-run",
        "OPENAI_API_KEY=… dramaturg experiment table1 --scale 0.1 --model openai:gpt-4o-mini --judge openai:gpt-4o-mini --out table1/",
      ),
    )
    .action(async (flags: Table1Flags) => {
      setExitCode(await experimentTable1Command(flags));
    });
}

/** The flags that say how experiments run: the models, the scale, the store; required for `run`, not for `table1 --results`. */
/**
 * The options of a comparison's output, shared by compare, report and run: the arms (where a file may hold
 * others), the format, alpha, and the chart.
 */
function comparisonOptions(command: Command, { arms, svg }: { arms: boolean; svg: boolean }): Command {
  if (arms)
    command
      .option("--control <name>", 'the control arm (default: the arm named "control", any case)')
      .option(
        "--treatment <name>",
        'the treatment arm (default: the arm named "treatment", or the only other arm)',
      );
  command
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .option("--alpha <a>", "significance level: a difference is significant when p < alpha", "0.05");
  if (svg)
    command.option("--svg <file>", "also write a chart: per metric, both arms' values, means and 95% CIs");
  return command;
}

function modelOptions(command: Command, required: boolean): Command {
  const model = "the agents' model (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL)";
  const judge = "judges the dimensions, the extraction, the gate (a model spec or fixtures:FILE)";
  if (required) command.requiredOption("--model <spec>", model).requiredOption("--judge <spec>", judge);
  else command.option("--model <spec>", model).option("--judge <spec>", judge);
  return addModelServerOptions(
    command.option("--scale <s>", "shrink the environments and agents proportionally (0 < s ≤ 1)", "1"),
  )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the judge")
    .option("--judge-api-key-env <var>", "environment variable holding the judge's API key")
    .option("--seed <n>", "seed of every environment's world (default: the scenario's)")
    .option("--concurrency <n>", "judge calls in flight at once", "16")
    .option("--db <location>", "store location (default .dramaturg; a rerun on it resumes)")
    .option("--config <file>", "project file to use")
    .option(
      "--dry-run",
      "print the calls, tokens and cost per arm (agents and judge) this needs; call nothing, write nothing",
    );
}

function alphaOf(text: string): number {
  const alpha = Number(text);
  if (!(alpha > 0 && alpha < 1))
    throw new InputError(`expected a number between 0 and 1, got "${text}"`, { place: "--alpha" });
  return alpha;
}

export async function experimentReportCommand(fileOrId: string, flags: ReportFlags): Promise<number> {
  checkOutputPaths({ "--svg": flags.svg });
  const alpha = alphaOf(flags.alpha);
  const experiments = await import("../../experiments/index.ts");
  const choice = { control: flags.control, treatment: flags.treatment, alpha };
  // A file that is there is read; anything else that reads as an id is a stored experiment.
  if (!existsSync(fileOrId) && experiments.looksLikeExperimentId(fileOrId)) {
    const { resolveSettings } = await import("../settings.ts");
    const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
    const stored = await experiments.loadExperimentResult({ store: settings.db, id: fileOrId });
    emitReport(experiments, experiments.experimentReport(stored.document, choice), flags);
    return 0;
  }
  emitReport(experiments, experiments.readExperimentReport(fileOrId, choice), flags);
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
  checkOutputPaths({}, { "--out": flags.out });
  const experiments = await import("../../experiments/index.ts");
  let comparison: import("../../experiments/index.ts").Table1Comparison;
  if (flags.results !== undefined) {
    if (flags.model !== undefined || flags.judge !== undefined || flags.dryRun)
      throw new InputError(
        "--results compares result files, --model and --judge run the experiments; expected one or the other",
        { place: "--results" },
      );
    const results = resultArguments(flags.results).map((argument) => experiments.readTable1Result(argument));
    comparison = experiments.compareWithTable1(results);
  } else {
    const setup = await runSetup(flags as ExperimentModelFlags, "table1");
    const scenarios = experiments.listBuiltinScenarios();
    if (flags.dryRun) {
      const prices: import("../../experiments/index.ts").ExperimentPrice[] = [];
      for (const scenario of scenarios)
        prices.push(await experiments.priceExperiment(scenario, setup.priceOptions));
      printPrices(experiments, prices, flags.format);
      return 0;
    }
    const { withInterrupts } = await import("../interrupts.ts");
    const out = flags.out;
    const table1 = await withInterrupts(
      (signal) =>
        experiments.runTable1({
          ...setup.runOptions,
          scenarios,
          signal,
          onProgress: (id, event) => printProgress(event, `${id}: `),
          onExperiment: (run) => {
            if (out === undefined) return;
            mkdirSync(out, { recursive: true });
            writeFileSync(
              join(out, `${run.document.scenario.id}.json`),
              `${JSON.stringify(run.document, null, 2)}\n`,
            );
          },
        }),
      { resumeWith: "dramaturg experiment table1 (the same flags and --db)" },
    );
    comparison = table1.comparison;
  }
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

/**
 * The flags of `run` and `table1`, checked, as the library's options: everything is read before a store is
 * opened or a model is called. Prices for a dry run come from the project's `prices` and the built-in table.
 */
async function runSetup(flags: ExperimentModelFlags, command: "run" | "table1") {
  const [{ resolveSettings }, { priceFor }, { rateLimitSettingsOf }] = await Promise.all([
    import("../settings.ts"),
    import("../prices.ts"),
    import("../judge-rate-limit.ts"),
  ]);
  const scale = Number(flags.scale);
  if (!(scale > 0 && scale <= 1))
    throw new InputError(`expected a number above 0 and at most 1, got "${flags.scale}"`, {
      place: "--scale",
    });
  const seed = wholeFlag(flags.seed, "--seed", 0);
  const concurrency = wholeFlag(flags.concurrency, "--concurrency", 1)!;
  for (const [flag, value] of [
    ["--model", flags.model],
    ["--judge", flags.judge],
  ] as const)
    if (value === undefined)
      throw new InputError(
        `experiment ${command} needs --model and --judge${command === "table1" ? " (or --results to compare files)" : ""}`,
        { place: flag },
      );
  const model = flags.model!;
  const judge = flags.judge!;
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const runOptions = {
    model,
    modelSettings: { baseUrl: flags.modelBaseUrl, apiKeyEnv: flags.modelApiKeyEnv },
    judge,
    judgeSettings: {
      baseUrl: flags.judgeBaseUrl,
      apiKeyEnv: flags.judgeApiKeyEnv,
      ...rateLimitSettingsOf(settings),
    },
    store: settings.db,
    scale,
    ...(seed === undefined ? {} : { seed }),
    concurrency,
  };
  const agents = priceFor(model, settings.prices);
  const judged = priceFor(judge, settings.prices);
  const priceOptions = {
    model,
    judge,
    scale,
    prices: { ...(agents ? { agents } : {}), ...(judged ? { judge: judged } : {}) },
  };
  return { runOptions, priceOptions };
}

/** One line per experiment started and per environment run finished, on stderr. */
function printProgress(
  event: import("../../experiments/index.ts").ExperimentProgressEvent,
  prefix = "",
): void {
  if (event.type === "started")
    process.stderr.write(
      `${prefix}experiment ${event.experiment_id.slice(0, 8)}: ${event.total} environment runs${event.reused ? `, ${event.reused} finished already` : ""}\n`,
    );
  else if (event.type === "environment" && (event.phase === "completed" || event.phase === "failed"))
    process.stderr.write(`  ${prefix}${event.arm} environment ${event.index + 1}: ${event.phase}\n`);
}

/** A dry run's prices: JSON (`{ "dry_run": … }`, one price or a list), or the table. */
function printPrices(
  experiments: typeof import("../../experiments/index.ts"),
  prices: import("../../experiments/index.ts").ExperimentPrice[],
  format: string,
): void {
  if (format === "json") {
    const dryRun = prices.length === 1 ? prices[0] : prices;
    process.stdout.write(`${JSON.stringify({ dry_run: dryRun }, null, 2)}\n`);
    return;
  }
  process.stdout.write(experiments.renderExperimentPrices(prices));
}

export async function experimentRunCommand(name: string, flags: RunFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out, "--svg": flags.svg });
  const experiments = await import("../../experiments/index.ts");
  const alpha = alphaOf(flags.alpha);
  if (flags.detach && !flags.queue) throw new InputError("--detach goes with --queue", { place: "--detach" });
  if (flags.queue && flags.dryRun)
    throw new InputError("--queue runs the experiment; --dry-run prices it: expected one or the other", {
      place: "--queue",
    });
  const setup = await runSetup(flags, "run");
  const queue = flags.queue ? await import("../queued-experiment.ts") : undefined;
  queue?.requireQueueLocation(setup.runOptions.store);
  const scenario = experiments.resolveScenario(name);
  const population =
    flags.population === undefined ? undefined : experiments.loadPopulation(flags.population);
  const people = population === undefined ? {} : { population: { people: population.people } };
  if (flags.dryRun) {
    // No store is opened and no model is made: the prices come from the prompts a run would send.
    const price = await experiments.priceExperiment(scenario, { ...setup.priceOptions, ...people });
    printPrices(experiments, [price], flags.format);
    return 0;
  }
  let document: import("../../experiments/index.ts").ExperimentResultDocument;
  if (queue) {
    const queued = await queue.runQueuedExperiment(scenario, {
      ...setup.runOptions,
      ...people,
      detach: flags.detach,
    });
    if (!queued) return 0;
    document = queued;
  } else {
    const { withInterrupts } = await import("../interrupts.ts");
    const run = await withInterrupts(
      (signal) =>
        experiments.runExperiment(scenario, {
          ...setup.runOptions,
          ...people,
          signal,
          onProgress: (event) => printProgress(event),
        }),
      { resumeWith: `dramaturg experiment run ${name} (the same flags and --db)` },
    );
    document = run.document;
  }
  if (flags.out) writeFileSync(flags.out, `${JSON.stringify(document, null, 2)}\n`);
  emitReport(experiments, experiments.experimentReport(document, { alpha }), flags);
  // A run whose judge gave no verdict at all measured nothing: exit 3, as `eval` does, not a table of dashes.
  if (!experiments.measuredNothing(document)) return 0;
  process.stderr.write(
    `dramaturg: every judge verdict errored (${experiments.erroredVerdicts(document)}); the experiment measured nothing. Check the judge with \`dramaturg doctor\`\n`,
  );
  return 3;
}
