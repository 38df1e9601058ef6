// Reading sessions: our format and ReAsk's names, OpenAI chat logs without a flag, and bad input named by
// file and JSON path.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyzeSession, importSessions, parseSession } from "../../src/sessions/index.ts";
import { inputError } from "../input-error.ts";

const twoAgents = (interaction: Record<string, unknown>) => ({
  agents: [{ id: "planner" }, { id: "executor" }],
  turns: [{ user_message: "hi", agent_interactions: [{ agent_id: "planner" }, interaction] }],
});

describe("the session format", () => {
  it("an interaction by an agent the session does not define is bad input at its JSON path", () => {
    const e = inputError(() => parseSession(twoAgents({ agent_id: "ghost" }), "s.json"));
    expect(e.message).toBe(
      's.json:turns[0].agent_interactions[1].agent_id: unknown agent "ghost"; the session defines "planner", "executor"',
    );
  });

  it("a handoff to an agent the session does not define is bad input at its JSON path", () => {
    const e = inputError(() =>
      parseSession(
        twoAgents({ agent_id: "executor", agent_steps: [{ handoff: { to: "reviewer" } }] }),
        "s.json",
      ),
    );
    expect(e.place).toBe("turns[0].agent_interactions[1].agent_steps[0].handoff.to");
  });

  it("a misspelt field is named, not ignored", () => {
    const e = inputError(() => parseSession(twoAgents({ agent_id: "executor", ouput: "x" }), "s.json"));
    expect(e.message).toMatch(/turns\[0\]\.agent_interactions\[1\]: unknown key "ouput"/);
  });

  it("a schema-like map with an unknown type is read as JSON Schema (and then rejected), not as a parameter", async () => {
    const session = {
      agents: [{ id: "a", tools_available: [{ name: "t", parameters_schema: { type: "objekt" } }] }],
      turns: [],
    };
    await expect(analyzeSession(session, { judge: "none" })).rejects.toThrow(
      /parameters_schema: not a valid JSON Schema/,
    );
  });

  it("reads ReAsk's names: agent_response, tool_execution_result, action and observation", () => {
    const s = parseSession({
      agents: [{ id: "coder", name: "Coder", capabilities: ["python"], config: { model: "x" } }],
      turns: [
        {
          turn_index: 4,
          user_message: "fix it",
          agent_interactions: [
            {
              agent_id: "coder",
              agent_response: "fixed",
              tool_execution_result: "tests pass",
              agent_steps: [{ thought: "run tests", action: "pytest", observation: "1 failed" }],
            },
          ],
        },
      ],
    });
    expect(s.turns[0]).toMatchObject({ turn_index: 4, final_response: "fixed" });
    expect(s.turns[0]!.agent_interactions[0]).toMatchObject({
      output: "fixed",
      tool_execution_result: "tests pass",
    });
    expect(s.turns[0]!.agent_interactions[0]!.agent_steps[0]).toEqual({
      thought: "run tests",
      action: "pytest",
      observation: "1 failed",
    });
  });
});

describe("OpenAI chat logs", () => {
  const log = {
    tools: [
      {
        type: "function",
        function: {
          name: "get_weather",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ],
    messages: [
      { role: "system", content: "You are helpful." },
      { role: "user", content: "Weather in Porto?" },
      {
        role: "assistant",
        name: "forecaster",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Porto"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: '{"temp_c":19}' },
      { role: "assistant", name: "forecaster", content: "19 °C in Porto." },
      { role: "user", content: "And Faro?" },
      {
        role: "assistant",
        name: "forecaster",
        content: null,
        tool_calls: [
          { id: "c2", type: "function", function: { name: "get_weather", arguments: "{city: Faro" } },
        ],
      },
    ],
  };

  it("are recognised without a flag: user messages open turns, an assistant's name is its agent id", () => {
    const { sessions, from, notes } = importSessions(log, { file: "chat.json" });
    expect(from).toBe("openai");
    expect(notes).toEqual([
      "messages[6].tool_calls[0].function.arguments: not a JSON object; the call is reported as invalid",
    ]);
    const [s] = sessions;
    expect(s!.agents.map((a) => a.id)).toEqual(["forecaster"]);
    expect(s!.turns.map((t) => t.user_message)).toEqual(["Weather in Porto?", "And Faro?"]);
    const first = s!.turns[0]!.agent_interactions[0]!;
    expect(first.output).toBe("19 °C in Porto.");
    expect(first.agent_steps[0]!.tool_call).toMatchObject({
      tool_name: "get_weather",
      parameters: { city: "Porto" },
      result: { temp_c: 19 },
    });
  });

  it("a valid call gives no finding; arguments that are not JSON are an invalid call", async () => {
    const { analyses } = await analyzeSession(log, { judge: "none" });
    expect(analyses[0]!.tool_validation.map((f) => [f.turn_index, f.type, f.parameters])).toEqual([
      [1, "invalid_parameter_type", ["(arguments)"]],
    ]);
  });

  it("a file in no known format is bad input that says which formats are read", () => {
    const e = inputError(() => importSessions({ events: [] }, { file: "log.json" }));
    expect(e.message).toBe(
      "log.json: not a format Dramaturg reads as sessions; expected session, openai, openai-agents, otlp, tau-bench, tau2-bench, langfuse, langsmith, inspect (choose one with --from)",
    );
  });
});

describe("OpenAI Agents SDK trace exports", () => {
  const EXPORT = fileURLToPath(new URL("../fixtures/sessions/openai-agents-export.json", import.meta.url));

  it("are recognised without a flag: agents, their tools by name, calls, handoffs, words and latency", async () => {
    const { analyses, sources } = await analyzeSession(EXPORT, { judge: "none" });
    expect(sources[0]!.from).toBe("openai-agents");
    expect(sources[0]!.notes).toEqual([
      "trace trace_0a1b: 1 guardrail span not mapped",
      "the trace names each agent's tools but not their schemas: arguments are not checked (give them with --tools FILE)",
    ]);
    const a = analyses[0]!;
    expect(a.session_id).toBe("conv-9");
    expect(Object.keys(a.per_agent_scores)).toEqual(["Triage", "Billing"]);
    // close_ticket is not among Billing's tools; the refund failed in the tool, not in the call.
    expect(a.tool_validation.map((f) => [f.agent_id, f.tool_name, f.type])).toEqual([
      ["Billing", "refund", "tool_error"],
      ["Billing", "close_ticket", "unauthorized_tool"],
    ]);
    expect(a.latency.per_tool.refund).toMatchObject({ calls: 1, errors: 1, max_ms: 1100 });
    expect(a.latency.per_agent.Billing).toMatchObject({ interactions: 1, max_ms: 2500 });
    expect(a.latency.slowest_tool_call).toMatchObject({
      agent_id: "Billing",
      tool_name: "refund",
      latency_ms: 1100,
    });
  });

  it("keep the user's message, each agent's words and the handoff", async () => {
    const { sessions } = importSessions(JSON.parse(readFileSync(EXPORT, "utf8")), { file: EXPORT });
    const turn = sessions[0]!.turns[0]!;
    expect(turn.user_message).toBe("I was charged twice for order 77.");
    expect(turn.agent_interactions.map((x) => [x.agent_id, x.output])).toEqual([
      ["Triage", "Let me pass you to billing."],
      ["Billing", "The refund failed on the provider's side; I have closed the ticket."],
    ]);
    expect(turn.agent_interactions[0]!.agent_steps).toContainEqual({ handoff: { to: "Billing" } });
  });
});

describe("a real OpenAI Agents SDK export (examples/sessions, recorded by scripts/record-otlp)", () => {
  const TRACE = fileURLToPath(new URL("../../examples/sessions/openai-agents.trace.json", import.meta.url));
  const TOOLS = fileURLToPath(new URL("../../examples/sessions/openai-agents.tools.json", import.meta.url));

  it("gives the agents, the handoff and the tool failure; with the tools' schemas, the undeclared argument too", async () => {
    const without = await analyzeSession(TRACE, { judge: "none" });
    expect(without.analyses[0]!.session_id).toBe("conv-42");
    expect(Object.keys(without.analyses[0]!.per_agent_scores)).toEqual(["Triage", "Billing"]);
    expect(without.analyses[0]!.tool_validation.map((f) => [f.agent_id, f.tool_name, f.type])).toEqual([
      ["Billing", "refund", "tool_error"],
    ]);
    const { analyses } = await analyzeSession(TRACE, { judge: "none", tools: TOOLS });
    expect(analyses[0]!.tool_validation.map((f) => [f.agent_id, f.tool_name, f.type, f.parameters])).toEqual([
      ["Billing", "refund", "hallucinated_parameter", ["notify_customer"]],
      ["Billing", "refund", "tool_error", []],
    ]);
    const { sessions } = importSessions(JSON.parse(readFileSync(TRACE, "utf8")), { file: TRACE });
    expect(sessions[0]!.turns[0]!.agent_interactions[0]!.agent_steps).toContainEqual({
      handoff: { to: "Billing" },
    });
  });
});

describe("a chat-completions conversation as the OpenAI Agents SDK sends it (examples/sessions/openai-chat.json)", () => {
  it("imports without a flag and its valid calls give no finding", async () => {
    const file = fileURLToPath(new URL("../../examples/sessions/openai-chat.json", import.meta.url));
    const { analyses, sources } = await analyzeSession(file, { judge: "none" });
    expect(sources[0]!.from).toBe("openai");
    expect(analyses[0]!.tool_calls).toEqual({ total: 2, with_findings: 0, unchecked: 0 });
    expect(analyses[0]!.tool_validation).toEqual([]);
    const { sessions } = importSessions(JSON.parse(readFileSync(file, "utf8")), { file });
    const steps = sessions[0]!.turns[0]!.agent_interactions[0]!.agent_steps;
    expect(steps.map((st) => [st.tool_call?.tool_name, st.tool_call?.result])).toEqual([
      ["search_flights", [{ flight_id: "TP1234", departs: "09:10" }]],
      ["book_flight", { booking: "BK-77" }],
    ]);
  });
});
