// Stored calibrations as a list reads them (the dashboard's /calibrations, `GET /api/calibrations`): a line
// each with who judged, what was calibrated, on which labels, and the headline figures of its document.
import type { EvaluationRow, LifecycleStatus, PageAfter, Store } from "../store/index.ts";
import type { Interval } from "./agreement.ts";
import { CALIBRATION_FORMAT, type CalibrationResult } from "./calibrate.ts";

/** One stored calibration in a list. The figures are null until it completed with its document. */
export interface CalibrationListRow {
  id: string;
  created_at: string;
  status: LifecycleStatus;
  judge: { provider: string; model: string } | null;
  /** Whether the judge judged the items for it (`--judge`) or its verdicts were read from `calibrated_evaluation`. */
  judged: boolean | null;
  /** The persona evaluation calibrated (`--run`), when there is one. */
  calibrated_evaluation: string | null;
  labels: string[];
  /** Labelled items compared, and how many of them the judge scored. */
  n: number | null;
  n_judged: number | null;
  kappa_quadratic: number | null;
  kappa_ci: Interval;
  propositions: number | null;
  flagged: number | null;
  minimum_kappa: number | null;
  warnings: string[];
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/** The judge a calibration's configuration names, before its document says (a pending or failed one). */
function configuredJudge(config: Record<string, unknown>): CalibrationListRow["judge"] {
  const d = config.judge_descriptor as { provider?: unknown; model?: unknown } | undefined;
  return typeof d?.provider === "string" && typeof d.model === "string"
    ? { provider: d.provider, model: d.model }
    : null;
}

/**
 * A calibration's list line from its row and its stored document (undefined before completion). The document
 * is read defensively: one stored by an older version may lack `warnings` or `propositions_hash`.
 */
export function calibrationListRow(row: EvaluationRow, stored: unknown): CalibrationListRow {
  const result =
    (stored as { format?: unknown } | undefined)?.format === CALIBRATION_FORMAT
      ? (stored as Partial<CalibrationResult>)
      : undefined;
  const overall = result?.overall;
  const propositions = result?.propositions ?? [];
  return {
    id: row.id,
    created_at: row.created_at,
    status: row.status,
    judge: result ? (result.judge ?? null) : configuredJudge(row.config),
    judged: typeof result?.judged === "boolean" ? result.judged : null,
    calibrated_evaluation:
      result?.calibrated_evaluation ?? (typeof row.config.run === "string" ? row.config.run : null),
    labels: result ? strings(result.labels) : strings(row.config.labels),
    n: overall?.n ?? null,
    n_judged: overall?.n_judged ?? null,
    kappa_quadratic: overall?.kappa_quadratic ?? null,
    kappa_ci: overall?.ci?.kappa_quadratic ?? null,
    propositions: result ? propositions.length : null,
    flagged: result ? propositions.filter((p) => p.flagged).length : null,
    minimum_kappa: result?.minimum_kappa ?? null,
    warnings: strings(result?.warnings),
  };
}

/** Stored calibrations, newest first, with their headline figures: a page after `after`. */
export async function listCalibrations({
  store,
  limit = 50,
  ...page
}: { store: Store; limit?: number } & Pick<
  NonNullable<Parameters<Store["evaluations"]["list"]>[0]>,
  "after" | "since" | "until" | "agent"
>): Promise<CalibrationListRow[]> {
  return calibrationListRows(store, await store.evaluations.list({ kind: "calibration", limit, ...page }));
}

/** Stored calibrations' rows as a list shows them, each with its document's figures once it completed. */
export function calibrationListRows(
  store: Store,
  rows: readonly EvaluationRow[],
): Promise<CalibrationListRow[]> {
  return Promise.all(
    rows.map(async (row) =>
      calibrationListRow(
        row,
        row.status === "completed" ? await store.evaluations.result(row.id) : undefined,
      ),
    ),
  );
}

/** How many calibration rows {@link calibrationsOfEvaluation} looks at, newest first. */
const SCAN_LIMIT = 1_000;

/**
 * The calibrations of a persona evaluation (`calibrate --run ID`), newest first: found by the configuration
 * each keeps, so no document is read. A store holds few calibrations; the newest thousand are looked at.
 */
export async function calibrationsOfEvaluation(store: Store, evaluationId: string): Promise<EvaluationRow[]> {
  const found: EvaluationRow[] = [];
  const batch = 100;
  let after: PageAfter | undefined;
  for (let scanned = 0; scanned < SCAN_LIMIT; scanned += batch) {
    const rows = await store.evaluations.list({ kind: "calibration", limit: batch, after });
    for (const row of rows) if (row.config.run === evaluationId) found.push(row);
    if (rows.length < batch) break;
    const last = rows.at(-1)!;
    after = { id: last.id, created_at: last.created_at };
  }
  return found;
}
