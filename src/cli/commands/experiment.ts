// `dramaturg experiment …`: treatment versus control. `experiment compare FILE` reads a Dramaturg experiment
// result or a TinyTroupe experiment results file and prints each metric's Welch test in the Table 1 layout;
// `experiment report FILE|ID` does the same for an experiment's result (a file, or a stored experiment),
// naming the experiment, with an SVG chart; `experiment table1 --results …` holds four experiments' results
// against TinyTroupe's published Table 1, and without `--results` runs the four first; `experiment run
// SCENARIO` runs a scenario's control and treatment worlds in pairs and reports them (`--dry-run`: prices it).
import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { ExperimentPrice } from "../../experiments/index.ts";
import { setExitCode } from "../exit-code.ts";
import {
  alphaOf,
  type CompareFlags,
  checkRunModes,
  comparisonOptions,
  type ExperimentModelFlags,
  type ReportFlags,
  type RunFlags,
  runOptions,
  runSetup,
  type Table1Flags,
  table1Options,
  table1ResultFiles,
} from "../experiment-options.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";

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
  runOptions(run)
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
    );
  table1Options(table1)
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

export async function experimentReportCommand(fileOrId: string, flags: ReportFlags): Promise<number> {
  checkOutputPaths({ "--svg": flags.svg });
  const choice = { control: flags.control, treatment: flags.treatment, alpha: alphaOf(flags.alpha) };
  const [experiments, { emitReport }] = await Promise.all([
    import("../../experiments/index.ts"),
    import("../experiment-output.ts"),
  ]);
  // A file that is there is read; anything else that reads as an id is a stored experiment.
  if (!existsSync(fileOrId) && experiments.looksLikeExperimentId(fileOrId)) {
    const { resolveSettings } = await import("../settings.ts");
    const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
    const stored = await experiments.loadExperimentResult({ store: settings.db, id: fileOrId });
    emitReport(experiments.experimentReport(stored.document, choice), flags);
  } else emitReport(experiments.readExperimentReport(fileOrId, choice), flags);
  return 0;
}

export async function experimentTable1Command(flags: Table1Flags): Promise<number> {
  checkOutputPaths({}, { "--out": flags.out });
  const [experiments, output] = await Promise.all([
    import("../../experiments/index.ts"),
    import("../experiment-output.ts"),
  ]);
  // Agreement is information, not a verdict on the run: exit 0 whatever the cells say.
  if (flags.results !== undefined) {
    const results = table1ResultFiles(flags).map((file) => experiments.readTable1Result(file));
    output.printTable1(experiments.compareWithTable1(results), flags.format);
    return 0;
  }
  const setup = await runSetup(flags as ExperimentModelFlags, "table1");
  const scenarios = experiments.listBuiltinScenarios();
  if (flags.dryRun) {
    const prices: ExperimentPrice[] = [];
    for (const scenario of scenarios)
      prices.push(await experiments.priceExperiment(scenario, setup.priceOptions));
    output.printPrices(prices, flags.format);
    return 0;
  }
  const { runTable1Here } = await import("../experiment-runs.ts");
  const { comparison, documents } = await runTable1Here({ ...setup.runOptions, scenarios }, flags.out);
  output.printTable1(comparison, flags.format);
  return output.measuredNothingExit(documents);
}

export async function experimentCompareCommand(file: string, flags: CompareFlags): Promise<number> {
  const alpha = alphaOf(flags.alpha);
  const [experiments, { printComparison }] = await Promise.all([
    import("../../experiments/index.ts"),
    import("../experiment-output.ts"),
  ]);
  const sets = experiments.readResultSets(file);
  const choice = { control: flags.control, treatment: flags.treatment, file };
  const comparison = experiments.compareResultSets(sets, { ...choice, alpha });
  printComparison(sets, comparison, { ...choice, alpha, format: flags.format });
  return 0;
}

export async function experimentRunCommand(name: string, flags: RunFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out, "--svg": flags.svg });
  const [experiments, output] = await Promise.all([
    import("../../experiments/index.ts"),
    import("../experiment-output.ts"),
  ]);
  const alpha = alphaOf(flags.alpha);
  checkRunModes(flags);
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
    output.printPrices([price], flags.format);
    return 0;
  }
  const checking = await import("../experiment-validation.ts");
  // The real answers the survey names are read before any model is called.
  const tables = await checking.readScenarioEmpirical(scenario);
  const options = { ...setup.runOptions, ...people };
  // With real answers to validate against, the store stays open past the run (a memory:// one ends with it),
  // and the validations are stored under the experiment after either path.
  const store =
    tables === undefined ? undefined : await (await import("../../store/index.ts")).openStore(options.store);
  let document: import("../../experiments/index.ts").ExperimentResultDocument;
  let validated = "";
  try {
    const run = queue
      ? await queue.runQueuedExperiment(scenario, { ...options, detach: flags.detach })
      : await (await import("../experiment-runs.ts")).runExperimentHere(
          scenario,
          store ? { ...options, store } : options,
          name,
        );
    if (!run) return 0;
    document = run.document;
    if (store && tables)
      validated = await checking.validateExperimentHere({
        store,
        experimentId: run.evaluation_id,
        document,
        scenario,
        tables,
        format: flags.format,
      });
  } finally {
    await store?.close();
  }
  if (flags.out) output.writeResultDocument(document, { file: flags.out });
  output.emitReport(experiments.experimentReport(document, { alpha }), flags);
  if (validated !== "") process.stdout.write(validated);
  return output.measuredNothingExit([document]);
}
