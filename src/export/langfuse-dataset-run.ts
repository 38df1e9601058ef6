// Langfuse's home for scores of messages that did not come from it: a dataset run. The dataset `dramaturg`
// (POST /api/public/v2/datasets, upserted by name), an item per judged unit — an agent, a session, a
// conversation's pass — (POST /api/public/dataset-items, upserted by id: `dramaturg-<kind>-<unit>`, the same
// across evaluations so runs compare), a trace per item and evaluation (POST /api/public/ingestion,
// `trace-create`, upserted by its id), and a run named after the evaluation (`dramaturg-<id>`) linking each
// item to its trace (POST /api/public/dataset-run-items, which makes or finds the run by name; a run item is
// new at every call, so those the run already has are listed first and not made again). The scores then go on
// the item's trace, which the run's page shows per item. Every id is stable: a re-export makes nothing new.
import { type ApiRequest, RejectedRequest } from "./delivery.ts";
import type { ExportContext } from "./destination.ts";
import { type ExportScore, stableScoreId } from "./export-score.ts";

/** The dataset every run of Dramaturg's goes in. */
export const LANGFUSE_DATASET = "dramaturg";

type Request = (r: Omit<ApiRequest, "headers">) => Promise<unknown>;

/** The judged unit a score belongs to: its agent, session or pass; the whole run when it names none. */
export function judgedUnit(score: ExportScore): string {
  const m = score.metadata;
  return String(m.agent_id ?? m.session_id ?? m.pass ?? "run");
}

/** The dataset item of a kind's unit: the same id in every evaluation (at most 255 characters). */
export function datasetItemId(kind: string, unit: string): string {
  return `dramaturg-${kind}-${unit}`.slice(0, 255);
}

/** The trace of a unit in an evaluation: 32 hex digits, as an OpenTelemetry trace id. */
export function datasetTraceId(evaluationId: string, unit: string): string {
  return stableScoreId(evaluationId, `dataset trace|${unit}`).replaceAll("-", "");
}

/**
 * Makes (or finds) the dataset, the items, the traces and the run for these scores' units; the trace id of
 * each unit. A request Langfuse refuses (a 404 where the endpoint is gone, on Langfuse v4) gives undefined:
 * the scores then go on the session named after the evaluation. Refused keys and an unreachable host throw.
 */
export async function prepareDatasetRun(
  request: Request,
  host: string,
  scores: readonly ExportScore[],
  { evaluationId, kind }: ExportContext,
  runName: string,
): Promise<Map<string, string> | undefined> {
  const units = [...new Set(scores.map(judgedUnit))].sort();
  if (units.length === 0) return new Map();
  try {
    const dataset = (await request({
      method: "POST",
      url: `${host}/api/public/v2/datasets`,
      body: {
        name: LANGFUSE_DATASET,
        description:
          "Dramaturg's evaluations: an item per judged agent, session or pass, a run per evaluation",
      },
    })) as { id?: string } | undefined;
    if (!dataset?.id) return undefined;
    for (const unit of units)
      await request({
        method: "POST",
        url: `${host}/api/public/dataset-items`,
        body: {
          datasetName: LANGFUSE_DATASET,
          id: datasetItemId(kind, unit),
          input: { kind, unit },
          metadata: { source: "dramaturg" },
        },
      });
    const ingested = (await request({
      method: "POST",
      url: `${host}/api/public/ingestion`,
      body: {
        batch: units.map((unit) => ({
          id: stableScoreId(evaluationId, `trace-create|${unit}`),
          timestamp: new Date().toISOString(),
          type: "trace-create",
          body: {
            id: datasetTraceId(evaluationId, unit),
            name: `dramaturg ${kind} ${unit}`,
            input: { kind, unit },
            metadata: { evaluation_id: evaluationId, kind },
            tags: ["dramaturg"],
          },
        })),
      },
    })) as { errors?: unknown[] } | undefined;
    if ((ingested?.errors ?? []).length > 0) return undefined;
    const linked = await runItems(request, host, dataset.id, runName);
    for (const unit of units) {
      const itemId = datasetItemId(kind, unit);
      if (linked.has(itemId)) continue;
      await request({
        method: "POST",
        url: `${host}/api/public/dataset-run-items`,
        body: {
          runName,
          runDescription: `Dramaturg ${kind} evaluation ${evaluationId}`,
          metadata: { evaluation_id: evaluationId, kind },
          datasetItemId: itemId,
          traceId: datasetTraceId(evaluationId, unit),
        },
      });
    }
    return new Map(units.map((unit) => [unit, datasetTraceId(evaluationId, unit)]));
  } catch (error) {
    if (error instanceof RejectedRequest) return undefined;
    throw error;
  }
}

/** The items a run already links (none when the run does not exist yet). */
async function runItems(request: Request, host: string, datasetId: string, runName: string) {
  const items = new Set<string>();
  for (let page = 1; ; page++) {
    const query = new URLSearchParams({ datasetId, runName, page: String(page), limit: "100" });
    const answer = (await request({
      method: "GET",
      url: `${host}/api/public/dataset-run-items?${query}`,
    }).catch((error) => {
      // No run of that name yet: nothing linked.
      if (error instanceof RejectedRequest && error.status === 404) return undefined;
      throw error;
    })) as { data?: { datasetItemId: string }[]; meta?: { totalPages?: number } } | undefined;
    for (const item of answer?.data ?? []) items.add(item.datasetItemId);
    if (!answer?.meta?.totalPages || page >= answer.meta.totalPages) return items;
  }
}
