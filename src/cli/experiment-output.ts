// What `dramaturg experiment …` prints and writes: a report in its format with its chart, two arms compared,
// Table 1 held against the results, a dry run's prices, the result documents.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/index.ts";
import {
  chooseArms,
  type ExperimentComparison,
  type ExperimentPrice,
  type ExperimentReportWithValues,
  type ExperimentResultDocument,
  erroredVerdicts,
  measuredNothing,
  type ResultSets,
  renderComparisonMarkdown,
  renderComparisonTable,
  renderExperimentChart,
  renderExperimentPrices,
  renderExperimentReportMarkdown,
  renderExperimentReportTable,
  renderTable1Markdown,
  renderTable1Table,
  type Table1Comparison,
} from "../experiments/index.ts";

/** Prints a report in its format and writes its chart, the chart made first: a failure leaves nothing half done. */
export function emitReport(
  { report, chart }: ExperimentReportWithValues,
  flags: { format: string; svg?: string },
): void {
  // The chart is made before anything is printed or written: a failure leaves nothing half done.
  const svg = flags.svg === undefined ? undefined : { file: flags.svg, text: renderExperimentChart(chart) };
  const text =
    flags.format === "json"
      ? `${JSON.stringify(report, null, 2)}\n`
      : flags.format === "markdown"
        ? renderExperimentReportMarkdown(report)
        : renderExperimentReportTable(report);
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

/** Two arms of a results file compared, in `format`; the table captioned with the arms, alpha and file. */
export function printComparison(
  sets: ResultSets,
  comparison: ExperimentComparison,
  {
    control,
    treatment,
    file,
    alpha,
    format,
  }: { control?: string; treatment?: string; file: string; alpha: number; format: string },
): void {
  if (format === "json") {
    process.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
    return;
  }
  const arms = chooseArms(sets, { control, treatment, file });
  const labels = { control: arms.control.name, treatment: arms.treatment.name, alpha, source: file };
  const render = format === "markdown" ? renderComparisonMarkdown : renderComparisonTable;
  process.stdout.write(render(comparison, labels));
}

/** A dry run's prices: JSON (`{ "dry_run": … }`, one price or a list), or the table. */
export function printPrices(prices: ExperimentPrice[], format: string): void {
  if (format === "json") {
    const dryRun = prices.length === 1 ? prices[0] : prices;
    process.stdout.write(`${JSON.stringify({ dry_run: dryRun }, null, 2)}\n`);
    return;
  }
  process.stdout.write(renderExperimentPrices(prices));
}

/** A result document as JSON in `file`, or given a folder (`table1 --out`) in `<folder>/<scenario>.json`. */
export function writeResultDocument(
  document: ExperimentResultDocument,
  to: { file: string } | { folder: string },
): void {
  let file: string;
  if ("folder" in to) {
    mkdirSync(to.folder, { recursive: true });
    file = join(to.folder, `${document.scenario.id}.json`);
  } else file = to.file;
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}

/** The results held against Table 1, in `format`. */
export function printTable1(comparison: Table1Comparison, format: string): void {
  process.stdout.write(
    format === "json"
      ? `${JSON.stringify(comparison, null, 2)}\n`
      : format === "markdown"
        ? renderTable1Markdown(comparison)
        : renderTable1Table(comparison),
  );
}

/**
 * An experiment whose judge gave no verdict at all measured nothing: exit 3, as `eval` does, not a table of
 * dashes, naming each such experiment when there are several (table1).
 */
export function measuredNothingExit(
  documents: readonly ExperimentResultDocument[],
  write: (text: string) => void = (text) => process.stderr.write(text),
): number {
  const empty = documents.filter((d) => measuredNothing(d));
  for (const d of empty)
    write(
      `dramaturg: every judge verdict errored (${erroredVerdicts(d)})${documents.length > 1 ? ` in ${d.scenario.id}` : ""}; the experiment measured nothing. Check the judge with \`dramaturg doctor\`\n`,
    );
  return empty.length > 0 ? 3 : 0;
}
