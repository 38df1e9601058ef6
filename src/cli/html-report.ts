// `--format html`: the static report of what a command evaluated, written to --out or stdout. It is rendered
// from the store (the dashboard's pages), so a command writes it while its store is open — a `memory://`
// store keeps nothing once the command ends.
import { writeFileSync } from "node:fs";
import type { BaselineFolder, CiDashboardLinks, CiReport } from "../regression/index.ts";
import type { Store } from "../store/index.ts";

export interface HtmlReportOptions {
  /** The evaluations to report, in order. */
  evaluationIds: readonly string[];
  /** Where to write it; stdout when absent. */
  out?: string;
  title?: string;
  regressionThreshold?: number;
  /** A persona check's result, shown first (`dramaturg ci`). */
  ciReport?: CiReport;
  /** Where the check's runs are on a dashboard (`ci --dashboard-url`). */
  dashboardLinks?: CiDashboardLinks;
  /** The baselines a check compared with (`dramaturg ci`). */
  baselines?: BaselineFolder;
}

/** Renders and writes the report of evaluations in an open store. */
export async function writeHtmlReport(store: Store, options: HtmlReportOptions): Promise<void> {
  const { staticReport } = await import("../web/index.ts");
  const { out, ...report } = options;
  const text = await staticReport({ store, ...report });
  if (out) {
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out} (${Math.ceil(Buffer.byteLength(text) / 1024)} KiB)\n`);
  } else process.stdout.write(text);
}

/** The same for a store that outlives the command (a folder or a server): opened for the report and closed. */
export async function writeHtmlReportFrom(db: string, options: HtmlReportOptions): Promise<void> {
  const { openStore } = await import("../store/index.ts");
  const store = await openStore(db);
  try {
    await writeHtmlReport(store, options);
  } finally {
    await store.close();
  }
}

/**
 * The store a command should evaluate into when it will write the report: for `memory://`, which keeps
 * nothing past the call that opened it, a memory store opened here and handed to the library (the caller
 * closes it); undefined for a folder or a server, which the report reopens afterwards. A folder is not opened
 * before the input is read, so that bad input still writes nothing.
 */
export async function storeKeptForReport(db: string): Promise<Store | undefined> {
  const { parseStoreLocation } = await import("../core/index.ts");
  if (parseStoreLocation(db).kind !== "memory") return undefined;
  const { openStore } = await import("../store/index.ts");
  return openStore(db);
}

/** Writes the report from the store kept for it (closing that) or from the location. */
export async function writeHtmlReportAfter(
  kept: Store | undefined,
  db: string,
  options: HtmlReportOptions,
): Promise<void> {
  if (!kept) return writeHtmlReportFrom(db, options);
  try {
    await writeHtmlReport(kept, options);
  } finally {
    await kept.close();
  }
}
