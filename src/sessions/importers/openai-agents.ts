// The OpenAI Agents SDK's trace export (`{data: [trace, trace.span…]}`, or the spans alone) as sessions,
// one per trace: agent spans are the interactions (the agent's name its id, its tools by name: calls are
// checked against the list, not against schemas the export does not carry), function spans its tool
// calls, handoff spans its handoffs, generation spans its words (and the system message of its first, its
// instructions: the agent's description). What the export leaves out stays out.
import { z } from "zod";
import { firstIssue, InputError, issuePath, validateInput } from "../../core/index.ts";
import type { SessionInput } from "../session-format.ts";
import type { Imported, SessionImporter } from "./importer.ts";

const SpanSchema = z
  .object({
    object: z.literal("trace.span"),
    id: z.string(),
    trace_id: z.string(),
    parent_id: z.string().nullable().optional(),
    started_at: z.string().nullable().optional(),
    ended_at: z.string().nullable().optional(),
    span_data: z.object({ type: z.string() }).loose(),
    error: z.object({ message: z.string(), data: z.unknown().optional() }).loose().nullable().optional(),
  })
  .loose();

const ExportSchema = z.object({ data: z.array(z.object({ object: z.string() }).loose()) }).loose();

type Span = z.infer<typeof SpanSchema>;

const isSpanList = (v: unknown) =>
  Array.isArray(v) && v.length > 0 && v.some((x) => (x as { object?: unknown })?.object === "trace.span");

function ms(span: Span): number | undefined {
  if (!span.started_at || !span.ended_at) return undefined;
  const d = Date.parse(span.ended_at) - Date.parse(span.started_at);
  return Number.isFinite(d) && d >= 0 ? d : undefined;
}

/** The text of a message list's last message of `role`: a string content or its text parts. */
function lastText(messages: unknown, role: string): string | undefined {
  if (typeof messages === "string") return role === "user" ? messages : undefined;
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown };
    if (m?.role !== role) continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content))
      return m.content
        .map((p) => (typeof p === "string" ? p : ((p as { text?: string }).text ?? "")))
        .join("");
  }
  return undefined;
}

function parseArguments(input: unknown): { parameters: Record<string, unknown>; arguments_text?: string } {
  if (typeof input === "object" && input !== null && !Array.isArray(input))
    return { parameters: input as Record<string, unknown> };
  if (typeof input !== "string" || input.trim() === "") return { parameters: {} };
  try {
    const v = JSON.parse(input);
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return { parameters: v };
  } catch {}
  return { parameters: {}, arguments_text: input };
}

/** When a span started, in ms (0 when the export does not say). */
const time = (s: Span) => (s.started_at ? Date.parse(s.started_at) : 0);

type Turn = SessionInput["turns"][number];
type Interaction = NonNullable<Turn["agent_interactions"]>[number];

/** One trace as a turn: its agent spans as interactions, and each agent's tools by name. */
function traceTurn(
  traceId: string,
  traceSpans: Span[],
  notes: string[],
): { turn: Turn; agents: Map<string, Set<string>>; instructions: Map<string, string> } | undefined {
  const byId = new Map(traceSpans.map((s) => [s.id, s]));
  /** The agent span a span belongs to: its nearest agent ancestor. */
  const agentOf = (s: Span): Span | undefined => {
    for (
      let p = s.parent_id ? byId.get(s.parent_id) : undefined;
      p;
      p = p.parent_id ? byId.get(p.parent_id) : undefined
    )
      if (p.span_data.type === "agent") return p;
    return undefined;
  };
  const ordered = [...traceSpans].sort((a, b) => time(a) - time(b));
  const agentSpans = ordered.filter((s) => s.span_data.type === "agent");
  if (agentSpans.length === 0) {
    notes.push(`trace ${traceId}: no agent span; left out`);
    return undefined;
  }
  const agents = new Map<string, Set<string>>();
  // An agent's instructions: the system message of its first model call (the SDK sends them as one).
  const instructions = new Map<string, string>();
  const interactions = new Map<string, Interaction>();
  let userMessage: string | undefined;
  for (const a of agentSpans) {
    const name = String(a.span_data.name ?? "agent");
    const tools = agents.get(name) ?? new Set<string>();
    for (const t of (a.span_data.tools as string[] | undefined) ?? []) tools.add(String(t));
    agents.set(name, tools);
    const latency = ms(a);
    interactions.set(a.id, {
      agent_id: name,
      agent_steps: [],
      ...(latency !== undefined ? { latency_ms: latency } : {}),
    });
  }
  const unmapped = new Map<string, number>();
  for (const s of ordered) {
    const owner = s.span_data.type === "agent" ? undefined : agentOf(s);
    const x = owner ? interactions.get(owner.id) : undefined;
    const d = s.span_data as Record<string, unknown>;
    if (s.span_data.type === "function") {
      if (!x) {
        notes.push(`trace ${traceId}: function span ${s.id} under no agent; left out`);
        continue;
      }
      const latency = ms(s);
      // The SDK puts the tool's own error in data.error; the message says only that a tool failed.
      const detail = (s.error?.data as { error?: unknown } | undefined)?.error;
      x.agent_steps!.push({
        tool_call: {
          tool_name: String(d.name ?? "?"),
          ...parseArguments(d.input),
          ...(d.output !== undefined && d.output !== null ? { result: d.output } : {}),
          ...(s.error ? { error: typeof detail === "string" ? detail : s.error.message } : {}),
          ...(latency !== undefined ? { latency_ms: latency } : {}),
        },
      });
    } else if (s.span_data.type === "handoff") {
      const from = String(d.from_agent ?? "");
      const to = d.to_agent ? String(d.to_agent) : undefined;
      const source = x ?? [...interactions.values()].findLast((i) => i.agent_id === from);
      if (!source || !to) {
        notes.push(`trace ${traceId}: handoff span ${s.id} without its agents; left out`);
        continue;
      }
      source.agent_steps!.push({ handoff: { to } });
      if (!agents.has(to)) agents.set(to, new Set());
    } else if (s.span_data.type === "generation") {
      userMessage ??= lastText(d.input, "user");
      const told = lastText(d.input, "system")?.trim();
      if (x && told && !instructions.has(x.agent_id)) instructions.set(x.agent_id, told);
      const said = lastText(d.output, "assistant");
      if (x && said) x.output = said;
    } else if (s.span_data.type !== "agent" && s.span_data.type !== "response")
      unmapped.set(s.span_data.type, (unmapped.get(s.span_data.type) ?? 0) + 1);
  }
  for (const [type, n] of unmapped)
    notes.push(`trace ${traceId}: ${n} ${type} span${n === 1 ? "" : "s"} not mapped`);
  if (userMessage === undefined)
    notes.push(
      `trace ${traceId}: no generation span gives the user's message or the agents' words (not recorded in the trace)`,
    );
  return {
    turn: { user_message: userMessage ?? "", agent_interactions: [...interactions.values()] },
    agents,
    instructions,
  };
}

export const openaiAgentsImporter: SessionImporter = {
  name: "openai-agents",
  detect: (value) =>
    isSpanList(value) ||
    (typeof value === "object" && value !== null && isSpanList((value as { data?: unknown }).data)),
  import(value, { file, tools: given }): Imported {
    const items = Array.isArray(value)
      ? value
      : (() => {
          const parsed = validateInput(ExportSchema, value);
          if (!parsed.success) {
            const issue = firstIssue(parsed.error);
            throw new InputError(issue.message, { file, place: issuePath(issue.path) });
          }
          return parsed.data.data;
        })();
    const prefix = Array.isArray(value) ? [] : ["data"];
    const spans: Span[] = [];
    items.forEach((item, i) => {
      if ((item as { object?: unknown }).object !== "trace.span") return;
      const parsed = validateInput(SpanSchema, item);
      if (!parsed.success) {
        const issue = firstIssue(parsed.error);
        throw new InputError(issue.message, { file, place: issuePath([...prefix, i, ...issue.path]) });
      }
      spans.push(parsed.data);
    });
    const notes: string[] = [];
    // Traces of one conversation share a group id (`withTrace(…, {groupId})`): they are its turns.
    const groupOf = new Map<string, string>();
    for (const item of items) {
      const t = item as { object?: unknown; id?: unknown; group_id?: unknown };
      if (t.object === "trace" && typeof t.id === "string" && typeof t.group_id === "string" && t.group_id)
        groupOf.set(t.id, t.group_id);
    }
    const byTrace = new Map<string, Span[]>();
    for (const s of spans) byTrace.set(s.trace_id, [...(byTrace.get(s.trace_id) ?? []), s]);
    const conversations = new Map<
      string,
      {
        agents: Map<string, Set<string>>;
        instructions: Map<string, string>;
        turns: { at: number; turn: Turn }[];
      }
    >();
    for (const [traceId, traceSpans] of byTrace) {
      const read = traceTurn(traceId, traceSpans, notes);
      if (!read) continue;
      const key = groupOf.get(traceId) ?? traceId;
      const c = conversations.get(key) ?? {
        agents: new Map<string, Set<string>>(),
        instructions: new Map<string, string>(),
        turns: [],
      };
      conversations.set(key, c);
      for (const [id, tools] of read.agents) {
        const known = c.agents.get(id) ?? new Set<string>();
        for (const t of tools) known.add(t);
        c.agents.set(id, known);
      }
      for (const [id, told] of read.instructions) if (!c.instructions.has(id)) c.instructions.set(id, told);
      c.turns.push({ at: Math.min(...traceSpans.map(time)), turn: read.turn });
    }
    // The export names each agent's tools but carries no schemas: `--tools FILE` gives them.
    const schemas = new Map((given ?? []).map((t) => [t.function.name, t.function]));
    if (!given)
      notes.push(
        "the trace names each agent's tools but not their schemas: arguments are not checked (give them with --tools FILE)",
      );
    const sessions: SessionInput[] = [...conversations].map(([id, c]) => ({
      id,
      agents: [...c.agents].map(([agent, tools]) => ({
        id: agent,
        ...(c.instructions.has(agent) ? { description: c.instructions.get(agent) } : {}),
        tools_available: [...tools].map((name) => {
          const known = schemas.get(name);
          return {
            name,
            ...(known?.description ? { description: known.description } : {}),
            ...(known?.parameters ? { parameters_schema: known.parameters } : {}),
          };
        }),
      })),
      turns: c.turns.sort((a, b) => a.at - b.at).map((t) => t.turn),
    }));
    return { sessions, notes };
  },
};
