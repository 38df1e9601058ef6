// Langfuse's traces as its public API gives them (GET /api/public/traces/{id}: a `TraceWithFullDetails`, its
// `observations` each an `ObservationsView` — SPAN, GENERATION, EVENT, and the newer AGENT, TOOL, CHAIN…), one
// trace, a list of them, or `{data: [...]}` of full traces. Traces sharing a `sessionId` are one session, each
// trace a turn; AGENT observations are the interactions (the trace itself when there are none), GENERATIONs
// the model calls whose output holds the tool calls, TOOL observations (or SPANs named as a called tool) the
// runs with their results, ERROR-level observations failures. The trace, observation and session ids are kept
// on the session, turns and interactions (`source_ids`), so scores can be sent back to them.
import { z } from "zod";
import { firstIssue, InputError, issuePath, validateInput } from "../../core/index.ts";
import type { Imported, SessionImporter } from "./importer.ts";
import { calledTools, type TraceNode, type TraceRecord, traceSessions } from "./trace-tree.ts";

const Time = z.string().nullable().optional();

const Observation = z
  .object({
    id: z.string().min(1),
    traceId: z.string().nullable().optional(),
    type: z.string().min(1),
    name: z.string().nullable().optional(),
    startTime: z.string(),
    endTime: Time,
    parentObservationId: z.string().nullable().optional(),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    model: z.string().nullable().optional(),
    level: z.string().nullable().optional(),
    statusMessage: z.string().nullable().optional(),
    calculatedTotalCost: z.number().nullable().optional(),
    costDetails: z.record(z.string(), z.number()).nullable().optional(),
    metadata: z.unknown().optional(),
  })
  .loose();

const Trace = z
  .object({
    id: z.string().min(1),
    timestamp: z.string(),
    name: z.string().nullable().optional(),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    sessionId: z.string().nullable().optional(),
    observations: z.array(z.unknown()),
  })
  .loose();

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isTrace = (v: unknown) =>
  isObject(v) && typeof v.id === "string" && typeof v.timestamp === "string" && Array.isArray(v.observations);
const time = (t: string | null | undefined) => (t ? Date.parse(t) || 0 : 0);

/** Langfuse's observation types as the kinds of node a trace has. */
function kindOf(o: z.infer<typeof Observation>, called: Set<string>): TraceNode["kind"] {
  if (o.type === "AGENT") return "agent";
  if (o.type === "GENERATION") return "llm";
  if (o.type === "TOOL" || (o.type === "SPAN" && o.name && called.has(o.name))) return "tool";
  return "other";
}

export const langfuseImporter: SessionImporter = {
  name: "langfuse",
  detect: (value) =>
    isTrace(value) ||
    (Array.isArray(value) && value.length > 0 && value.every(isTrace)) ||
    (isObject(value) && Array.isArray(value.data) && value.data.length > 0 && value.data.every(isTrace)),
  import(value, { file }): Imported {
    const [list, prefix] = Array.isArray(value)
      ? [value, []]
      : isObject(value) && Array.isArray(value.data)
        ? [value.data, ["data"]]
        : [[value], undefined];
    const traces: TraceRecord[] = list.map((item, i) => {
      const at = (path: readonly PropertyKey[]) => issuePath(prefix ? [...prefix, i, ...path] : path);
      const parsed = validateInput(Trace, item);
      if (!parsed.success) {
        const issue = firstIssue(parsed.error);
        throw new InputError(`${issue.message}; expected a Langfuse trace (GET /api/public/traces/{id})`, {
          file,
          place: at(issue.path),
        });
      }
      const t = parsed.data;
      const observations = t.observations.map((o, j) => {
        if (typeof o === "string")
          throw new InputError(
            "an observation id, not the observation: the trace list gives only ids; export each trace with GET /api/public/traces/{id}",
            { file, place: at(["observations", j]) },
          );
        const obs = validateInput(Observation, o);
        if (!obs.success) {
          const issue = firstIssue(obs.error);
          throw new InputError(issue.message, { file, place: at(["observations", j, ...issue.path]) });
        }
        return obs.data;
      });
      // The tools the model called: a SPAN of that name is its run (the SDKs' @observe on a tool function).
      const called = new Set<string>();
      for (const o of observations)
        if (o.type === "GENERATION") for (const name of calledTools(o.output)) called.add(name);
      const nodes = observations.map(
        (o): TraceNode => ({
          id: o.id,
          ...(o.parentObservationId ? { parent: o.parentObservationId } : {}),
          kind: kindOf(o, called),
          name: o.name ?? o.type.toLowerCase(),
          start: time(o.startTime),
          ...(o.endTime ? { end: time(o.endTime) } : {}),
          input: o.input,
          output: o.output,
          ...(o.level === "ERROR" ? { error: o.statusMessage || "the observation failed" } : {}),
          ...((o.calculatedTotalCost ?? o.costDetails?.total) !== undefined
            ? { cost: (o.calculatedTotalCost ?? o.costDetails?.total) as number }
            : {}),
        }),
      );
      return {
        id: t.id,
        ...(t.sessionId ? { conversation: t.sessionId } : {}),
        start: time(t.timestamp),
        ...(t.name ? { name: t.name } : {}),
        input: t.input,
        output: t.output,
        nodes,
      };
    });
    return traceSessions(traces, { prefix: "langfuse", node: "observation", conversation: "session" });
  },
};
