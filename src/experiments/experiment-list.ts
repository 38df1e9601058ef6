// Stored experiments as a list reads them (`runs --kind experiment`, `GET /api/experiments`, the dashboard's
// /experiments): a line each with what ran — scenario, scale, seed, models, from its configuration — and,
// once it completed, its arms' size and the headline of its report, as `experiment report ID` would give it.
import type { EvaluationRow, Store, StoredListQuery } from "../engine/index.ts";
import { EXPERIMENT_RESULT_FORMAT } from "./compare.ts";
import { experimentReport } from "./experiment-report.ts";
import type { ExperimentResultDocument } from "./run-experiment.ts";

/** One stored experiment in a list. What comes from its document is null until it completed. */
export interface ExperimentListRow {
  id: string;
  created_at: string;
  status: string;
  /** The scenario's id. */
  scenario: string;
  /** The scenario's title. */
  title: string | null;
  /** The scale it ran at, and its seed. */
  scale: number | null;
  seed: number | null;
  /** The agents' model and the judge (`provider:model`). */
  model: string | null;
  judge: string | null;
  /** Environment runs in each arm (N_e). */
  environments: number | null;
  /** Metrics compared, and how many of them differ significantly (p < 0.05). */
  metrics: number | null;
  significant: number | null;
  /** The first metric's comparison: treatment − control, its p, and whether it is significant. */
  headline: { metric: string; delta: number | null; p: number | null; significant: boolean | null } | null;
  /** Verdicts that errored, left out of the metrics. */
  errored: number;
}

const numberOrNull = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;
const stringOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** An experiment's list line from its row and its stored document (undefined before completion). */
export function experimentListRow(row: EvaluationRow, stored: unknown): ExperimentListRow {
  const config = row.config as {
    scenario?: { id?: unknown };
    scale?: unknown;
    seed?: unknown;
    models?: { agents?: unknown };
    judge?: { provider?: unknown; model?: unknown };
  };
  const document =
    (stored as { format?: unknown } | undefined)?.format === EXPERIMENT_RESULT_FORMAT
      ? (stored as ExperimentResultDocument)
      : undefined;
  const comparisons = document ? experimentReport(document).report.comparisons : undefined;
  const first = comparisons?.[0];
  const judge = config.judge;
  return {
    id: row.id,
    created_at: row.created_at,
    status: row.status,
    scenario: stringOrNull(config.scenario?.id) ?? row.source,
    title: document?.scenario.title ?? null,
    scale: numberOrNull(config.scale),
    seed: numberOrNull(config.seed),
    model: stringOrNull(config.models?.agents),
    judge:
      typeof judge?.provider === "string" && typeof judge.model === "string"
        ? `${judge.provider}:${judge.model}`
        : null,
    environments: document?.scenario.environments ?? null,
    metrics: comparisons?.length ?? null,
    significant: comparisons?.filter((c) => c.significant === true).length ?? null,
    headline: first
      ? { metric: first.metric, delta: first.delta, p: first.p, significant: first.significant }
      : null,
    errored: row.errored,
  };
}

/** Stored experiments, newest first, with their headline figures: a page after `after`. */
export async function listExperiments({
  store,
  limit = 50,
  ...page
}: { store: Store; limit?: number } & Omit<StoredListQuery, "limit">): Promise<ExperimentListRow[]> {
  const rows = await store.evaluations.list({ kind: "experiment", limit, ...page });
  const out: ExperimentListRow[] = [];
  for (const row of rows)
    out.push(
      experimentListRow(row, row.status === "completed" ? await store.evaluations.result(row.id) : undefined),
    );
  return out;
}
