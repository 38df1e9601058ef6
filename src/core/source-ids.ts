// The ids a session, turn, interaction or transcript message keeps from the tracing tool it was imported from
// (`source_ids`), and how they name that tool's trace, span and session: what `dramaturg export` attaches a score to.
import { z } from "zod";

/** `source_ids`: the same schema and description wherever an imported thing keeps them. */
export const SourceIdsSchema = z
  .record(z.string(), z.string())
  .optional()
  .describe(
    "Its ids in the system it was imported from (langfuse_trace_id, langfuse_observation_id, langfuse_session_id, langsmith_run_id, otlp_trace_id, otlp_span_id, inspect_sample_id…), kept so scores can be sent back to them",
  );

/** Where something came from in a tracing tool: the tool, and its session, trace and span ids. */
export interface SourceTrace {
  source?: string;
  session_id?: string;
  trace_id?: string;
  span_id?: string;
}

/** How `source_ids` name the trace, span and session of the system they came from. */
export const SOURCE_ID_KEYS: Readonly<
  Record<string, { source: string; key: Exclude<keyof SourceTrace, "source"> }>
> = {
  langfuse_trace_id: { source: "langfuse", key: "trace_id" },
  langfuse_observation_id: { source: "langfuse", key: "span_id" },
  langfuse_session_id: { source: "langfuse", key: "session_id" },
  langsmith_trace_id: { source: "langsmith", key: "trace_id" },
  langsmith_run_id: { source: "langsmith", key: "span_id" },
  langsmith_thread_id: { source: "langsmith", key: "session_id" },
  otlp_trace_id: { source: "otlp", key: "trace_id" },
  otlp_span_id: { source: "otlp", key: "span_id" },
  otlp_session_id: { source: "otlp", key: "session_id" },
};

/**
 * The trace, span and session `source_ids` name (the first key of each wins, in the record's order), with the
 * system they came from; undefined when they name none.
 */
export function sourceTraceOf(
  sourceIds: Readonly<Record<string, string>> | undefined,
): SourceTrace | undefined {
  const ref: SourceTrace = {};
  for (const [name, value] of Object.entries(sourceIds ?? {})) {
    const known = SOURCE_ID_KEYS[name];
    if (!known || value === "" || ref[known.key] !== undefined) continue;
    ref.source ??= known.source;
    ref[known.key] = value;
  }
  return Object.keys(ref).length ? ref : undefined;
}
