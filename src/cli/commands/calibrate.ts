// `dramaturg calibrate --labels FILE… --run ID`: how far a stored persona evaluation's judge agrees with
// human labels, per proposition, per dimension and overall; exit 1 when a proposition's judge falls below the bar.
import { type Command, Option } from "commander";
import type { CalibrationResult } from "../../calibration/index.ts";
import { InputError } from "../../core/index.ts";
import type { CalibrateFlags } from "../calibration-settings.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";

export function registerCalibrateCommand(program: Command): void {
  program
    .command("calibrate")
    .description("how far a judge agrees with human labels, per proposition; judges compared, with cost")
    .requiredOption(
      "--labels <files...>",
      "human label files (YAML, JSON, JSONL or CSV; dramaturg schema labels)",
    )
    .option(
      "--run <id>",
      "a stored persona evaluation (or one of its runs, or its first 8+ characters): its verdicts are compared, or with --judge its transcript is judged",
    )
    .option("--transcript <file>", "without --run: the transcript the labels are of (needs --judge)")
    .option(
      "--judge <specs...>",
      "judge the labelled items afresh (through the verdict cache); several: compared on the same items, with cost",
    )
    .option("--propositions <dir>", "with --transcript: the propositions folder (default: the project's)")
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp)")
    .option("--judge-api-key-env <var>", "environment variable holding the judge's API key")
    .option("--mode <mode>", "with --judge: individual (one claim per call) or batch (up to 10)")
    .option("--trials <n>", "with --judge: judge each item N times (its score: their mean, rounded half up)")
    .option("--concurrency <n>", "with --judge: judge calls in flight at once")
    .option("--timeout <ms>", "with --judge: per-call timeout in milliseconds")
    .option("--retries <n>", "with --judge: retries per judge call")
    .option("--no-cache", "with --judge: neither read nor write the verdict cache")
    .option(
      "--order-effects",
      "with --judge: also judge the items individually, in batches and in shuffled batches (outside the cache: three more passes) and report how far batching and a claim's place move the scores",
    )
    .option("--no-progress", "no progress bar on stderr")
    .option("--min-kappa <k>", "flag a proposition whose quadratic-weighted κ is below this", "0.6")
    .option(
      "--minimum <score>",
      'the "fails" threshold (a raw score below it fails) for precision and recall (default: the project\'s thresholds.minimum when all its dimensions share one)',
    )
    .option("--resamples <n>", "bootstrap resamples for the 95 % intervals (0: none)", "1000")
    .option("--seed <n>", "seed of the bootstrap", "1")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown", "html"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      `\nEach calibration is stored (dramaturg show ID prints it again). Exit 1 when a judge falls below --min-kappa on a proposition.\n${examples(
        "dramaturg calibrate --labels labels/rater-a.yaml labels/rater-b.csv --run 3f2a91c0",
        "dramaturg calibrate --labels labels.csv --run 3f2a91c0 --judge openai:gpt-4o-mini anthropic:claude-haiku-4-5",
        "dramaturg calibrate --labels labels.csv --transcript chat.json --judge openai-compatible:llama3.1:8b --judge-base-url http://127.0.0.1:11434/v1",
        "dramaturg calibrate --labels labels.csv --run 3f2a91c0 --format markdown --out calibration.md",
      )}`,
    )
    .action(async (flags: CalibrateFlags) => setExitCode(await calibrateCommand(flags)));
}

export async function calibrateCommand(flags: CalibrateFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out });
  const { calibrationSettings } = await import("../calibration-settings.ts");
  const { format, minKappa, resamples, seed, minimum, judges, settings } = calibrationSettings(flags);
  const { storeExists } = await import("../../store/index.ts");
  if (flags.run !== undefined && !storeExists(settings.db))
    throw new InputError("no store here to calibrate from; evaluate first", { place: settings.db });
  const [{ calibrate, readLabels }, { createJudge }, { judgeSettingsOf }] = await Promise.all([
    import("../../calibration/index.ts"),
    import("../../judge/index.ts"),
    import("../persona-evaluation.ts"),
  ]);
  // Read before anything opens: bad labels (or a bad judge spec, a missing key) stop here, having touched nothing.
  const labels = readLabels(flags.labels);
  const judgeSettings = judgeSettingsOf(settings);
  const built = judges.map((spec) => createJudge(spec, judgeSettings));
  const results: CalibrationResult[] = [];
  // The HTML report is rendered from the store: a memory:// one must stay open until it is written.
  const html = await import("../html-report.ts");
  const kept = format === "html" ? await html.storeKeptForReport(settings.db) : undefined;
  try {
    // Each calibration opens the store once its labels are known to be good: bad labels write nothing.
    const { progressBar } = await import("../progress.ts");
    for (const [i, judge] of (built.length > 0 ? built : [undefined]).entries())
      results.push(
        await calibrate({
          store: kept ?? settings.db,
          labels,
          run: flags.run,
          transcript: flags.transcript,
          propositions: settings.propositions,
          judge,
          mode: settings.judge.mode,
          trials: settings.trials,
          concurrency: settings.judge.concurrency,
          cache: settings.cache,
          minimum,
          minKappa,
          resamples,
          seed,
          orderEffects: flags.orderEffects,
          onProgress: progressBar(`judging with ${judges[i] ?? "no judge"}`, flags.progress !== false),
        }),
      );
  } catch (error) {
    await kept?.close();
    throw error;
  } finally {
    await Promise.all(built.map((j) => j.close?.()));
  }

  const output = await import("../calibration-output.ts");
  if (format === "html")
    await html.writeHtmlReportAfter(kept, settings.db, {
      evaluationIds: results.map((r) => r.evaluation_id!),
      out: flags.out,
      title: "Dramaturg calibration",
    });
  else await output.print(output.renderResults(results, judges, format, settings.prices), flags.out);
  return output.reportFlagged(results, minKappa);
}
