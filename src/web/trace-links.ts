// Links from a stored evaluation to the traces it judged, in the tracing tools they came from or were exported to:
// Langfuse, whose host the server knows (the traces came from there), and Phoenix once the export ledger, or the
// export record of the online run that made the evaluation, says its scores were sent to that Phoenix (only then
// are its traces known to be there).
import {
  ExportLedger,
  judgedSources,
  langfuseTraceUrl,
  phoenixLedgerKey,
  phoenixTraceUrl,
  readStoredScores,
  scoresOfDocument,
  storedMessages,
} from "../export/index.ts";
import type { OnlineRunExport, RunRow, ScoreRow } from "../store/index.ts";
import type { DashboardContext } from "./dashboard-context.ts";
import { type Html, html } from "./html.ts";

/** How many traces a page links, the first in order. */
const LINKED_TRACES = 5;

/**
 * Whether this evaluation's scores were exported to the dashboard's Phoenix, by the export record of an online run
 * (a worker keeps no ledger) or by the export ledger: only then are its traces known to be there (Phoenix refuses
 * annotations of spans it does not have). A page that has loaded the evaluation's document gives it (`loaded`),
 * so it is not loaded again. An unreadable ledger links nothing from the ledger.
 */
export async function exportedToPhoenix(
  context: DashboardContext,
  id: string,
  loaded?: { kind: string; document: unknown },
): Promise<boolean> {
  if (!context.phoenixHost) return false;
  const key = phoenixLedgerKey(context.phoenixHost);
  try {
    const online = await context.store.online.exportsOfEvaluation(id);
    if (online.some((e) => reachedPhoenix(e, key))) return true;
    if (!context.exportLedger) return false;
    const ledger = ExportLedger.open(context.exportLedger);
    const options = { propositions: true };
    const { scores } = loaded
      ? await scoresOfDocument(context.store, { ...loaded, evaluationId: id }, options)
      : await readStoredScores(context.store, id, options);
    return ledger.sentAny(
      key,
      scores.map((s) => s.id),
    );
  } catch {
    return false;
  }
}

/** Whether an online run's export put some scores in the Phoenix whose ledger key is `key`. */
function reachedPhoenix(record: OnlineRunExport, key: string): boolean {
  return (
    record.to === "phoenix" &&
    record.destination !== undefined &&
    phoenixLedgerKey(record.destination) === key &&
    (record.status === "exported" || record.status === "partial") &&
    (record.sent ?? 0) + (record.unchanged ?? 0) > 0
  );
}

/** Links to each trace in a tracing tool: `in Langfuse: trace 0123abcd, …`. */
export function traceLinks(tool: string, traces: readonly string[], url: (trace: string) => string): Html[] {
  return traces.map(
    (t, i) =>
      html`${i === 0 ? `in ${tool}: ` : ", "}<a href="${url(t)}" rel="noopener">trace ${t.slice(0, 8)}</a>`,
  );
}

/**
 * The traces a persona run's judged messages came from (their `source_ids`, kept by `eval` of an imported
 * trace), linked: to Langfuse for messages imported from it when the server knows its host, to Phoenix for
 * OTLP traces once the evaluation was exported there. Empty when there is nothing to link. `input` is the
 * evaluation's stored input, as the run page read it; `rows` all the run's verdicts, when the page has them.
 */
export async function runTraceLinks(
  context: DashboardContext,
  run: RunRow,
  { input, rows }: { input: unknown; rows?: readonly ScoreRow[] },
): Promise<Html[][]> {
  if (!run.evaluation_id || (!context.langfuseHost && !context.phoenixHost)) return [];
  rows ??= await context.store.scores.forEvaluation(run.evaluation_id, { run: run.id });
  const sources = judgedSources(storedMessages(input), run.agent_id, rows);
  const tracesFrom = (source: string) => [
    ...new Set(sources.filter((s) => s?.source === source && s.trace_id).map((s) => s!.trace_id!)),
  ];
  const out: Html[][] = [];
  const langfuse = tracesFrom("langfuse").slice(0, LINKED_TRACES);
  if (context.langfuseHost && langfuse.length > 0)
    out.push(traceLinks("Langfuse", langfuse, (t) => langfuseTraceUrl(context.langfuseHost!, t)));
  const otlp = tracesFrom("otlp").slice(0, LINKED_TRACES);
  if (otlp.length > 0 && (await exportedToPhoenix(context, run.evaluation_id)))
    out.push(traceLinks("Phoenix", otlp, (t) => phoenixTraceUrl(context.phoenixHost!, t)));
  return out;
}
