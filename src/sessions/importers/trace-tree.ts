// What Langfuse's traces and LangSmith's run trees share, read once: a trace is a tree of nodes (agents, model
// calls, tool runs), one trace is one turn, traces of one conversation (a session, a thread) one session. The
// importers map their own fields to these nodes; this file makes the turns: each agent node an interaction
// (the trace's root when there is none), its model calls' tool calls its steps, matched to the tool nodes that
// ran them (by call id, else by name in order), their words its output, the system message they were first
// given its description. What the trace does not record (a tool's schema, the user's words) stays out and is said.
import type { SessionInput } from "../session-format.ts";

export interface TraceNode {
  id: string;
  parent?: string;
  kind: "agent" | "llm" | "tool" | "other";
  name: string;
  /** Unix ms (0 when the export does not say). */
  start: number;
  end?: number;
  input?: unknown;
  output?: unknown;
  error?: string;
  cost?: number;
  /** A tool node: the id of the call it ran, when the trace records it. */
  callId?: string;
}

export interface TraceRecord {
  id: string;
  /** The conversation it is a turn of (a Langfuse session, a LangSmith thread); else the trace is its own. */
  conversation?: string;
  start: number;
  /** The agent of a trace without agent nodes. */
  name?: string;
  input?: unknown;
  output?: unknown;
  nodes: TraceNode[];
}

export interface TraceSystem {
  /** The prefix of the kept ids: `langfuse` gives langfuse_trace_id, langfuse_observation_id… */
  prefix: string;
  /** What the system calls a node (observation, run) and a conversation (session, thread). */
  node: string;
  conversation: string;
}

type Turn = SessionInput["turns"][number];
type Interaction = NonNullable<Turn["agent_interactions"]>[number];
type Step = NonNullable<Interaction["agent_steps"]>[number];
interface ToolDefinition {
  name: string;
  description?: string;
  parameters_schema?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

/** A JSON text parsed, or an already parsed value (or a text that is not JSON) as it is. */
export function jsonValue(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

interface Message {
  role?: string;
  text: string;
  calls: { id?: string; name: string; args: unknown }[];
  callId?: string;
}

const ROLES: Record<string, string> = { human: "user", ai: "assistant", AIMessageChunk: "assistant" };

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((p) => (typeof p === "string" ? p : isObject(p) && p.type === "text" ? String(p.text ?? "") : ""))
      .join("");
  return "";
}

/** One message in OpenAI's shape, LangChain's (`type`, `kwargs`, `tool_calls: [{name, args}]`) or a string. */
function message(raw: unknown, stringRole = "user"): Message | undefined {
  if (typeof raw === "string") return { role: stringRole, text: raw, calls: [] };
  if (!isObject(raw)) return undefined;
  const m = isObject(raw.kwargs) && raw.lc !== undefined ? { ...raw.kwargs, type: raw.id } : raw;
  const type = Array.isArray(m.type)
    ? String(m.type.at(-1))
        .replace(/Message(Chunk)?$/, "")
        .toLowerCase()
    : m.type;
  const role = str(m.role) ?? ROLES[String(type)] ?? str(type);
  const calls: Message["calls"] = [];
  const listed = [
    ...(Array.isArray(m.tool_calls) ? m.tool_calls : []),
    ...(!Array.isArray(m.tool_calls) &&
    isObject(m.additional_kwargs) &&
    Array.isArray(m.additional_kwargs.tool_calls)
      ? m.additional_kwargs.tool_calls
      : []),
  ];
  for (const c of listed) {
    if (!isObject(c)) continue;
    const fn = isObject(c.function) ? c.function : c;
    calls.push({ id: str(c.id), name: String(fn.name ?? "?"), args: fn.arguments ?? c.args ?? c.input });
  }
  return {
    ...(role ? { role } : {}),
    text: contentText(m.content ?? m.text),
    calls,
    ...(str(m.tool_call_id) ? { callId: str(m.tool_call_id) } : {}),
  };
}

/** The messages a model call was given or gave, in whichever wrapping the system records them. */
function messagesOf(value: unknown, stringRole = "user"): Message[] {
  const v = jsonValue(value);
  if (typeof v === "string") return [{ role: stringRole, text: v, calls: [] }];
  if (Array.isArray(v)) return v.flat(2).flatMap((m) => message(m, stringRole) ?? []);
  if (!isObject(v)) return [];
  if (Array.isArray(v.messages)) return messagesOf(v.messages, stringRole);
  if (Array.isArray(v.choices))
    return v.choices.flatMap((c) => (isObject(c) ? (message(c.message) ?? []) : []));
  if (Array.isArray(v.generations))
    return v.generations
      .flat(2)
      .flatMap((g) => (isObject(g) ? (message(g.message ?? g.text, "assistant") ?? []) : []));
  if (v.role !== undefined || v.content !== undefined || v.tool_calls !== undefined || v.lc !== undefined)
    return [message(v)!].filter(Boolean);
  for (const key of ["input", "question", "query", "prompt", "output", "answer"])
    if (typeof v[key] === "string")
      return [
        {
          role: key === "output" || key === "answer" ? "assistant" : "user",
          text: v[key] as string,
          calls: [],
        },
      ];
  return [];
}

/** The names of the tools a model call's output calls. */
export function calledTools(output: unknown): string[] {
  return messagesOf(output, "assistant").flatMap((m) => m.calls.map((c) => c.name));
}

/** The tools a model call was offered: OpenAI's list in its input or its parameters. */
function offeredTools(...sources: unknown[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  for (const source of sources) {
    const v = jsonValue(source);
    const list = isObject(v) ? (v.tools ?? v.functions) : undefined;
    if (!Array.isArray(list)) continue;
    for (const t of list) {
      if (!isObject(t)) continue;
      const fn = isObject(t.function) ? t.function : t;
      const name = str(fn.name);
      if (!name) continue;
      const schema = fn.parameters ?? fn.input_schema ?? fn.inputSchema;
      out.push({
        name,
        ...(str(fn.description) ? { description: String(fn.description) } : {}),
        ...(isObject(schema) ? { parameters_schema: schema } : {}),
      });
    }
  }
  return out;
}

function argumentsOf(args: unknown): { parameters: Record<string, unknown>; arguments_text?: string } {
  const v = jsonValue(args);
  if (isObject(v)) return { parameters: v };
  if (v === undefined || v === null || v === "") return { parameters: {} };
  return { parameters: {}, arguments_text: typeof args === "string" ? args : JSON.stringify(args) };
}

/** A tool node's result: LangChain wraps it as `{output}`. */
function resultOf(output: unknown): unknown {
  const v = jsonValue(output);
  return isObject(v) && Object.keys(v).length === 1 && "output" in v ? jsonValue(v.output) : v;
}

const ms = (n: { start: number; end?: number }) =>
  n.end !== undefined && n.end >= n.start && n.start > 0
    ? Math.round((n.end - n.start) * 10) / 10
    : undefined;

/** A conversation's traces, and what its agents were seen with: tools offered, their first system message. */
interface Conversation {
  traces: TraceRecord[];
  agents: Map<string, Map<string, ToolDefinition>>;
  instructions: Map<string, string>;
}

/** The turns of traces, grouped into sessions by conversation (ordered by their first trace). */
export function traceSessions(
  traces: readonly TraceRecord[],
  system: TraceSystem,
): { sessions: SessionInput[]; notes: string[] } {
  const notes: string[] = [];
  const conversations = new Map<string, Conversation>();
  for (const t of traces) {
    const key = t.conversation ?? `trace:${t.id}`;
    const c: Conversation = conversations.get(key) ?? {
      traces: [],
      agents: new Map(),
      instructions: new Map(),
    };
    c.traces.push(t);
    conversations.set(key, c);
  }
  const sessions: SessionInput[] = [];
  for (const [key, c] of conversations) {
    c.traces.sort((a, b) => a.start - b.start);
    const turns = c.traces.map((t) => traceTurn(t, c, system, notes));
    const conversation = c.traces[0]!.conversation;
    sessions.push({
      id: conversation ?? c.traces[0]!.id,
      agents: [...c.agents].map(([id, tools]) => ({
        id,
        ...(c.instructions.has(id) ? { description: c.instructions.get(id) } : {}),
        ...(tools.size ? { tools_available: [...tools.values()] } : {}),
      })),
      turns,
      source_ids: conversation
        ? { [`${system.prefix}_${system.conversation}_id`]: conversation }
        : { [`${system.prefix}_trace_id`]: c.traces[0]!.id },
    });
    const calling = new Set(
      turns.flatMap((t) =>
        (t.agent_interactions ?? [])
          .filter((x) => x.agent_steps?.some((s) => s.tool_call))
          .map((x) => x.agent_id),
      ),
    );
    const where = key.startsWith("trace:") ? `trace ${key.slice(6)}` : `${system.conversation} ${key}`;
    for (const [id, tools] of c.agents)
      if (tools.size === 0 && calling.has(id))
        notes.push(`${where}: no tool definitions recorded for ${id}; its calls are not checked`);
  }
  return { sessions, notes: [...new Set(notes)] };
}

function traceTurn(
  t: TraceRecord,
  { agents, instructions }: Pick<Conversation, "agents" | "instructions">,
  system: TraceSystem,
  notes: string[],
): Turn {
  const byId = new Map(t.nodes.map((n) => [n.id, n]));
  const agentOf = (n: TraceNode): TraceNode | undefined => {
    for (let p = n.parent ? byId.get(n.parent) : undefined; p; p = p.parent ? byId.get(p.parent) : undefined)
      if (p.kind === "agent") return p;
    return undefined;
  };
  const ordered = [...t.nodes].sort((a, b) => a.start - b.start);
  // An agent inside another of the same name (a framework's wrapper and its run) is one interaction.
  const units = ordered.filter((n) => n.kind === "agent" && agentOf(n)?.name !== n.name);
  const unitOf = (n: TraceNode): TraceNode | undefined => {
    for (let a = agentOf(n); a; a = agentOf(a)) if (units.includes(a)) return a;
    return undefined;
  };
  const root: TraceNode = { id: t.id, kind: "agent", name: t.name ?? "assistant", start: t.start };
  const groups = new Map<TraceNode, TraceNode[]>();
  for (const u of units.length ? units : [root]) groups.set(u, []);
  for (const n of ordered) {
    if (n.kind === "agent") continue;
    const u = unitOf(n) ?? (units.length ? undefined : root);
    if (u) groups.get(u)!.push(n);
    else if (n.kind !== "other")
      notes.push(`trace ${t.id}: ${system.node} ${n.id} is under no agent; left out`);
  }
  let userMessage = messagesOf(t.input).findLast((m) => m.role === "user")?.text;
  const interactions: Interaction[] = [];
  for (const [unit, nodes] of groups) {
    const tools = agents.get(unit.name) ?? new Map<string, ToolDefinition>();
    agents.set(unit.name, tools);
    const executions = nodes.filter((n) => n.kind === "tool");
    const executed = new Set<TraceNode>();
    const steps: Step[] = [];
    const byCallId = new Map<string, NonNullable<Step["tool_call"]>>();
    const seen = new Set<string>();
    let output: string | undefined;
    let cost = 0;
    for (const llm of nodes.filter((n) => n.kind === "llm")) {
      if (llm.cost !== undefined) cost += llm.cost;
      for (const tool of offeredTools(llm.input)) tools.set(tool.name, tool);
      const given = messagesOf(llm.input);
      const told = given
        .filter((m) => m.role === "system" || m.role === "developer")
        .map((m) => m.text.trim())
        .filter(Boolean)
        .join("\n\n");
      if (told && !instructions.has(unit.name)) instructions.set(unit.name, told);
      userMessage ??= given.findLast((m) => m.role === "user")?.text;
      // A later call's input carries the results of the calls before it.
      for (const m of given)
        if (m.role === "tool" && m.callId) {
          const call = byCallId.get(m.callId);
          if (call && call.result === undefined) call.result = jsonValue(m.text);
        }
      for (const m of messagesOf(llm.output, "assistant")) {
        for (const call of m.calls) {
          const key = call.id ?? `${llm.id}:${call.name}:${JSON.stringify(call.args)}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const run = executions.find(
            (e) => !executed.has(e) && (call.id && e.callId ? e.callId === call.id : e.name === call.name),
          );
          if (run) executed.add(run);
          const result = run ? (resultOf(run.output) ?? undefined) : undefined;
          const latency = run ? ms(run) : undefined;
          const step = {
            tool_call: {
              tool_name: call.name,
              ...(call.id ? { id: call.id } : {}),
              ...argumentsOf(call.args ?? run?.input),
              ...(result !== undefined ? { result } : {}),
              ...(run?.error ? { error: run.error } : {}),
              ...(latency !== undefined ? { latency_ms: latency } : {}),
            },
          };
          steps.push(step);
          if (call.id) byCallId.set(call.id, step.tool_call);
        }
        if (m.text) output = m.text;
      }
    }
    for (const run of executions)
      if (!executed.has(run)) {
        const result = resultOf(run.output) ?? undefined;
        const latency = ms(run);
        steps.push({
          tool_call: {
            tool_name: run.name,
            ...(run.callId ? { id: run.callId } : {}),
            ...argumentsOf(run.input),
            ...(result !== undefined ? { result } : {}),
            ...(run.error ? { error: run.error } : {}),
            ...(latency !== undefined ? { latency_ms: latency } : {}),
          },
        });
      }
    if (unit !== root)
      output ??= messagesOf(unit.output, "assistant").findLast((m) => m.role !== "user")?.text;
    const latency = ms(unit);
    interactions.push({
      agent_id: unit.name,
      agent_steps: steps,
      ...(output !== undefined ? { output } : {}),
      ...(latency !== undefined ? { latency_ms: latency } : {}),
      ...(cost > 0 ? { cost } : {}),
      source_ids: { [`${system.prefix}_${unit === root ? "trace" : system.node}_id`]: unit.id },
    });
  }
  const last = interactions.at(-1);
  if (last && last.output === undefined) {
    const said = messagesOf(t.output, "assistant").findLast((m) => m.role !== "user")?.text;
    if (said) last.output = said;
  }
  if (userMessage === undefined) notes.push(`trace ${t.id}: no user message recorded (inputs not captured?)`);
  return {
    user_message: userMessage ?? "",
    agent_interactions: interactions,
    source_ids: { [`${system.prefix}_trace_id`]: t.id },
  };
}
