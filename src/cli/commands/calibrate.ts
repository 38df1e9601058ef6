// `dramaturg calibrate --labels FILE… --run ID`: how far a stored persona evaluation's judge agrees with
// human labels, per proposition, per dimension and overall; exit 1 when a proposition's judge falls below the bar.
import { type Command, Option } from "commander";
import type { CalibrationResult } from "../../calibration/index.ts";
import { InputError } from "../../core/index.ts";
import { setExitCode } from "../exit-code.ts";
import { kappaFlag, wholeFlag } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { resolveSettings, type Settings } from "../settings.ts";

export interface CalibrateFlags {
  labels: string[];
  run?: string;
  transcript?: string;
  judge?: string[];
  propositions?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  mode?: string;
  trials?: string;
  concurrency?: string;
  timeout?: string;
  retries?: string;
  cache?: boolean;
  progress?: boolean;
  orderEffects?: boolean;
  db?: string;
  config?: string;
  minKappa?: string;
  minimum?: string;
  resamples?: string;
  seed?: string;
  format?: string;
  out?: string;
}

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

/** The project's minimum when every dimension that sets one sets the same number; else none. */
function projectMinimum(minimum: Partial<Record<string, number>>): number | undefined {
  const values = new Set(Object.values(minimum).filter((v): v is number => typeof v === "number"));
  return values.size === 1 ? [...values][0] : undefined;
}

function minimumFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = Number(value);
  if (value.trim() === "" || !Number.isFinite(m) || m < 0 || m > 10)
    throw new InputError(`expected a score from 0 to 10, got "${value}"`, { place: "--minimum" });
  return m;
}

export async function calibrateCommand(flags: CalibrateFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out });
  const format = flags.format ?? "table";
  if (!["table", "json", "markdown", "html"].includes(format))
    throw new InputError(`--format must be table, json, markdown or html, got ${JSON.stringify(format)}`);
  const minKappa = kappaFlag(flags.minKappa, "--min-kappa") ?? 0.6;
  const resamples = wholeFlag(flags.resamples, "--resamples", 0);
  const seed = wholeFlag(flags.seed, "--seed", 0);
  if (seed !== undefined && seed >= 2 ** 32)
    throw new InputError(`expected a whole number below 2^32, got "${flags.seed}"`, { place: "--seed" });
  const given = minimumFlag(flags.minimum);
  if (flags.run === undefined && flags.transcript === undefined)
    throw new InputError(
      "give the stored evaluation (--run ID) or the transcript the labels are of (--transcript FILE)",
      {
        place: "--run",
      },
    );
  if (flags.run !== undefined && flags.transcript !== undefined)
    throw new InputError("give either --run or --transcript, not both", { place: "--transcript" });
  if (flags.transcript !== undefined && !flags.judge?.length)
    throw new InputError("a transcript has no verdicts of its own: give --judge SPEC to judge it", {
      place: "--judge",
    });
  const judges = [...new Set(flags.judge ?? [])];
  const { settings } = resolveSettings({
    flags: {
      db: flags.db,
      propositions: flags.propositions,
      judge: judges[0],
      judgeBaseUrl: flags.judgeBaseUrl,
      judgeApiKeyEnv: flags.judgeApiKeyEnv,
      mode: flags.mode,
      trials: flags.trials,
      concurrency: flags.concurrency,
      timeout: flags.timeout,
      retries: flags.retries,
      cache: flags.cache,
    },
    projectFile: flags.config,
  });
  const minimum = given ?? projectMinimum(settings.thresholds.minimum);

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

  if (format === "html")
    await html.writeHtmlReportAfter(kept, settings.db, {
      evaluationIds: results.map((r) => r.evaluation_id!),
      out: flags.out,
      title: "Dramaturg calibration",
    });
  else await print(await renderResults(results, judges, format, settings.prices), flags.out);

  const { judgeName } = await import("../../calibration/index.ts");
  let failing = 0;
  for (const result of results) {
    const flagged = result.propositions.filter((p) => p.flagged);
    if (flagged.length === 0) continue;
    failing++;
    process.stderr.write(
      `dramaturg: ${judgeName(result)} is not calibrated well enough on ${flagged.length} proposition(s) (κ < ${minKappa}): ${flagged
        .map((p) => `${p.dimension}/${p.proposition_id}`)
        .join(", ")}\n`,
    );
  }
  return failing > 0 ? 1 : 0;
}

/** One calibration's document, or several judges' comparison, as text in the format asked for. */
async function renderResults(
  results: readonly CalibrationResult[],
  judges: readonly string[],
  format: string,
  prices: Settings["prices"],
): Promise<string> {
  const report = await import("../../calibration/index.ts");
  const { cost, priceFor } = await import("../prices.ts");
  const { compareJudges } = await import("../../calibration/index.ts");
  const compared =
    results.length > 1
      ? compareJudges(results, {
          specs: judges,
          costOf: (spec, usage) => {
            const price = priceFor(spec, prices);
            return price && cost(usage, price);
          },
        })
      : undefined;
  if (format === "json") return `${JSON.stringify(compared ?? results[0]!, null, 2)}\n`;
  if (format === "markdown")
    return compared
      ? report.renderComparisonMarkdown(compared)
      : report.renderCalibrationMarkdown(results[0]!);
  return compared ? report.renderComparisonTable(compared) : report.renderCalibrationTable(results[0]!);
}

async function print(text: string, out: string | undefined): Promise<void> {
  if (!out) {
    process.stdout.write(text);
    return;
  }
  const { writeFileSync } = await import("node:fs");
  writeFileSync(out, text);
  process.stderr.write(`wrote ${out}\n`);
}
