// What `calibrate` prints: one calibration's document, or several judges compared (with the cost of each,
// from the project's prices), in the format asked for; and, on stderr, each judge not calibrated well enough.
import {
  type CalibrationResult,
  compareJudges,
  judgeName,
  renderCalibrationMarkdown,
  renderCalibrationTable,
  renderComparisonMarkdown,
  renderComparisonTable,
} from "../calibration/index.ts";
import { cost, priceFor } from "./prices.ts";
import type { Settings } from "./settings.ts";

/** One calibration's document, or several judges' comparison, as text in the format asked for. */
export function renderResults(
  results: readonly CalibrationResult[],
  judges: readonly string[],
  format: string,
  prices: Settings["prices"],
): string {
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
    return compared ? renderComparisonMarkdown(compared) : renderCalibrationMarkdown(results[0]!);
  return compared ? renderComparisonTable(compared) : renderCalibrationTable(results[0]!);
}

/** Writes `text` to `out`, saying so on stderr, or to stdout. */
export async function print(text: string, out: string | undefined): Promise<void> {
  if (!out) {
    process.stdout.write(text);
    return;
  }
  const { writeFileSync } = await import("node:fs");
  writeFileSync(out, text);
  process.stderr.write(`wrote ${out}\n`);
}

/** Names on stderr each judge below `minKappa` on a proposition, and its propositions; exit 1 when any is. */
export function reportFlagged(results: readonly CalibrationResult[], minKappa: number): number {
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
