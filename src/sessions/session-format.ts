// The session format `dramaturg.session/v1`: a multi-agent session's agents (with the tools each may call)
// and its turns (each agent's interactions and steps). ReAsk's own field names are read as they are and
// normalised here, once, at the edge; everything past this file sees one shape.
import { z } from "zod";
import { firstIssue, InputError, issuePath, sourceTraceOf, validateInput } from "../core/index.ts";

export const SESSION_FORMAT = "dramaturg.session/v1";

const Metadata = z.record(z.string(), z.unknown()).optional().describe("Anything else, kept as it is");

/** Where a session, turn or interaction came from in the system it was imported from, by that system's ids. */
const SourceIds = z
  .record(z.string(), z.string())
  .optional()
  .describe(
    "Its ids in the system it was imported from (langfuse_trace_id, langfuse_observation_id, langfuse_session_id, langsmith_run_id, inspect_sample_id…), kept so scores can be sent back to them",
  );

/** A tool's parameters: a JSON Schema, or ReAsk's flat map of parameter name → type name (`{path: "string"}`). */
const ParametersSchema = z
  .record(z.string(), z.unknown())
  .describe(
    'JSON Schema of the parameters object; a flat map {"name": "type"} (ReAsk\'s form) is read as an object whose listed parameters are all required',
  );

export const SessionToolSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters_schema: ParametersSchema.optional(),
    /** OpenAI's and the AI SDK's names for the same schema. */
    parameters: ParametersSchema.optional(),
    inputSchema: ParametersSchema.optional(),
  })
  .strict();

export const SessionAgentSchema = z
  .object({
    id: z.string().min(1),
    name: z.string().optional(),
    role: z.string().optional(),
    description: z.string().optional(),
    capabilities: z.array(z.string()).optional(),
    tools_available: z
      .array(SessionToolSchema)
      .optional()
      .describe("The tools this agent may call; absent = unknown (its calls are not checked against a list)"),
    config: Metadata,
    metadata: Metadata,
  })
  .strict();

export const ToolCallSchema = z
  .object({
    tool_name: z.string().min(1),
    id: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional().default({}),
    arguments_text: z
      .string()
      .optional()
      .describe("The call's arguments as the model wrote them, when they were not a JSON object"),
    result: z.unknown().optional(),
    error: z.union([z.string(), z.null()]).optional().describe("The tool failed: its error message"),
    latency_ms: z.number().nonnegative().optional(),
  })
  .strict();

export const HandoffSchema = z
  .object({
    to: z.string().min(1).describe("The agent id that takes over"),
    context: z.string().optional().describe("What was passed to it"),
  })
  .strict();

export const AgentStepSchema = z
  .object({
    thought: z.string().optional(),
    tool_call: ToolCallSchema.optional(),
    handoff: HandoffSchema.optional(),
    /** ReAsk's ReAct-style step. */
    action: z.unknown().optional(),
    observation: z.unknown().optional(),
    latency_ms: z.number().nonnegative().optional(),
  })
  .strict();

export const AgentInteractionSchema = z
  .object({
    agent_id: z.string().min(1),
    output: z.string().optional(),
    /** ReAsk's name for `output`. */
    agent_response: z.string().optional(),
    tool_execution_result: z.unknown().optional(),
    latency_ms: z.number().nonnegative().optional(),
    cost: z.number().nonnegative().optional(),
    agent_steps: z.array(AgentStepSchema).optional().default([]),
    source_ids: SourceIds,
    metadata: Metadata,
  })
  .strict();

export const TurnSchema = z
  .object({
    turn_index: z.number().int().nonnegative().optional(),
    user_message: z.string(),
    knowledge: z.string().optional().describe("Ground truth for the turn's facts, when known"),
    agent_interactions: z.array(AgentInteractionSchema).default([]),
    final_response: z.string().optional(),
    source_ids: SourceIds,
    metadata: Metadata,
  })
  .strict();

export const SessionSchema = z
  .object({
    format: z.literal(SESSION_FORMAT).optional(),
    id: z.string().min(1).optional(),
    task_id: z
      .string()
      .min(1)
      .optional()
      .describe("Sessions sharing a task_id are runs of one task (pass^k)"),
    initial_task: z.string().optional(),
    success: z.boolean().optional(),
    total_cost: z.number().nonnegative().optional(),
    total_latency_ms: z.number().nonnegative().optional(),
    agents: z.array(SessionAgentSchema).min(1),
    turns: z.array(TurnSchema),
    source_ids: SourceIds,
    metadata: Metadata,
  })
  .strict();

export type SessionInput = z.input<typeof SessionSchema>;

/** A tool as the analysis sees it: its parameters as a JSON Schema, and how the file gave them. */
export interface SessionTool {
  name: string;
  description?: string;
  /** The parameters' JSON Schema (a flat map converted), or undefined when none was given. */
  schema?: Record<string, unknown>;
  declared: "json-schema" | "flat-map" | "none";
}

export interface SessionAgent {
  id: string;
  name?: string;
  role?: string;
  description?: string;
  /** undefined when the session does not say which tools the agent has. */
  tools?: SessionTool[];
}

export interface ToolCall {
  tool_name: string;
  id?: string;
  parameters: Record<string, unknown>;
  /** The arguments as written, when they were not a JSON object (the call is then invalid). */
  arguments_text?: string;
  result?: unknown;
  error?: string;
  latency_ms?: number;
}

export interface AgentStep {
  thought?: string;
  tool_call?: ToolCall;
  handoff?: { to: string; context?: string };
  action?: unknown;
  observation?: unknown;
  latency_ms?: number;
}

/**
 * Where a session, turn or interaction came from in a tracing tool, kept from its `metadata` (`source`,
 * `session_id`, `trace_id`, `span_id`, as the OTLP importer writes them) so scores can be exported back onto it.
 */
export interface TraceRef {
  source?: string;
  session_id?: string;
  trace_id?: string;
  span_id?: string;
}

/**
 * The trace ids of a metadata object (an OTLP import's) or of an importer's `source_ids` (Langfuse's,
 * LangSmith's), or undefined when there are none: what an export attaches scores to.
 */
function traceRefOf(
  metadata: Record<string, unknown> | undefined,
  sourceIds?: Record<string, string>,
): TraceRef | undefined {
  const ref: TraceRef = {};
  for (const key of ["source", "session_id", "trace_id", "span_id"] as const)
    if (typeof metadata?.[key] === "string" && metadata[key] !== "") ref[key] = metadata[key];
  // The metadata's ids first; the source ids fill what it leaves out.
  const named = { ...sourceTraceOf(sourceIds), ...ref };
  return Object.keys(named).length ? named : undefined;
}

export interface AgentInteraction {
  agent_id: string;
  trace?: TraceRef;
  output?: string;
  tool_execution_result?: unknown;
  latency_ms?: number;
  cost?: number;
  agent_steps: AgentStep[];
  /** Its ids in the system it was imported from (Langfuse's observation, LangSmith's run). */
  source_ids?: Record<string, string>;
}

export interface Turn {
  turn_index: number;
  trace?: TraceRef;
  user_message: string;
  knowledge?: string;
  agent_interactions: AgentInteraction[];
  final_response?: string;
  /** Its ids in the system it was imported from (Langfuse's trace, LangSmith's root run). */
  source_ids?: Record<string, string>;
}

export interface Session {
  format: typeof SESSION_FORMAT;
  id?: string;
  task_id?: string;
  initial_task?: string;
  success?: boolean;
  total_cost?: number;
  total_latency_ms?: number;
  agents: SessionAgent[];
  turns: Turn[];
  /** Its ids in the system it was imported from (Langfuse's session or trace, an Inspect sample and epoch). */
  source_ids?: Record<string, string>;
  trace?: TraceRef;
}

const JSON_SCHEMA_KEYS = [
  "$schema",
  "$ref",
  "$defs",
  "properties",
  "required",
  "additionalProperties",
  "anyOf",
  "oneOf",
  "allOf",
  "patternProperties",
];

/** The JSON Schema type of a flat map's type name (Python's and TypeScript's names too). */
const FLAT_TYPES: Record<string, string> = {
  string: "string",
  str: "string",
  number: "number",
  float: "number",
  int: "integer",
  integer: "integer",
  bool: "boolean",
  boolean: "boolean",
  array: "array",
  list: "array",
  object: "object",
  dict: "object",
};

/**
 * A tool's parameters as JSON Schema. A flat map (every value a type name, no schema keyword) becomes an
 * object schema whose listed parameters are all required, as ReAsk compares them; a type name we do not
 * know (`"date"`) accepts any value.
 */
export function toolParametersSchema(
  given: Record<string, unknown> | undefined,
): Pick<SessionTool, "schema" | "declared"> {
  if (given === undefined) return { declared: "none" };
  // A `type` key is a parameter of a flat map only when its value names a parameter type ("string"…).
  const typeKey = given.type;
  const isSchema =
    JSON_SCHEMA_KEYS.some((k) => k in given) ||
    (typeKey !== undefined && (typeKey === "object" || !FLAT_TYPES[String(typeKey).toLowerCase()])) ||
    Object.values(given).some((v) => typeof v !== "string");
  if (isSchema) return { schema: given, declared: "json-schema" };
  const properties: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(given)) {
    const known = FLAT_TYPES[String(type).toLowerCase()];
    properties[name] = known ? { type: known } : {};
  }
  return {
    schema: { type: "object", properties, required: Object.keys(given) },
    declared: "flat-map",
  };
}

/**
 * Validates a `dramaturg.session/v1` value (or ReAsk's session) and normalises it: ReAsk's field names to
 * ours, flat parameter maps to JSON Schema, turn indexes filled in. Every agent an interaction or a handoff
 * names must be defined. Throws an {@link InputError} naming `name` and the JSON path.
 */
export function parseSession(value: unknown, name = "<session>"): Session {
  const parsed = validateInput(SessionSchema, value);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new InputError(issue.message, { file: name, place: issuePath(issue.path) });
  }
  const input = parsed.data;
  const fail = (message: string, path: (string | number)[]): never => {
    throw new InputError(message, { file: name, place: issuePath(path) });
  };
  const ids = new Set<string>();
  const agents = input.agents.map((a, i): SessionAgent => {
    if (ids.has(a.id)) fail(`duplicate agent id "${a.id}"`, ["agents", i, "id"]);
    ids.add(a.id);
    const tools = a.tools_available?.map((t, j): SessionTool => {
      const given = [t.parameters_schema, t.parameters, t.inputSchema].filter((s) => s !== undefined);
      if (given.length > 1)
        fail("give the parameters' schema once (parameters_schema, parameters or inputSchema)", [
          "agents",
          i,
          "tools_available",
          j,
        ]);
      return { name: t.name, description: t.description, ...toolParametersSchema(given[0]) };
    });
    return { id: a.id, name: a.name, role: a.role, description: a.description, tools };
  });
  const known = [...ids].map((id) => `"${id}"`).join(", ");
  const turnIndexes = new Set<number>();
  input.turns.forEach((t, i) => {
    const index = t.turn_index ?? i;
    if (turnIndexes.has(index)) fail(`turn_index ${index} is used twice`, ["turns", i, "turn_index"]);
    turnIndexes.add(index);
  });
  const turns = input.turns.map((t, i): Turn => {
    const interactions = t.agent_interactions.map((x, j): AgentInteraction => {
      const at = ["turns", i, "agent_interactions", j];
      if (!ids.has(x.agent_id))
        fail(`unknown agent "${x.agent_id}"; the session defines ${known}`, [...at, "agent_id"]);
      if (x.output !== undefined && x.agent_response !== undefined && x.output !== x.agent_response)
        fail("output and agent_response differ; give one", at);
      const steps = x.agent_steps.map((s, k): AgentStep => {
        if (s.handoff && !ids.has(s.handoff.to))
          fail(`handoff to unknown agent "${s.handoff.to}"; the session defines ${known}`, [
            ...at,
            "agent_steps",
            k,
            "handoff",
            "to",
          ]);
        const step: AgentStep = {};
        if (s.thought !== undefined) step.thought = s.thought;
        if (s.tool_call) {
          const { error, ...call } = s.tool_call;
          step.tool_call = { ...call, ...(error ? { error } : {}) };
        }
        if (s.handoff) step.handoff = s.handoff;
        if (s.action !== undefined) step.action = s.action;
        if (s.observation !== undefined) step.observation = s.observation;
        if (s.latency_ms !== undefined) step.latency_ms = s.latency_ms;
        return step;
      });
      const interaction: AgentInteraction = { agent_id: x.agent_id, agent_steps: steps };
      const output = x.output ?? x.agent_response;
      if (output !== undefined) interaction.output = output;
      if (x.tool_execution_result !== undefined) interaction.tool_execution_result = x.tool_execution_result;
      if (x.latency_ms !== undefined) interaction.latency_ms = x.latency_ms;
      if (x.cost !== undefined) interaction.cost = x.cost;
      if (x.source_ids !== undefined) interaction.source_ids = x.source_ids;
      const ref = traceRefOf(x.metadata, x.source_ids);
      if (ref) interaction.trace = ref;
      return interaction;
    });
    const turn: Turn = {
      turn_index: t.turn_index ?? i,
      user_message: t.user_message,
      agent_interactions: interactions,
    };
    if (t.knowledge !== undefined) turn.knowledge = t.knowledge;
    const ref = traceRefOf(t.metadata, t.source_ids);
    if (ref) turn.trace = ref;
    const final = t.final_response ?? interactions.findLast((x) => x.output !== undefined)?.output;
    if (final !== undefined) turn.final_response = final;
    if (t.source_ids !== undefined) turn.source_ids = t.source_ids;
    return turn;
  });
  const session: Session = { format: SESSION_FORMAT, agents, turns };
  for (const key of [
    "id",
    "task_id",
    "initial_task",
    "success",
    "total_cost",
    "total_latency_ms",
    "source_ids",
  ] as const)
    if (input[key] !== undefined) (session as unknown as Record<string, unknown>)[key] = input[key];
  const ref = traceRefOf(input.metadata, input.source_ids);
  if (ref) session.trace = ref;
  return session;
}
