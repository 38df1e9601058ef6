// Tool calls checked against each agent's own tools and their JSON Schemas, deterministically.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { analyzeSession, parseSession, validateToolCalls } from "../../src/sessions/index.ts";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/sessions/${name}`, import.meta.url));

/** A one-turn session whose agent has one tool with `schema` and calls it with `parameters`. */
function oneCall(schema: Record<string, unknown>, parameters: Record<string, unknown>) {
  return parseSession({
    agents: [{ id: "a", tools_available: [{ name: "t", parameters_schema: schema }] }],
    turns: [
      {
        user_message: "go",
        agent_interactions: [{ agent_id: "a", agent_steps: [{ tool_call: { tool_name: "t", parameters } }] }],
      },
    ],
  });
}

describe("tool validation", () => {
  it("finds exactly the four faults of a session, at the right turn, agent and tool, and the tool failure apart", async () => {
    const { analyses } = await analyzeSession(fixture("four-faults.session.json"), { judge: "none" });
    const findings = analyses[0]!.tool_validation;
    const faults = findings.filter((f) => f.type !== "tool_error");
    expect(
      faults.map((f) => [f.turn_index, f.agent_id, f.tool_name, f.type, f.severity, f.parameters]),
    ).toEqual([
      [0, "booker", "search_flights", "hallucinated_parameter", "MEDIUM", ["passengers.pets"]],
      [1, "router", "book_flight", "unauthorized_tool", "HIGH", []],
      [1, "booker", "book_flight", "missing_required_parameter", "MEDIUM", ["seats"]],
      [2, "booker", "search_flights", "invalid_parameter_type", "MEDIUM", ["date"]],
    ]);
    expect(faults.map((f) => f.path)).toEqual([
      "turns[0].agent_interactions[1].agent_steps[0].tool_call.parameters.passengers.pets",
      "turns[1].agent_interactions[0].agent_steps[0].tool_call.tool_name",
      "turns[1].agent_interactions[1].agent_steps[0].tool_call.parameters.seats",
      "turns[2].agent_interactions[0].agent_steps[0].tool_call.parameters.date",
    ]);
    expect(faults[1]!.message).toMatch(
      /router called "book_flight", which is not among its tools \("classify_intent"\); booker has it/,
    );
    // The failing tool is its own finding, never one of the call's faults.
    const failures = findings.filter((f) => f.type === "tool_error");
    expect(failures.map((f) => [f.turn_index, f.agent_id, f.tool_name, f.severity, f.message])).toEqual([
      [2, "booker", "search_flights", "LOW", "search_flights failed: upstream timeout"],
    ]);
    expect(analyses[0]!.tool_calls).toEqual({ total: 5, with_findings: 4, unchecked: 0 });
  });

  it("a valid call has no finding", () => {
    const session = oneCall(
      {
        type: "object",
        properties: { q: { type: "string" }, n: { type: "integer", maximum: 10 } },
        required: ["q"],
      },
      { q: "x", n: 3 },
    );
    expect(validateToolCalls(session).findings).toEqual([]);
  });

  it("an enum, a range and a format are invalid types; several undeclared keys are one finding", () => {
    const schema = {
      type: "object",
      properties: {
        unit: { enum: ["c", "f"] },
        days: { type: "integer", minimum: 1, maximum: 7 },
        email: { type: "string", format: "email" },
      },
    };
    const bad = validateToolCalls(
      oneCall(schema, { unit: "k", days: 9, email: "nope", x: 1, y: 2 }),
    ).findings;
    expect(bad.map((f) => [f.type, f.parameters])).toEqual([
      ["hallucinated_parameter", ["x", "y"]],
      ["invalid_parameter_type", ["unit", "days", "email"]],
    ]);
    expect(bad[1]!.message).toBe(
      't: unit must be one of ["c","f"], days must be <= 7, email must match format "email"',
    );
  });

  it("a schema that allows other keys does not make them hallucinated", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: true };
    expect(validateToolCalls(oneCall(schema, { a: "x", extra: 1 })).findings).toEqual([]);
  });

  it("a union that matches no branch is one invalid-type finding, not one per branch", () => {
    const schema = {
      type: "object",
      properties: { v: { anyOf: [{ type: "string" }, { type: "integer" }] } },
    };
    const bad = validateToolCalls(oneCall(schema, { v: 1.5 })).findings;
    expect(bad.map((f) => [f.type, f.parameters, f.message])).toEqual([
      ["invalid_parameter_type", ["v"], "t: v matches none of the accepted forms"],
    ]);
  });

  it("ReAsk's flat parameter map is read as an object whose listed parameters are all required", () => {
    const session = parseSession({
      agents: [
        {
          id: "a",
          tools_available: [{ name: "read_file", parameters_schema: { path: "string", lines: "int" } }],
        },
      ],
      turns: [
        {
          user_message: "read it",
          agent_interactions: [
            {
              agent_id: "a",
              agent_response: "done",
              agent_steps: [{ tool_call: { tool_name: "read_file", parameters: { path: 3 } } }],
            },
          ],
        },
      ],
    });
    expect(session.agents[0]!.tools![0]!.declared).toBe("flat-map");
    expect(session.turns[0]!.agent_interactions[0]!.output).toBe("done");
    expect(validateToolCalls(session).findings.map((f) => [f.type, f.parameters])).toEqual([
      ["missing_required_parameter", ["lines"]],
      ["invalid_parameter_type", ["path"]],
    ]);
  });

  it("calls of an agent whose tools the session does not list are counted as not checked, not flagged", () => {
    const session = parseSession({
      agents: [{ id: "a" }],
      turns: [
        {
          user_message: "go",
          agent_interactions: [{ agent_id: "a", agent_steps: [{ tool_call: { tool_name: "t" } }] }],
        },
      ],
    });
    const v = validateToolCalls(session);
    expect(v.findings).toEqual([]);
    expect(v.unchecked_calls).toBe(1);
  });

  it("a tool schema that is not valid JSON Schema is bad input naming the file and its JSON path", async () => {
    const session = {
      agents: [
        {
          id: "a",
          tools_available: [
            { name: "ok" },
            { name: "t", parameters_schema: { type: "object", properties: { n: { type: 5 } } } },
          ],
        },
      ],
      turns: [],
    };
    const error = await analyzeSession(session, { judge: "none" }).catch((e) => e);
    expect(InputError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^<session>:agents\[0\]\.tools_available\[1\]\.parameters_schema: not a valid JSON Schema/,
    );
  });
});
