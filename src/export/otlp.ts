// OTLP: each score as a `gen_ai.evaluation.result` event (a log record with that event name) on the judged span,
// with the GenAI semantic conventions' evaluation attributes: gen_ai.evaluation.name, gen_ai.evaluation.score.value,
// gen_ai.evaluation.score.label, gen_ai.evaluation.explanation. They came with v1.38.0 (open-telemetry/
// semantic-conventions#2563, status development); v1.42.0 moved the GenAI conventions to the
// semantic-conventions-genai repository (#3696), whose model/gen-ai/events.yaml keeps the event and these four
// names unchanged (checked 2026-11-29). OTLP/HTTP JSON to OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, or
// OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs (default http://localhost:4318); OTEL_EXPORTER_OTLP_HEADERS (`k=v,…`)
// are sent and never shown. OTLP has no upsert: the export ledger is what keeps a re-export from repeating one.
// Records the collector rejects in a partial success are not retried (the OTLP specification forbids it).
import { InputError } from "../core/index.ts";
import { sendRequest, sendSplitting } from "./delivery.ts";
import {
  type DestinationOptions,
  type ExportDestination,
  hostFrom,
  type RefusedScore,
} from "./destination.ts";
import type { ExportScore } from "./export-score.ts";

/** The semantic conventions' version the attribute names are taken from. */
export const GEN_AI_SEMCONV_VERSION = "1.38.0";
export const EVALUATION_EVENT = "gen_ai.evaluation.result";

const AUTH_HINT = "check OTEL_EXPORTER_OTLP_HEADERS (the collector's credentials)";
const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

/** `k=v,k2=v2` (values URL-encoded), as the OpenTelemetry SDKs read OTEL_EXPORTER_OTLP_HEADERS. */
export function otlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    headers[pair.slice(0, at).trim().toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

type AnyValue = { stringValue: string } | { doubleValue: number };
const attribute = (key: string, value: string | number): { key: string; value: AnyValue } => ({
  key,
  value: typeof value === "number" ? { doubleValue: value } : { stringValue: value },
});

export function otlpDestination({
  env,
  now = () => Date.now(),
  ...delivery
}: DestinationOptions & { now?: () => number }): ExportDestination {
  const url = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT
    ? hostFrom(
        env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT,
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
        (m) => new InputError(m),
      )
    : `${hostFrom(env.OTEL_EXPORTER_OTLP_ENDPOINT || "http://localhost:4318", "OTEL_EXPORTER_OTLP_ENDPOINT", (m) => new InputError(m))}/v1/logs`;
  const headers = otlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS);
  const target = new URL(url);
  let rejected = 0;

  const record = (score: ExportScore, evaluationId: string) => {
    const at = `${BigInt(now()) * 1_000_000n}`;
    const traceId = score.attach.traceId?.toLowerCase();
    const spanId = score.attach.spanId?.toLowerCase();
    const traced = traceId !== undefined && HEX32.test(traceId);
    return {
      timeUnixNano: at,
      observedTimeUnixNano: at,
      severityNumber: 9,
      severityText: "INFO",
      eventName: EVALUATION_EVENT,
      ...(traced ? { traceId } : {}),
      ...(traced && spanId !== undefined && HEX16.test(spanId) ? { spanId } : {}),
      attributes: [
        attribute("gen_ai.evaluation.name", score.name),
        attribute("gen_ai.evaluation.score.value", score.value),
        ...(score.label ? [attribute("gen_ai.evaluation.score.label", score.label)] : []),
        ...(score.comment ? [attribute("gen_ai.evaluation.explanation", score.comment)] : []),
        ...(score.attach.sessionId ? [attribute("session.id", score.attach.sessionId)] : []),
        attribute("dramaturg.evaluation.id", evaluationId),
        attribute("dramaturg.score.id", score.id),
        ...Object.entries(score.metadata)
          .filter(([k]) => k !== "evaluation_id")
          .map(([k, v]) => attribute(`dramaturg.${k}`, v)),
      ],
    };
  };

  return {
    target: "otlp",
    key: `otlp ${target.origin}${target.pathname}`,
    holds: ["otlp"],
    batchSize: 200,
    leftOut: () => undefined,
    async send(batch, { evaluationId }, arrived) {
      const refused: RefusedScore[] = await sendSplitting(
        batch,
        async (part) => {
          const answer = (await sendRequest(
            {
              method: "POST",
              url,
              headers,
              body: {
                resourceLogs: [
                  {
                    resource: { attributes: [attribute("service.name", "dramaturg")] },
                    scopeLogs: [
                      {
                        scope: { name: "dramaturg" },
                        schemaUrl: `https://opentelemetry.io/schemas/${GEN_AI_SEMCONV_VERSION}`,
                        logRecords: part.map((s) => record(s, evaluationId)),
                      },
                    ],
                  },
                ],
              },
            },
            AUTH_HINT,
            delivery,
          )) as { partialSuccess?: { rejectedLogRecords?: number | string } } | undefined;
          rejected += Number(answer?.partialSuccess?.rejectedLogRecords ?? 0);
        },
        arrived,
      );
      return refused;
    },
    get rejected() {
      return rejected;
    },
  };
}
