// Tool validation at scale: 10,000 sessions × 20 tool calls, each against its agent's JSON Schema
// (each distinct schema compiled once per process), parse and validation timed together.
import { compileSessionTools, parseSession, validateToolCalls } from "../src/sessions/index.ts";

const TOOLS = [
  {
    name: "search",
    parameters_schema: {
      type: "object",
      properties: {
        query: { type: "string", minLength: 1 },
        limit: { type: "integer", minimum: 1, maximum: 50 },
      },
      required: ["query"],
    },
  },
  {
    name: "book",
    parameters_schema: {
      type: "object",
      properties: {
        id: { type: "string" },
        seats: { type: "integer", minimum: 1 },
        when: { type: "string", format: "date" },
        who: {
          type: "object",
          properties: { name: { type: "string" }, email: { type: "string", format: "email" } },
        },
      },
      required: ["id", "seats"],
    },
  },
];

/** One session of `calls` tool calls, a tenth of them faulty in some way. */
function sessionValue(i: number, calls: number) {
  const steps = Array.from({ length: calls }, (_, c) => {
    const n = i * calls + c;
    const bad = n % 10 === 0;
    return n % 2 === 0
      ? {
          tool_call: {
            tool_name: "search",
            parameters: bad ? { query: "", extra: 1 } : { query: `q${n}`, limit: 5 },
          },
        }
      : {
          tool_call: {
            tool_name: "book",
            parameters: bad
              ? { id: "x", when: "tomorrow" }
              : { id: `f${n}`, seats: 2, when: "2026-03-03", who: { name: "A", email: "a@example.com" } },
          },
        };
  });
  return {
    agents: [{ id: "agent", tools_available: TOOLS }],
    turns: [{ user_message: "go", agent_interactions: [{ agent_id: "agent", agent_steps: steps }] }],
  };
}

export async function benchSessionValidation(sessions = 10_000, calls = 20) {
  const values = Array.from({ length: sessions }, (_, i) => sessionValue(i, calls));
  const start = performance.now();
  let findings = 0;
  for (const value of values) {
    const session = parseSession(value);
    findings += validateToolCalls(session, compileSessionTools(session)).findings.length;
  }
  const ms = performance.now() - start;
  return { sessions, calls: sessions * calls, findings, ms };
}
