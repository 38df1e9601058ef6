// Deterministic, free tool validation: each agent's calls against its own tools, the arguments against the
// tool's JSON Schema (ajv, each distinct schema compiled once per process). A bad call and a failing tool
// are told apart: `tool_error` is the tool's failure, never the agent's mistake.
import { createRequire } from "node:module";
import type { Ajv, ErrorObject, Options, ValidateFunction } from "ajv";
import type { Ajv2019 } from "ajv/dist/2019.js";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { InputError, issuePath } from "../core/index.ts";
import type { Session, SessionTool } from "./session-format.ts";

export type FindingType =
  | "unauthorized_tool"
  | "hallucinated_parameter"
  | "missing_required_parameter"
  | "invalid_parameter_type"
  | "tool_error";

export type Severity = "HIGH" | "MEDIUM" | "LOW";

export const SEVERITY: Record<FindingType, Severity> = {
  unauthorized_tool: "HIGH",
  hallucinated_parameter: "MEDIUM",
  missing_required_parameter: "MEDIUM",
  invalid_parameter_type: "MEDIUM",
  // The tool failed, not the call: reported, and never counted against the agent's tool use.
  tool_error: "LOW",
};

export interface ToolFinding {
  turn_index: number;
  agent_id: string;
  tool_name: string;
  type: FindingType;
  severity: Severity;
  /** The parameters concerned, as dotted paths within the call's arguments (`filters.status`). */
  parameters: string[];
  /** Where in the session document: the call, or its first parameter concerned. */
  path: string;
  message: string;
}

/** One tool call and where it is: what the judged tool-use score and the report attach findings to. */
export interface CallPlace {
  turn: number;
  interaction: number;
  step: number;
  turn_index: number;
  agent_id: string;
  tool_name: string;
}

export interface ToolValidation {
  findings: ToolFinding[];
  /** Per call (in session order), the findings about it. */
  calls: { place: CallPlace; findings: ToolFinding[] }[];
  /** Calls by agents whose tool list the session does not give: not checked, and said so. */
  unchecked_calls: number;
}

type AjvInstance = Ajv | Ajv2019 | Ajv2020;
// ajv is required at the first validation, not imported with the sessions: they load with the main entry,
// and ajv with its formats is a sixth of its import time (design notes, start-up).
const require = createRequire(import.meta.url);

const OPTIONS: Options = { allErrors: true, strict: false, validateFormats: true };
const instances = new Map<string, AjvInstance>();

/** The validator instance for a schema's dialect: draft-07 (and unmarked schemas), 2019-09 or 2020-12. */
function ajvFor(schema: Record<string, unknown>): AjvInstance {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  const dialect = declared.includes("2020-12") ? "2020" : declared.includes("2019-09") ? "2019" : "07";
  let ajv = instances.get(dialect);
  if (!ajv) {
    const Validator: new (options: Options) => AjvInstance =
      dialect === "2020"
        ? (require("ajv/dist/2020.js") as { Ajv2020: typeof Ajv2020 }).Ajv2020
        : dialect === "2019"
          ? (require("ajv/dist/2019.js") as { Ajv2019: typeof Ajv2019 }).Ajv2019
          : (require("ajv") as { Ajv: typeof Ajv }).Ajv;
    ajv = new Validator(OPTIONS);
    (require("ajv-formats") as { default: (ajv: AjvInstance) => void }).default(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** Compiled validators by schema text: a tool shared by thousands of sessions is compiled once. */
const compiled = new Map<string, ValidateFunction>();
const COMPILED_MAX = 2_000;

/**
 * The schema with undeclared parameters made errors at every depth: an object schema that lists its
 * `properties` and says nothing of others gets `additionalProperties: false`. One that allows others
 * (`additionalProperties`, `patternProperties`, `unevaluatedProperties`) is left as it is, and so are the
 * branches of `allOf`, where closing one branch would reject the others' properties.
 */
function closeObjects(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const s = { ...(schema as Record<string, unknown>) };
  if (s.properties && typeof s.properties === "object") {
    const properties: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.properties as Record<string, unknown>))
      properties[k] = closeObjects(v);
    s.properties = properties;
    const open = ["additionalProperties", "patternProperties", "unevaluatedProperties"].some((k) => k in s);
    if (!open) s.additionalProperties = false;
  }
  if (s.items !== undefined)
    s.items = Array.isArray(s.items) ? s.items.map(closeObjects) : closeObjects(s.items);
  for (const k of ["anyOf", "oneOf"] as const)
    if (Array.isArray(s[k])) s[k] = (s[k] as unknown[]).map(closeObjects);
  for (const k of ["$defs", "definitions"] as const)
    if (s[k] && typeof s[k] === "object")
      s[k] = Object.fromEntries(
        Object.entries(s[k] as Record<string, unknown>).map(([name, d]) => [name, closeObjects(d)]),
      );
  return s;
}

/** The compiled validator of a tool's schema; an InputError at `place` when it is not valid JSON Schema. */
export function toolValidator(
  schema: Record<string, unknown>,
  { file, place }: { file?: string; place: string },
): ValidateFunction {
  const text = JSON.stringify(schema);
  const found = compiled.get(text);
  if (found) return found;
  const ajv = ajvFor(schema);
  if (!ajv.validateSchema(schema)) {
    const e = ajv.errors?.[0];
    throw new InputError(
      `not a valid JSON Schema: ${e ? `${e.instancePath || "(root)"} ${e.message}` : "rejected by the validator"}`,
      { file, place },
    );
  }
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(closeObjects(schema) as Record<string, unknown>);
  } catch (error) {
    throw new InputError(`not a valid JSON Schema: ${(error as Error).message}`, {
      file,
      place,
      cause: error,
    });
  }
  if (compiled.size >= COMPILED_MAX) compiled.clear();
  compiled.set(text, validate);
  return validate;
}

/**
 * Compiles every tool schema of a session, so that a schema that is not valid JSON Schema is bad input
 * (exit 2, its JSON path) before anything is judged or stored. Returns the validators by agent and tool.
 */
export function compileSessionTools(
  session: Session,
  file?: string,
): Map<string, Map<string, { tool: SessionTool; validate?: ValidateFunction }>> {
  const byAgent = new Map<string, Map<string, { tool: SessionTool; validate?: ValidateFunction }>>();
  session.agents.forEach((agent, i) => {
    if (!agent.tools) return;
    const tools = new Map<string, { tool: SessionTool; validate?: ValidateFunction }>();
    agent.tools.forEach((tool, j) => {
      const place = issuePath(["agents", i, "tools_available", j, "parameters_schema"]);
      tools.set(tool.name, {
        tool,
        validate: tool.schema ? toolValidator(tool.schema, { file, place }) : undefined,
      });
    });
    byAgent.set(agent.id, tools);
  });
  return byAgent;
}

const TYPE_KEYWORDS = new Set([
  "type",
  "enum",
  "const",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "contains",
]);

/** `/filters/0/status` → `["filters", 0, "status"]`. */
function pointerParts(pointer: string): (string | number)[] {
  return pointer
    .split("/")
    .slice(1)
    .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

interface Problem {
  /** `filters[0].status`, or `(arguments)` for the arguments as a whole. */
  name: string;
  parts: (string | number)[];
  detail: string;
}

/** What one call's arguments break, grouped by finding type. */
function argumentProblems(errors: readonly ErrorObject[]): Map<FindingType, Problem[]> {
  // A union that failed is one problem: the errors of its branches are not reported one by one.
  const unions = errors
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .map((e) => `${e.schemaPath}/`);
  const problems = new Map<FindingType, Problem[]>();
  const add = (type: FindingType, pointer: string, detail: string) => {
    const parts = pointerParts(pointer);
    const name = parts.length ? issuePath(parts) : "(arguments)";
    const list = problems.get(type) ?? [];
    if (!list.some((p) => p.name === name)) list.push({ name, parts, detail });
    problems.set(type, list);
  };
  for (const e of errors) {
    if (unions.some((u) => e.schemaPath.startsWith(u))) continue;
    const params = e.params as Record<string, unknown>;
    if (e.keyword === "additionalProperties")
      add("hallucinated_parameter", `${e.instancePath}/${String(params.additionalProperty)}`, "not declared");
    else if (e.keyword === "required")
      add("missing_required_parameter", `${e.instancePath}/${String(params.missingProperty)}`, "required");
    else if (TYPE_KEYWORDS.has(e.keyword))
      add(
        "invalid_parameter_type",
        e.instancePath,
        e.keyword === "enum"
          ? `must be one of ${JSON.stringify((params.allowedValues as unknown[]) ?? [])}`
          : e.keyword === "anyOf" || e.keyword === "oneOf"
            ? "matches none of the accepted forms"
            : (e.message ?? e.keyword),
      );
  }
  return problems;
}

/** The order of a call's findings. */
const ORDER = ["hallucinated_parameter", "missing_required_parameter", "invalid_parameter_type"] as const;

const NOUN: Record<Exclude<FindingType, "unauthorized_tool" | "tool_error">, string> = {
  hallucinated_parameter: "not declared in the tool's schema",
  missing_required_parameter: "required but not given",
  invalid_parameter_type: "of the wrong type or value",
};

/**
 * Checks every tool call of a session against the calling agent's tools. `tools` is what
 * {@link compileSessionTools} returned for it.
 */
export function validateToolCalls(
  session: Session,
  tools: ReturnType<typeof compileSessionTools> = compileSessionTools(session),
): ToolValidation {
  const findings: ToolFinding[] = [];
  const calls: ToolValidation["calls"] = [];
  let unchecked = 0;
  const owners = (tool: string) =>
    session.agents.filter((a) => a.tools?.some((t) => t.name === tool)).map((a) => a.id);
  session.turns.forEach((turn, t) => {
    turn.agent_interactions.forEach((interaction, x) => {
      interaction.agent_steps.forEach((step, s) => {
        const call = step.tool_call;
        if (!call) return;
        const place: CallPlace = {
          turn: t,
          interaction: x,
          step: s,
          turn_index: turn.turn_index,
          agent_id: interaction.agent_id,
          tool_name: call.tool_name,
        };
        const at = ["turns", t, "agent_interactions", x, "agent_steps", s, "tool_call"] as (
          | string
          | number
        )[];
        const mine: ToolFinding[] = [];
        const finding = (
          type: FindingType,
          parameters: string[],
          path: (string | number)[],
          message: string,
        ) => {
          const f: ToolFinding = {
            turn_index: turn.turn_index,
            agent_id: interaction.agent_id,
            tool_name: call.tool_name,
            type,
            severity: SEVERITY[type],
            parameters,
            path: issuePath(path),
            message,
          };
          mine.push(f);
          findings.push(f);
        };
        const agentTools = tools.get(interaction.agent_id);
        if (!agentTools) unchecked++;
        else {
          const entry = agentTools.get(call.tool_name);
          if (!entry) {
            const others = owners(call.tool_name).filter((id) => id !== interaction.agent_id);
            const has = [...agentTools.keys()];
            finding(
              "unauthorized_tool",
              [],
              [...at, "tool_name"],
              `${interaction.agent_id} called "${call.tool_name}", which is not among its tools (${has.length ? has.map((n) => `"${n}"`).join(", ") : "it has none"})${others.length ? `; ${others.join(", ")} ${others.length === 1 ? "has" : "have"} it` : ""}`,
            );
          } else if (call.arguments_text !== undefined) {
            finding(
              "invalid_parameter_type",
              ["(arguments)"],
              [...at, "arguments_text"],
              `${call.tool_name}: the arguments are not a JSON object: ${JSON.stringify(call.arguments_text.slice(0, 80))}`,
            );
          } else if (entry.validate && !entry.validate(call.parameters)) {
            const problems = argumentProblems(entry.validate.errors ?? []);
            for (const type of ORDER) {
              const found = problems.get(type);
              if (!found) continue;
              const names = found.map((p) => p.name);
              finding(
                type,
                names,
                [...at, "parameters", ...found[0]!.parts],
                `${call.tool_name}: ${found.map((p) => (type === "invalid_parameter_type" ? `${p.name} ${p.detail}` : p.name)).join(", ")} ${type === "invalid_parameter_type" ? "" : NOUN[type as keyof typeof NOUN]}`.trimEnd(),
              );
            }
          }
        }
        if (call.error)
          finding("tool_error", [], [...at, "error"], `${call.tool_name} failed: ${call.error}`);
        calls.push({ place, findings: mine });
      });
    });
  });
  return { findings, calls, unchecked_calls: unchecked };
}
