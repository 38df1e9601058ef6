// Phoenix: span, trace and session annotations (POST /v1/span_annotations, /v1/trace_annotations and
// /v1/session_annotations, synchronously so a refused one is known), `annotator_kind: LLM`, the label, score and
// the judge's explanation, and the score's id as the `identifier`, so a re-export updates the annotation instead
// of adding one. Phoenix annotates the spans, traces and sessions it holds: a score with none of their ids is
// left out (and counted).
// Host from PHOENIX_COLLECTOR_ENDPOINT (default http://localhost:6006); PHOENIX_API_KEY as a bearer token.
import { InputError } from "../core/index.ts";
import { type ApiRequest, sendRequest, sendSplitting } from "./delivery.ts";
import {
  type DestinationOptions,
  type ExportDestination,
  hostFrom,
  type RefusedScore,
} from "./destination.ts";
import type { ExportScore } from "./export-score.ts";

const AUTH_HINT = "check PHOENIX_API_KEY (and PHOENIX_COLLECTOR_ENDPOINT for the server)";

/**
 * The Phoenix page of a trace: its UI's `/redirects/traces/<OpenTelemetry trace id>`, which finds the trace's
 * project and opens it there (so no project id is needed).
 */
export function phoenixTraceUrl(host: string, traceId: string): string {
  return `${host.replace(/\/+$/, "")}/redirects/traces/${encodeURIComponent(traceId)}`;
}

/** The export ledger's key of the Phoenix at `host`: the destination records under it, the dashboard asks it. */
export function phoenixLedgerKey(host: string): string {
  return `phoenix ${host.replace(/\/+$/, "")}`;
}

export function phoenixDestination({ env, ...delivery }: DestinationOptions): ExportDestination {
  const host = hostFrom(
    env.PHOENIX_COLLECTOR_ENDPOINT || "http://localhost:6006",
    "PHOENIX_COLLECTOR_ENDPOINT",
    (m) => new InputError(m),
  );
  const headers: Record<string, string> = env.PHOENIX_API_KEY
    ? { authorization: `Bearer ${env.PHOENIX_API_KEY}` }
    : {};
  const post = (path: string, body: unknown) =>
    sendRequest(
      { method: "POST", url: `${host}${path}?sync=true`, headers, body } satisfies ApiRequest,
      AUTH_HINT,
      delivery,
    );

  const annotation = (score: ExportScore) => ({
    name: score.name,
    annotator_kind: "LLM",
    result: {
      score: score.value,
      ...(score.label ? { label: score.label } : {}),
      ...(score.comment ? { explanation: score.comment } : {}),
    },
    metadata: score.metadata,
    identifier: score.id,
  });

  return {
    target: "phoenix",
    key: phoenixLedgerKey(host),
    holds: ["otlp"],
    batchSize: 100,
    leftOut: (score) =>
      score.attach.spanId || score.attach.sessionId || score.attach.traceId
        ? undefined
        : "no span, trace or session id from the traces (Phoenix annotates only what it holds)",
    async send(batch, _context, arrived) {
      const spans = batch.filter((s) => s.attach.spanId);
      const sessions = batch.filter((s) => !s.attach.spanId && s.attach.sessionId);
      const traces = batch.filter((s) => !s.attach.spanId && !s.attach.sessionId && s.attach.traceId);
      const refused: RefusedScore[] = [];
      refused.push(
        ...(await sendSplitting(
          traces,
          (part) =>
            post("/v1/trace_annotations", {
              data: part.map((s) => ({ ...annotation(s), trace_id: s.attach.traceId })),
            }).then(() => undefined),
          arrived,
        )),
      );
      refused.push(
        ...(await sendSplitting(
          spans,
          (part) =>
            post("/v1/span_annotations", {
              data: part.map((s) => ({ ...annotation(s), span_id: s.attach.spanId })),
            }).then(() => undefined),
          arrived,
        )),
      );
      refused.push(
        ...(await sendSplitting(
          sessions,
          (part) =>
            post("/v1/session_annotations", {
              data: part.map((s) => ({ ...annotation(s), session_id: s.attach.sessionId })),
            }).then(() => undefined),
          arrived,
        )),
      );
      return refused;
    },
  };
}
