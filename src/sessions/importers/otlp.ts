// OTLP JSON traces (the OpenTelemetry HTTP exporter's and the collector's file format) as sessions. Three
// vocabularies are read: the OTel GenAI conventions (current attributes, and the older form with messages
// as span events), the AI SDK's `ai.*` spans (`ai.generateText`, `ai.toolCall`, `ai.prompt.tools`,
// `ai.telemetry.functionId`) and OpenInference (`openinference.span.kind`, `llm.tools.N…`). A session is a
// conversation id (`gen_ai.conversation.id`, `session.id`, the AI SDK's metadata) or else a trace; each trace
// of it is a turn; agent spans are the interactions. Calls the model made but the SDK never ran (bad
// arguments, an unknown tool) are kept from the model's own output, with the arguments as it wrote them.
import { z } from "zod";
import { firstIssue, InputError, issuePath, validateInput } from "../../core/index.ts";
import type { SessionInput } from "../session-format.ts";
import type { Imported, SessionImporter } from "./importer.ts";
import { jsonValue } from "./trace-tree.ts";

const AnyValue: z.ZodType<unknown> = z.lazy(() =>
  z
    .object({
      stringValue: z.string().optional(),
      intValue: z.union([z.string(), z.number()]).optional(),
      doubleValue: z.union([z.number(), z.string()]).optional(),
      boolValue: z.boolean().optional(),
      arrayValue: z.object({ values: z.array(AnyValue).optional() }).optional(),
      kvlistValue: z
        .object({ values: z.array(z.object({ key: z.string(), value: AnyValue })).optional() })
        .optional(),
      bytesValue: z.string().optional(),
    })
    .loose(),
);
const Attributes = z.array(z.object({ key: z.string(), value: AnyValue.optional() }).loose()).optional();

const OtlpSpan = z
  .object({
    traceId: z.string().min(1),
    spanId: z.string().min(1),
    parentSpanId: z.string().optional(),
    name: z.string(),
    startTimeUnixNano: z.union([z.string(), z.number()]).optional(),
    endTimeUnixNano: z.union([z.string(), z.number()]).optional(),
    attributes: Attributes,
    events: z.array(z.object({ name: z.string(), attributes: Attributes }).loose()).optional(),
    status: z
      .object({ code: z.union([z.number(), z.string()]).optional(), message: z.string().optional() })
      .loose()
      .optional(),
  })
  .loose();

const OtlpTrace = z
  .object({
    resourceSpans: z.array(
      z
        .object({
          resource: z.object({ attributes: Attributes }).loose().optional(),
          scopeSpans: z.array(z.object({ spans: z.array(OtlpSpan).optional() }).loose()).optional(),
        })
        .loose(),
    ),
  })
  .loose();

type RawSpan = z.infer<typeof OtlpSpan>;

interface Span {
  traceId: string;
  id: string;
  parent?: string;
  name: string;
  start: number;
  end: number;
  attrs: Record<string, unknown>;
  events: { name: string; attrs: Record<string, unknown> }[];
  error?: string;
}

/** An OTLP AnyValue as a plain value. */
function plain(v: unknown): unknown {
  if (!v || typeof v !== "object") return undefined;
  const a = v as Record<string, unknown>;
  if (a.stringValue !== undefined) return a.stringValue;
  if (a.intValue !== undefined) return Number(a.intValue);
  if (a.doubleValue !== undefined) return Number(a.doubleValue);
  if (a.boolValue !== undefined) return a.boolValue;
  if (a.arrayValue) return ((a.arrayValue as { values?: unknown[] }).values ?? []).map(plain);
  if (a.kvlistValue)
    return Object.fromEntries(
      ((a.kvlistValue as { values?: { key: string; value: unknown }[] }).values ?? []).map((kv) => [
        kv.key,
        plain(kv.value),
      ]),
    );
  return undefined;
}

function attrsOf(list: z.infer<typeof Attributes>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list ?? []) out[kv.key] = plain(kv.value);
  return out;
}

/** Unix nanoseconds (a decimal string or a number) as milliseconds, to the microsecond. */
const nanos = (v: string | number | undefined) =>
  v === undefined ? 0 : Number(BigInt(String(v)) / 1000n) / 1000;
/** A span's duration in ms, to a tenth. */
const duration = (s: { start: number; end: number }) => Math.round((s.end - s.start) * 10) / 10;

function toSpan(raw: RawSpan): Span {
  const code = raw.status?.code;
  const failed = code === 2 || code === "STATUS_CODE_ERROR";
  const attrs = attrsOf(raw.attributes);
  return {
    traceId: raw.traceId,
    id: raw.spanId,
    ...(raw.parentSpanId ? { parent: raw.parentSpanId } : {}),
    name: raw.name,
    start: nanos(raw.startTimeUnixNano),
    end: nanos(raw.endTimeUnixNano),
    attrs,
    events: (raw.events ?? []).map((e) => ({ name: e.name, attrs: attrsOf(e.attributes) })),
    ...(failed ? { error: raw.status?.message || String(attrs["error.type"] ?? "the span failed") } : {}),
  };
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** What kind of span this is, in whichever vocabulary it speaks. */
function kindOf(s: Span): "agent" | "llm" | "tool" | undefined {
  const op = str(s.attrs["gen_ai.operation.name"]);
  const oi = str(s.attrs["openinference.span.kind"])?.toUpperCase();
  const ai = str(s.attrs["ai.operationId"]) ?? s.name;
  if (op === "invoke_agent" || oi === "AGENT" || ai === "ai.generateText" || ai === "ai.streamText")
    return "agent";
  if (op === "execute_tool" || oi === "TOOL" || ai === "ai.toolCall") return "tool";
  if (
    op === "chat" ||
    op === "text_completion" ||
    op === "generate_content" ||
    oi === "LLM" ||
    /^ai\.(generateText|streamText)\.do(Generate|Stream)$/.test(ai)
  )
    return "llm";
  return undefined;
}

function agentName(s: Span): string {
  return (
    str(s.attrs["gen_ai.agent.name"]) ??
    str(s.attrs["gen_ai.agent.id"]) ??
    str(s.attrs["ai.telemetry.functionId"]) ??
    str(s.attrs["agent.name"]) ??
    (kindOf(s) === "agent" && !s.name.startsWith("ai.") && !s.name.startsWith("invoke_agent")
      ? s.name
      : undefined) ??
    "assistant"
  );
}

function conversationOf(s: Span): string | undefined {
  return (
    str(s.attrs["gen_ai.conversation.id"]) ??
    str(s.attrs["session.id"]) ??
    str(s.attrs["ai.telemetry.metadata.sessionId"]) ??
    str(s.attrs["ai.telemetry.metadata.session_id"]) ??
    str(s.attrs["ai.telemetry.metadata.conversationId"])
  );
}

interface Message {
  role?: string;
  text: string;
  calls: { id?: string; name: string; args: unknown }[];
  reasoning: string[];
}

/** Messages in any of the three shapes: semconv parts, the AI SDK's provider messages, OpenAI's. */
function messages(value: unknown): Message[] {
  const list = jsonValue(value);
  if (!Array.isArray(list))
    return typeof list === "string" ? [{ role: "user", text: list, calls: [], reasoning: [] }] : [];
  return list.map((m): Message => {
    const msg = (m ?? {}) as Record<string, unknown>;
    const out: Message = { role: str(msg.role), text: "", calls: [], reasoning: [] };
    const parts = Array.isArray(msg.parts) ? msg.parts : Array.isArray(msg.content) ? msg.content : undefined;
    if (typeof msg.content === "string") out.text = msg.content;
    for (const p of parts ?? []) {
      const part = (p ?? {}) as Record<string, unknown>;
      const type = str(part.type);
      if (type === "text") out.text += String(part.content ?? part.text ?? "");
      else if (type === "reasoning") out.reasoning.push(String(part.content ?? part.text ?? ""));
      else if (type === "tool_call" || type === "tool-call")
        out.calls.push({
          id: str(part.id) ?? str(part.toolCallId),
          name: String(part.name ?? part.toolName ?? "?"),
          args: part.arguments ?? part.input ?? part.args,
        });
    }
    for (const c of (Array.isArray(msg.tool_calls) ? msg.tool_calls : []) as Record<string, unknown>[]) {
      const fn = (c.function ?? {}) as Record<string, unknown>;
      out.calls.push({
        id: str(c.id),
        name: String(fn.name ?? c.name ?? "?"),
        args: fn.arguments ?? c.arguments,
      });
    }
    return out;
  });
}

/** The messages an LLM span was given and gave, in whichever form it records them. */
function llmMessages(s: Span): { input: Message[]; output: Message[] } {
  const a = s.attrs;
  let input = messages(a["gen_ai.input.messages"] ?? a["ai.prompt.messages"] ?? a["input.value"]);
  let output = messages(a["gen_ai.output.messages"]);
  if (
    output.length === 0 &&
    (a["ai.response.text"] !== undefined || a["ai.response.toolCalls"] !== undefined)
  ) {
    const calls = jsonValue(a["ai.response.toolCalls"]);
    output = [
      {
        role: "assistant",
        text: String(a["ai.response.text"] ?? ""),
        reasoning: [],
        calls: Array.isArray(calls)
          ? calls.map((c: Record<string, unknown>) => ({
              id: str(c.toolCallId),
              name: String(c.toolName ?? "?"),
              args: c.input ?? c.args,
            }))
          : [],
      },
    ];
  }
  // OpenInference: llm.input_messages.N.message.role / .content, llm.output_messages.N.message.…
  if (input.length === 0) input = indexedMessages(a, "llm.input_messages");
  if (output.length === 0) output = indexedMessages(a, "llm.output_messages");
  // The older semconv: messages as events.
  if (input.length === 0 && output.length === 0)
    for (const e of s.events) {
      const body = e.attrs;
      if (e.name === "gen_ai.user.message")
        input.push({ role: "user", text: String(jsonValue(body.content) ?? ""), calls: [], reasoning: [] });
      if (e.name === "gen_ai.choice") {
        const message = jsonValue(body.message) as Record<string, unknown> | undefined;
        output.push(...messages([{ role: "assistant", ...(message ?? { content: body.content }) }]));
      }
    }
  return { input, output };
}

function indexedMessages(a: Record<string, unknown>, prefix: string): Message[] {
  const out: Message[] = [];
  for (let n = 0; a[`${prefix}.${n}.message.role`] !== undefined; n++) {
    const at = `${prefix}.${n}.message`;
    const m: Message = {
      role: str(a[`${at}.role`]),
      text: String(a[`${at}.content`] ?? ""),
      calls: [],
      reasoning: [],
    };
    for (let k = 0; a[`${at}.tool_calls.${k}.tool_call.function.name`] !== undefined; k++)
      m.calls.push({
        id: str(a[`${at}.tool_calls.${k}.tool_call.id`]),
        name: String(a[`${at}.tool_calls.${k}.tool_call.function.name`]),
        args: a[`${at}.tool_calls.${k}.tool_call.function.arguments`],
      });
    out.push(m);
  }
  return out;
}

interface ToolDefinition {
  name: string;
  description?: string;
  parameters_schema?: Record<string, unknown>;
}

/** The tools an LLM span offered the model: semconv, the AI SDK's and OpenInference's lists. */
function offeredTools(s: Span): ToolDefinition[] {
  const a = s.attrs;
  const entries: unknown[] = [];
  const defs = jsonValue(a["gen_ai.tool.definitions"]);
  if (Array.isArray(defs)) entries.push(...defs);
  const aiTools = a["ai.prompt.tools"];
  if (Array.isArray(aiTools)) entries.push(...aiTools.map(jsonValue));
  for (let n = 0; a[`llm.tools.${n}.tool.json_schema`] !== undefined; n++)
    entries.push(jsonValue(a[`llm.tools.${n}.tool.json_schema`]));
  return entries.flatMap((e): ToolDefinition[] => {
    const t = (e ?? {}) as Record<string, unknown>;
    const fn = (t.function ?? t) as Record<string, unknown>;
    const name = str(fn.name);
    if (!name) return [];
    const schema = fn.parameters ?? fn.inputSchema ?? fn.input_schema;
    return [
      {
        name,
        ...(str(fn.description) ? { description: String(fn.description) } : {}),
        ...(schema && typeof schema === "object"
          ? { parameters_schema: schema as Record<string, unknown> }
          : {}),
      },
    ];
  });
}

function argumentsOf(args: unknown): { parameters: Record<string, unknown>; arguments_text?: string } {
  const v = jsonValue(args);
  if (v && typeof v === "object" && !Array.isArray(v)) return { parameters: v as Record<string, unknown> };
  if (v === undefined || v === "") return { parameters: {} };
  return { parameters: {}, arguments_text: typeof args === "string" ? args : JSON.stringify(args) };
}

function toolExecution(s: Span): { id?: string; name: string; args: unknown; result: unknown } {
  const a = s.attrs;
  return {
    id: str(a["gen_ai.tool.call.id"]) ?? str(a["ai.toolCall.id"]) ?? str(a["tool_call.id"]),
    name:
      str(a["gen_ai.tool.name"]) ??
      str(a["ai.toolCall.name"]) ??
      str(a["tool.name"]) ??
      s.name.replace(/^execute_tool /, ""),
    args:
      a["gen_ai.tool.call.arguments"] ?? a["ai.toolCall.args"] ?? a["input.value"] ?? a["tool.parameters"],
    result: jsonValue(a["gen_ai.tool.call.result"] ?? a["ai.toolCall.result"] ?? a["output.value"]),
  };
}

const isTrace = (v: unknown) =>
  typeof v === "object" && v !== null && "resourceSpans" in (v as Record<string, unknown>);

export const otlpImporter: SessionImporter = {
  name: "otlp",
  detect: (value) =>
    isTrace(value) ||
    (typeof value === "object" && value !== null && ("resourceMetrics" in value || "resourceLogs" in value)),
  import(value, { file }): Imported {
    if (typeof value === "object" && value !== null && !isTrace(value))
      throw new InputError(
        `an OTLP ${"resourceMetrics" in value ? "metrics" : "logs"} export, not a trace; expected {"resourceSpans": [...]}`,
        { file },
      );
    const parsed = validateInput(OtlpTrace, value);
    if (!parsed.success) {
      const issue = firstIssue(parsed.error);
      throw new InputError(`${issue.message}; expected an OTLP JSON trace`, {
        file,
        place: issuePath(issue.path),
      });
    }
    const spans = parsed.data.resourceSpans.flatMap((r) =>
      (r.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map(toSpan)),
    );
    if (spans.length === 0) throw new InputError("the trace has no spans", { file, place: "resourceSpans" });
    const notes: string[] = [];
    const byId = new Map(spans.map((s) => [`${s.traceId}/${s.id}`, s]));
    const parentOf = (s: Span) => (s.parent ? byId.get(`${s.traceId}/${s.parent}`) : undefined);
    const ancestor = (s: Span, kind: "agent" | "llm") => {
      for (let p = parentOf(s); p; p = parentOf(p)) if (kindOf(p) === kind) return p;
      return undefined;
    };
    const conversation = (s: Span): string | undefined => {
      for (let p: Span | undefined = s; p; p = parentOf(p)) {
        const c = conversationOf(p);
        if (c) return c;
      }
      return undefined;
    };
    // An interaction is an agent span that is not inside another span of the same agent (the AI SDK 7
    // `invoke_agent` and its steps, or ai.generateText around its doGenerate, are one interaction).
    const isAgentUnit = (s: Span) =>
      kindOf(s) === "agent" && !(ancestor(s, "agent") && agentName(ancestor(s, "agent")!) === agentName(s));
    // A trace without agent spans has each top-level model call as an interaction of the model's caller.
    const tracesWithAgents = new Set(spans.filter(isAgentUnit).map((s) => s.traceId));
    const units = spans.filter((s) =>
      tracesWithAgents.has(s.traceId) ? isAgentUnit(s) : kindOf(s) === "llm" && !ancestor(s, "llm"),
    );
    if (units.length === 0) {
      throw new InputError(
        "no agent, model or tool span in the trace (GenAI, AI SDK or OpenInference attributes)",
        {
          file,
          place: "resourceSpans",
        },
      );
    }
    const unitOf = (s: Span): Span | undefined => {
      for (let p: Span | undefined = s; p; p = parentOf(p)) if (units.includes(p)) return p;
      return undefined;
    };
    const sessions = new Map<string, Map<string, Span[]>>();
    const conversations = new Set<string>();
    for (const u of units.sort((a, b) => a.start - b.start)) {
      const sid = conversation(u) ?? u.traceId;
      if (conversation(u) !== undefined) conversations.add(sid);
      const turns = sessions.get(sid) ?? new Map<string, Span[]>();
      sessions.set(sid, turns);
      turns.set(u.traceId, [...(turns.get(u.traceId) ?? []), u]);
    }
    const within = new Map<Span, Span[]>();
    for (const s of spans) {
      if (units.includes(s)) continue;
      const u = unitOf(s);
      if (u) within.set(u, [...(within.get(u) ?? []), s]);
      else if (kindOf(s)) notes.push(`span ${s.id} (${s.name}) belongs to no agent; left out`);
    }
    const out: SessionInput[] = [];
    for (const [sid, turns] of sessions) {
      const agents = new Map<string, Map<string, ToolDefinition>>();
      const turnInputs: SessionInput["turns"] = [];
      for (const unitsOfTurn of turns.values()) {
        let userMessage: string | undefined;
        const interactions = unitsOfTurn.map((u) => {
          const name = agentName(u);
          const tools = agents.get(name) ?? new Map<string, ToolDefinition>();
          agents.set(name, tools);
          const inner = (within.get(u) ?? []).sort((a, b) => a.start - b.start);
          // The model calls inside the agent span; the agent span itself only when it has none (its output
          // repeats every step's calls and text).
          const inside = inner.filter((s) => kindOf(s) === "llm");
          const llms = inside.length ? inside : [u];
          const seen = new Set<string>();
          // Each tool span read once, for the matching below and the report.
          const executions = inner
            .filter((s) => kindOf(s) === "tool")
            .map((span) => ({ span, ...toolExecution(span) }));
          const steps: NonNullable<
            SessionInput["turns"][number]["agent_interactions"]
          >[number]["agent_steps"] = [];
          const executed = new Set<(typeof executions)[number]>();
          let output: string | undefined;
          for (const llm of llms) {
            for (const t of offeredTools(llm)) tools.set(t.name, t);
            const { input, output: said } = llmMessages(llm);
            userMessage ??= input.findLast((m) => m.role === "user")?.text || undefined;
            for (const m of said) {
              for (const r of m.reasoning) if (r) steps!.push({ thought: r });
              for (const call of m.calls) {
                // A step's calls come back in the next step's input and in retried spans: once each.
                const callKey = call.id ?? `${call.name}:${JSON.stringify(call.args)}`;
                if (seen.has(callKey)) continue;
                seen.add(callKey);
                const run = executions.find(
                  (e) =>
                    !executed.has(e) && ((call.id && e.id === call.id) || (!call.id && e.name === call.name)),
                );
                if (run) executed.add(run);
                const result = run?.result;
                steps!.push({
                  tool_call: {
                    tool_name: call.name,
                    ...(call.id ? { id: call.id } : {}),
                    // The model's own arguments: the SDK may have dropped keys from what it ran.
                    ...argumentsOf(call.args ?? run?.args),
                    ...(result !== undefined ? { result } : {}),
                    ...(run?.span.error ? { error: run.span.error } : {}),
                    ...(run ? { latency_ms: duration(run.span) } : {}),
                  },
                });
                if (!run)
                  notes.push(
                    `span ${llm.id}: the model called ${call.name} and it was not run (the SDK rejected it?)`,
                  );
              }
              if (m.text) output = m.text;
            }
          }
          for (const run of executions)
            if (!executed.has(run)) {
              steps!.push({
                tool_call: {
                  tool_name: run.name,
                  ...(run.id ? { id: run.id } : {}),
                  ...argumentsOf(run.args),
                  ...(run.result !== undefined ? { result: run.result } : {}),
                  ...(run.span.error ? { error: run.span.error } : {}),
                  latency_ms: duration(run.span),
                },
              });
            }
          output ??= str(u.attrs["ai.response.text"]) ?? str(u.attrs["output.value"]);
          return {
            agent_id: name,
            agent_steps: steps,
            // The span judged, for exporting its scores back onto it (`dramaturg export`).
            metadata: { trace_id: u.traceId, span_id: u.id },
            ...(output !== undefined ? { output } : {}),
            ...(u.end > u.start ? { latency_ms: duration(u) } : {}),
          };
        });
        if (userMessage === undefined)
          notes.push(`trace ${unitsOfTurn[0]!.traceId}: no user message recorded (inputs not captured?)`);
        turnInputs.push({
          user_message: userMessage ?? "",
          agent_interactions: interactions,
          metadata: { trace_id: unitsOfTurn[0]!.traceId },
        });
      }
      out.push({
        id: sid,
        metadata: { source: "otlp", ...(conversations.has(sid) ? { session_id: sid } : {}) },
        agents: [...agents].map(([id, tools]) => ({
          id,
          ...(tools.size ? { tools_available: [...tools.values()] } : {}),
        })),
        turns: turnInputs,
      });
      for (const [id, tools] of agents)
        if (tools.size === 0)
          notes.push(`session ${sid}: no tool definitions recorded for ${id}; its calls are not checked`);
    }
    return { sessions: out, notes: [...new Set(notes)] };
  },
};
