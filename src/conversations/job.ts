// The conversation job: a YAML file in the seed's shape (evaluator, target, aspirationalAverage, greetings,
// tasks, facts, seeds, setup, assertions) plus maxTurns and how to reach the agent. Validated once, here,
// with the line of every mistake; CEL expressions are parsed now, so a bad one is bad input, not a 0.
import { z } from "zod";
import { celJs, InputError, parseLocatedYaml, readInputFile } from "../core/index.ts";
import { parseGraphLocation } from "./cypher.ts";

const text = z.string().trim().min(1);

export const EvaluatorSchema = z
  .object({
    name: text.describe("The simulated user's name"),
    voice: text.describe("How the simulated user speaks"),
    signoff: text.describe("What the simulated user says to end the conversation (the run ends on it)"),
    temperature: z.number().min(0).max(2).default(0.5),
  })
  .strict();

export const TargetSchema = z
  .object({
    user: text.describe("The user id the agent sees"),
    chatbot: text.describe("The agent's name; with openai-chat, the model name sent"),
    url: z.url().optional().describe("The agent's endpoint (default: --target-url)"),
    protocol: z.enum(["openai-chat", "http"]).default("openai-chat"),
    stateUrl: z.url().optional().describe("A GET returning the agent's object context as JSON"),
    http: z
      .object({
        body: z
          .union([z.string(), z.record(z.string(), z.unknown())])
          .describe("The POST body, with {{message}}, {{conversation_id}} and {{user}} filled in"),
        reply: z.string().startsWith("/").or(z.literal("")).describe("JSON pointer to the reply text"),
        seedUrl: z.url().optional().describe("Where text seeds are POSTed ({text, user})"),
        headers: z.record(z.string(), z.string()).optional(),
      })
      .strict()
      .optional()
      .describe("How to talk to an agent with protocol http"),
    timeoutMs: z.number().int().min(1).default(30_000),
    retries: z.number().int().min(0).max(10).default(3),
    database: z
      .string()
      .optional()
      .describe("PostgreSQL URL or PGlite folder that sql assertions and setup read"),
    graph: z
      .string()
      .optional()
      .describe(
        "neo4j:// or bolt:// URL (credentials in NEO4J_USERNAME / NEO4J_PASSWORD) or Kùzu database file that cypher assertions and setup read",
      ),
  })
  .strict();

export const TaskSchema = z
  .object({
    type: z.enum(["task", "question"]),
    task: text.describe("What the simulated user asks for, in its own words"),
    acceptanceCriteria: text.describe("What the scorer checks; never shown to the simulated user"),
  })
  .strict();

const TurnSchema = z.object({ role: z.enum(["user", "assistant"]), content: z.string() }).strict();

export const SeedSchema = z.union([
  z.object({ text: text }).strict(),
  z.object({ conversation: z.array(TurnSchema).min(1) }).strict(),
]);

export const SetupSchema = z.union([
  z.object({ sql: text, database: z.string().optional() }).strict(),
  z.object({ cypher: text, graph: z.string().optional() }).strict(),
  z
    .object({
      http: z.url(),
      method: z.enum(["POST", "PUT", "DELETE"]).default("POST"),
      body: z.unknown().optional(),
    })
    .strict(),
]);

const weight = z.number().positive().default(1);
/** The value a query must return: required, whatever its type. */
const expected = z
  .unknown()
  .refine((v) => v !== undefined, "missing; expected the value the query should return");

const ASSERTION_KINDS = {
  expression: z.object({ expression: text, weight }).strict(),
  sql: z.object({ sql: text, expected, database: z.string().optional(), weight }).strict(),
  http: z.object({ http: z.url(), expression: text, weight }).strict(),
  cypher: z.object({ cypher: text, expected, graph: z.string().optional(), weight }).strict(),
} as const;

/** Which kind an assertion is, by the key that names it (`http` and `expression` together are http). */
function assertionKind(value: unknown): keyof typeof ASSERTION_KINDS | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if ("http" in value) return "http";
  for (const kind of ["sql", "cypher", "expression"] as const) if (kind in value) return kind;
  return undefined;
}

export const AssertionSchema = z.unknown().transform((value, ctx) => {
  const kind = assertionKind(value);
  if (!kind) {
    ctx.addIssue({
      code: "custom",
      message:
        "unknown assertion type; expected one of expression (CEL), sql with expected, http with expression, cypher with expected",
    });
    return z.NEVER;
  }
  const parsed = ASSERTION_KINDS[kind].safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ ...issue, code: "custom", message: issue.message } as never);
    return z.NEVER;
  }
  return { kind, ...parsed.data } as Assertion;
});

export type Assertion =
  | { kind: "expression"; expression: string; weight: number }
  | { kind: "sql"; sql: string; expected: unknown; database?: string; weight: number }
  | { kind: "http"; http: string; expression: string; weight: number }
  | { kind: "cypher"; cypher: string; expected: unknown; graph?: string; weight: number };

export const ConversationJobSchema = z
  .object({
    evaluator: EvaluatorSchema,
    target: TargetSchema,
    aspirationalAverage: z.number().positive().describe("The response time aimed at, in milliseconds"),
    greetings: z.array(text).min(1),
    tasks: z.array(TaskSchema).min(1),
    facts: z.array(text).default([]),
    seeds: z.array(SeedSchema).default([]),
    setup: z.array(SetupSchema).default([]),
    assertions: z.array(AssertionSchema).default([]),
    maxTurns: z.number().int().min(1).max(100).default(10).describe("Exchanges (user and agent) at most"),
  })
  .strict();

export type ConversationJob = z.output<typeof ConversationJobSchema>;

/** The JSON Schema of the job file, for `dramaturg schema conversation` (assertions by their four shapes). */
export function conversationJobJsonSchema(): unknown {
  const schema = z.toJSONSchema(ConversationJobSchema, { io: "input", unrepresentable: "any" }) as {
    properties: Record<string, unknown>;
  };
  schema.properties.assertions = {
    type: "array",
    items: {
      anyOf: Object.values(ASSERTION_KINDS).map((s) => {
        const { $schema: _, ...one } = z.toJSONSchema(s, { io: "input" }) as Record<string, unknown>;
        return one;
      }),
    },
  };
  return schema;
}

/** A job file read and checked: every mistake is an InputError naming the file and its line. */
export function loadConversationJob(file: string): ConversationJob {
  const located = parseLocatedYaml(readInputFile(file, "the conversation job"), file, ConversationJobSchema);
  const job = located.data;
  job.assertions.forEach((a, i) => {
    if (a.kind !== "expression" && a.kind !== "http") return;
    try {
      celJs().parse(a.expression);
    } catch (error) {
      const reason = (error as Error).message.split("\n")[0];
      throw new InputError(`assertions[${i}].expression: not a valid CEL expression: ${reason}`, {
        file,
        place: located.placeOf(["assertions", i, "expression"]),
        cause: error,
      });
    }
  });
  checkGraphs(job, file, located.placeOf);
  if (job.target.protocol === "http" && !job.target.http)
    throw new InputError("target.http: missing; protocol http needs its body and reply", {
      file,
      place: located.placeOf(["target", "protocol"]),
    });
  return job;
}

/**
 * Every graph named parses, and every Cypher assertion and setup step has one (its own or target.graph):
 * checked now, so a job never runs a conversation whose graph checks cannot run. An assertion without a
 * graph of its own takes target.graph here, so checking it needs nothing but the assertion.
 */
function checkGraphs(
  job: ConversationJob,
  file: string,
  placeOf: (path: (string | number)[]) => string,
): void {
  const name = (path: (string | number)[]) =>
    path.map((p, i) => (typeof p === "number" ? `[${p}]` : i ? `.${p}` : p)).join("");
  const check = (graph: string | undefined, path: (string | number)[]) => {
    if (graph === undefined) return;
    try {
      parseGraphLocation(graph);
    } catch (error) {
      if (!InputError.isInstance(error)) throw error;
      throw new InputError(`${name(path)}: ${error.message}`, { file, place: placeOf(path), cause: error });
    }
  };
  const missing = (path: (string | number)[], owner: string) =>
    new InputError(
      `${name(path.slice(0, 2))}: no graph to query; give target.graph or the ${owner}'s graph`,
      {
        file,
        place: placeOf(path),
      },
    );
  check(job.target.graph, ["target", "graph"]);
  job.setup.forEach((step, i) => {
    if (!("cypher" in step)) return;
    check(step.graph, ["setup", i, "graph"]);
    if (step.graph === undefined && job.target.graph === undefined)
      throw missing(["setup", i, "cypher"], "step");
  });
  job.assertions.forEach((a, i) => {
    if (a.kind !== "cypher") return;
    check(a.graph, ["assertions", i, "graph"]);
    a.graph ??= job.target.graph;
    if (a.graph === undefined) throw missing(["assertions", i, "cypher"], "assertion");
  });
}
