// `dramaturg labels export --run ID`: the labels people saved on the dashboard's labelling page for a persona
// evaluation, written as a `dramaturg.labels/v1` file (YAML, JSONL or CSV) that `dramaturg calibrate` reads.
import { type Command, Option } from "commander";
import { InputError } from "../../core/index.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { resolveSettings } from "../settings.ts";

const FORMATS = ["yaml", "jsonl", "csv"] as const;

export interface LabelsExportFlags {
  run: string;
  format?: string;
  rater?: string;
  out?: string;
  db?: string;
  config?: string;
}

export function registerLabelsCommand(program: Command): void {
  const labels = program
    .command("labels")
    .description("human labels entered on the dashboard's labelling page: export them for calibrate")
    .addHelpText("after", examples("dramaturg labels export --run 3f2a91c0 --out labels.yaml"));
  labels
    .command("export")
    .description("write a persona evaluation's stored labels as a dramaturg.labels/v1 file")
    .requiredOption(
      "--run <id>",
      "the persona evaluation (or one of its runs) that was labelled, or its first 8+ characters",
    )
    .addOption(new Option("--format <format>", "output format").choices([...FORMATS]).default("yaml"))
    .option("--rater <name>", "only this rater's labels")
    .option("--out <file>", "write the labels to a file instead of stdout")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg labels export --run 3f2a91c0 --out labels.yaml",
        "dramaturg labels export --run 3f2a91c0 --format csv --rater ana > ana.csv",
        "dramaturg calibrate --labels labels.yaml --run 3f2a91c0",
      ),
    )
    .action(async (flags: LabelsExportFlags) => setExitCode(await labelsExportCommand(flags)));
}

export async function labelsExportCommand(flags: LabelsExportFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out });
  const format = flags.format ?? "yaml";
  if (!(FORMATS as readonly string[]).includes(format))
    throw new InputError(`expected one of ${FORMATS.join(", ")}, got ${JSON.stringify(format)}`, {
      place: "--format",
    });
  if (flags.rater !== undefined && (flags.rater.trim() === "" || flags.rater.length > 64))
    throw new InputError(
      `expected a rater's name of 1 to 64 characters, got ${JSON.stringify(flags.rater)}`,
      {
        place: "--rater",
      },
    );
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  const { openStore, storeExists } = await import("../../store/index.ts");
  if (!storeExists(settings.db))
    throw new InputError("no store here to export labels from; evaluate first", { place: settings.db });
  const { exportStoredLabels } = await import("../../calibration/index.ts");
  const store = await openStore(settings.db);
  let exported: Awaited<ReturnType<typeof exportStoredLabels>>;
  try {
    exported = await exportStoredLabels({
      store,
      id: flags.run,
      format: format as (typeof FORMATS)[number],
      ...(flags.rater !== undefined ? { rater: flags.rater } : {}),
    });
  } finally {
    await store.close();
  }
  if (flags.out) {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(flags.out, exported.text);
    process.stderr.write(
      `wrote ${exported.labels} label(s) of evaluation ${exported.evaluation_id.slice(0, 8)} to ${flags.out}\n`,
    );
  } else process.stdout.write(exported.text);
  if (exported.labels === 0)
    process.stderr.write(
      `dramaturg: evaluation ${exported.evaluation_id.slice(0, 8)} has no labels yet; label it on the dashboard (dramaturg serve, /evaluations/${exported.evaluation_id}/label)\n`,
    );
  return 0;
}
