// `dramaturg calibrate --labels FILE… --run ID`: how far a stored persona evaluation's judge agrees with
// human labels, per proposition, per dimension and overall; exit 1 when a proposition's judge falls below the bar.
import { type Command, Option } from "commander";
import { InputError } from "../../core/index.ts";
import { setExitCode } from "../exit-code.ts";
import { wholeFlag } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { resolveSettings } from "../settings.ts";

export interface CalibrateFlags {
  labels: string[];
  run: string;
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
    .description("how far a stored evaluation's judge agrees with human labels, per proposition")
    .requiredOption(
      "--labels <files...>",
      "human label files (YAML, JSON, JSONL or CSV; dramaturg schema labels)",
    )
    .requiredOption(
      "--run <id>",
      "the stored persona evaluation (or one of its runs) whose verdicts are compared, or its first 8+ characters",
    )
    .option("--min-kappa <k>", "flag a proposition whose quadratic-weighted κ is below this", "0.6")
    .option(
      "--minimum <score>",
      'the "fails" threshold (a raw score below it fails) for precision and recall (default: the project\'s thresholds.minimum when all its dimensions share one)',
    )
    .option("--resamples <n>", "bootstrap resamples for the 95 % intervals (0: none)", "1000")
    .option("--seed <n>", "seed of the bootstrap", "1")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      `\nThe judge's verdicts are the stored run's: nothing is judged. Judging the labelled items afresh (--judge) comes next.\n${examples(
        "dramaturg calibrate --labels labels/rater-a.yaml labels/rater-b.csv --run 3f2a91c0",
        "dramaturg calibrate --labels labels.csv --run 3f2a91c0 --format markdown --out calibration.md",
      )}`,
    )
    .action(async (flags: CalibrateFlags) => setExitCode(await calibrateCommand(flags)));
}

function kappaFlag(value: string | undefined): number {
  const k = Number(value ?? "0.6");
  if (value?.trim() === "" || !Number.isFinite(k) || k < -1 || k > 1)
    throw new InputError(`expected a number from -1 to 1, got "${value}"`, { place: "--min-kappa" });
  return k;
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
  const format = flags.format ?? "table";
  if (!["table", "json", "markdown"].includes(format))
    throw new InputError(`--format must be table, json or markdown, got ${JSON.stringify(format)}`);
  const minKappa = kappaFlag(flags.minKappa);
  const resamples = wholeFlag(flags.resamples, "--resamples", 0);
  const seed = wholeFlag(flags.seed, "--seed", 0);
  if (seed !== undefined && seed >= 2 ** 32)
    throw new InputError(`expected a whole number below 2^32, got "${flags.seed}"`, { place: "--seed" });
  const given = minimumFlag(flags.minimum);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const minimum = given ?? projectMinimum(settings.thresholds.minimum);

  const { storeExists } = await import("../../store/index.ts");
  if (!storeExists(settings.db))
    throw new InputError("no store here to calibrate from; evaluate first", { place: settings.db });
  const { calibrateStoredRun, readLabels } = await import("../../calibration/index.ts");
  // Read before the store is opened: bad labels stop here, having touched nothing.
  const labels = readLabels(flags.labels);
  const result = await calibrateStoredRun({
    store: settings.db,
    id: flags.run,
    labels,
    minimum,
    minKappa,
    resamples,
    seed,
  });

  let text: string;
  if (format === "json") text = `${JSON.stringify(result, null, 2)}\n`;
  else {
    const report = await import("../calibration-report.ts");
    text =
      format === "markdown"
        ? report.renderCalibrationMarkdown(result)
        : report.renderCalibrationTable(result);
  }
  if (flags.out) {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(flags.out, text);
    process.stderr.write(`wrote ${flags.out}\n`);
  } else process.stdout.write(text);

  const flagged = result.propositions.filter((p) => p.flagged);
  if (flagged.length === 0) return 0;
  process.stderr.write(
    `dramaturg: the judge is not calibrated well enough on ${flagged.length} proposition(s) (κ < ${minKappa}): ${flagged
      .map((p) => `${p.dimension}/${p.proposition_id}`)
      .join(", ")}\n`,
  );
  return 1;
}
