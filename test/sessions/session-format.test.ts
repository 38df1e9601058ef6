// Reading sessions: our format and ReAsk's names, OpenAI chat logs without a flag, and bad input named by
// file and JSON path.
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
    const e = inputError(() => importSessions({ resourceSpans: "x" }, { file: "trace.json" }));
    expect(e.message).toMatch(
      /^trace\.json: not a format Dramaturg reads as sessions; expected session, openai/,
    );
  });
});
