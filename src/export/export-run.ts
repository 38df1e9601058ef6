// `dramaturg export`: a stored evaluation's scores to Langfuse, Phoenix or an OTLP collector. Reads the scores
// (any kind), leaves out what the tool cannot hold, skips what the ledger says already arrived unchanged, sends
// the rest in batches (the ledger saved after each), sends refused scores once more, and says what happened.
import type { Store } from "../store/index.ts";
import { type DeliveryOptions, UnavailableApi } from "./delivery.ts";
import type { ExportDestination, ExportEnv, ExportTarget, RefusedScore } from "./destination.ts";
import { ExportLedger } from "./export-ledger.ts";
import { ExportDeliveryError, type ExportScore } from "./export-score.ts";
import { langfuseDestination } from "./langfuse.ts";
import { otlpDestination } from "./otlp.ts";
import { phoenixDestination } from "./phoenix.ts";
import { readStoredScores } from "./stored-scores.ts";

export interface ExportScoresOptions extends DeliveryOptions {
  store: Store;
  /** The evaluation (or persona run's evaluation) id, or its first 8+ characters. */
  id: string;
  to: ExportTarget;
  /** Also one score per proposition verdict (or judged interaction), not only per dimension. */
  propositions?: boolean;
  /** The ledger file (undefined: kept in memory for this call only). */
  ledger?: string;
  /** Where hosts and keys come from (default process.env). */
  env?: ExportEnv;
  /** Told each batch as it lands (the CLI prints it on stderr). */
  onProgress?: (sent: number, total: number) => void;
}

/** What an export did. */
export interface ExportOutcome {
  evaluation_id: string;
  kind: string;
  to: ExportTarget;
  /** The destination's host, as the ledger keys it (no credentials). */
  destination: string;
  /** Scores read from the evaluation. */
  scores: number;
  /** Sent now and arrived. */
  sent: number;
  /** Already there, unchanged, by the ledger: not sent again. */
  unchanged: number;
  /** Scores this tool cannot hold, with why (one line per reason). */
  left_out: { reason: string; count: number }[];
  /** Refused by the tool on their own, after a second try. */
  refused: { name: string; key: string; reason: string }[];
  /** Accepted in a request but rejected by the tool (OTLP partial success): not retried. */
  rejected: number;
  /** The trace the scores were attached to, when there was exactly one. */
  trace_id?: string;
}

/** What did not arrive, a line each: the scores refused on their own, then the records the collector rejected. */
export function undeliveredLines(o: ExportOutcome): string[] {
  return [
    ...o.refused.map((r) => `refused ${r.name} (${r.key}): ${r.reason}`),
    ...(o.rejected > 0 ? [`${o.rejected} rejected by the collector (partial success; not retried)`] : []),
  ];
}

/** What an export did, as lines: the summary, then one per reason scores were left out, refused or rejected. */
export function exportOutcomeLines(o: ExportOutcome): string[] {
  return [
    `exported ${o.kind} ${o.evaluation_id.slice(0, 8)} to ${o.to} (${o.destination}): ${o.sent} sent, ${o.unchanged} already there, of ${o.scores} scores`,
    ...o.left_out.map((l) => `  ${l.count} left out: ${l.reason}`),
    ...undeliveredLines(o).map((line) => `  ${line}`),
  ];
}

/** Scores sent that did not arrive: refused on their own, or rejected by the collector. */
export const undelivered = (o: ExportOutcome): number => o.refused.length + o.rejected;

/**
 * The score as this destination takes it: its attachment kept when its ids came from a tool the destination
 * holds (or from no tool it knows), else dropped — a LangSmith run id is no trace in Langfuse or Phoenix — so the
 * score goes where an unattached one goes (Langfuse's dataset run; left out of Phoenix).
 */
function placedFor(destination: ExportDestination, score: ExportScore): ExportScore {
  if (score.source === undefined || destination.holds.includes(score.source)) return score;
  return { ...score, attach: {} };
}

export function exportDestination(
  to: ExportTarget,
  options: DeliveryOptions & { env: ExportEnv },
): ExportDestination {
  switch (to) {
    case "langfuse":
      return langfuseDestination(options);
    case "phoenix":
      return phoenixDestination(options);
    case "otlp":
      return otlpDestination(options);
  }
}

/** An `export:` rule's (or an online rule's `export`) tool and choice of scores, applied to one evaluation. */
export function exportByRule(
  rule: { to: ExportTarget; propositions?: boolean },
  options: Omit<ExportScoresOptions, "to" | "propositions">,
): Promise<ExportOutcome> {
  return exportScores({ ...options, to: rule.to, propositions: rule.propositions === true });
}

/** Exports one stored evaluation's scores; throws ExportAuthError (401/403) or ExportDeliveryError (exit 3). */
export async function exportScores({
  store,
  id,
  to,
  propositions,
  ledger: ledgerFile,
  env = process.env,
  onProgress,
  ...delivery
}: ExportScoresOptions): Promise<ExportOutcome> {
  const destination = exportDestination(to, { env, ...delivery });
  const read = await readStoredScores(store, id, { propositions });
  const ledger = ExportLedger.open(ledgerFile);
  const context = { evaluationId: read.evaluationId, kind: read.kind };
  const hashOf = (s: ExportScore) =>
    ExportLedger.hashOf({
      name: s.name,
      value: s.value,
      comment: s.comment,
      attach: s.attach,
      metadata: s.metadata,
    });

  const leftOut = new Map<string, number>();
  const pending: ExportScore[] = [];
  let unchanged = 0;
  const scores = read.scores.map((s) => placedFor(destination, s));
  for (const [i, s] of scores.entries()) {
    const left = destination.leftOut(s);
    const reason =
      left && s !== read.scores[i] ? `ids from ${s.source}, whose traces ${to} does not hold` : left;
    if (reason) leftOut.set(reason, (leftOut.get(reason) ?? 0) + 1);
    else if (ledger.has(destination.key, s.id, hashOf(s))) unchanged++;
    else pending.push(s);
  }
  let sent = 0;
  const arrived = (s: ExportScore) => {
    ledger.mark(destination.key, s.id, hashOf(s));
    sent++;
  };
  const refused: RefusedScore[] = [];
  try {
    if (pending.length > 0) await destination.prepare?.(pending, context);
    for (let i = 0; i < pending.length; i += destination.batchSize) {
      refused.push(
        ...(await destination.send(pending.slice(i, i + destination.batchSize), context, arrived)),
      );
      ledger.save();
      onProgress?.(sent, pending.length);
    }
    // Refused on their own: once more, in case the tool was catching up (a span not yet ingested).
    if (refused.length > 0) {
      const again = refused.splice(0).map((r) => r.item);
      refused.push(...(await destination.send(again, context, arrived)));
      ledger.save();
    }
  } catch (error) {
    ledger.save();
    if (error instanceof UnavailableApi)
      throw new ExportDeliveryError(
        `${error.message}; ${sent} of ${pending.length} scores arrived, kept in the ledger: run the export again to send the rest`,
        { sent, failed: pending.length - sent, cause: error },
      );
    throw error;
  }
  const traces = new Set(scores.map((s) => s.attach.traceId).filter((t) => t !== undefined));
  return {
    evaluation_id: read.evaluationId,
    kind: read.kind,
    to,
    destination: destination.key.slice(to.length + 1),
    scores: read.scores.length,
    sent,
    unchanged,
    left_out: [...leftOut].map(([reason, count]) => ({ reason, count })),
    refused: refused.map((r) => ({ name: r.item.name, key: r.item.key, reason: r.reason })),
    rejected: destination.rejected ?? 0,
    ...(traces.size === 1 ? { trace_id: [...traces][0] } : {}),
  };
}
