// Real recorded OpenAI chat conversations (examples/sessions/recorded-*.chat.json, cut from public
// cassettes; sources in examples/sessions/README.md) import without a flag and their valid calls give no finding.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyzeSession, importSessions } from "../../src/sessions/index.ts";
import { cli, ROOT } from "../cli/run-cli.ts";

const example = (name: string) => `${ROOT}examples/sessions/${name}`;
const AGNO = example("recorded-agno-mixed-tools.chat.json");
const PYDANTIC = example("recorded-pydantic-ai-two-turns.chat.json");
const AUTOGEN = example("recorded-autogen-weather-agent.chat.json");

function imported(file: string) {
  return importSessions(JSON.parse(readFileSync(file, "utf8")), { file });
}

/** Each interaction as [agent, its calls as [tool, parameters, result], its words]. */
function interactions(file: string) {
  const { sessions } = imported(file);
  return sessions[0]!.turns.map((t) => ({
    user: t.user_message,
    agents: t.agent_interactions.map((x) => [
      x.agent_id,
      x.agent_steps.map((s) => [s.tool_call?.tool_name, s.tool_call?.parameters, s.tool_call?.result]),
      x.output,
    ]),
  }));
}

describe("an Agno agent's parallel tool calls (gpt-4o-mini, from Arize-ai/openinference)", () => {
  it("is read as OpenAI chat without a flag, with both calls, their results and the final answer", () => {
    const { from, notes } = imported(AGNO);
    expect(from).toBe("openai");
    expect(notes).toEqual([]);
    expect(interactions(AGNO)).toEqual([
      {
        user: "Calculate 2+2 and check weather in NYC",
        agents: [
          [
            "assistant",
            [
              ["calculator", { a: 2, b: 2 }, 4],
              ["weather_lookup", { city: "New York City" }, "Weather service down for: New York City"],
            ],
            expect.stringMatching(
              /^The result of the calculation .* couldn't retrieve the weather information\.$/,
            ),
          ],
        ],
      },
    ]);
  });

  it("its valid calls give no finding", async () => {
    const { analyses } = await analyzeSession(AGNO, { judge: "none" });
    expect(analyses[0]!.tool_calls).toEqual({ total: 2, with_findings: 0, unchecked: 0 });
    expect(analyses[0]!.tool_validation).toEqual([]);
  });
});

describe("a pydantic-ai agent over two turns (Gemini, then gpt-4o-mini, from pydantic/pydantic-ai)", () => {
  it("is read as two turns, one call each, with the tools' plain-text results", () => {
    expect(imported(PYDANTIC).notes).toEqual([]);
    expect(interactions(PYDANTIC)).toEqual([
      {
        user: "What is the capital of France?",
        agents: [
          ["assistant", [["get_capital", { country: "France" }, "Paris"]], "The capital of France is Paris."],
        ],
      },
      {
        user: "What is the capital of England?",
        agents: [
          [
            "assistant",
            [["get_capital", { country: "England" }, "London"]],
            "The capital of England is London.",
          ],
        ],
      },
    ]);
  });

  it("its valid calls give no finding", async () => {
    const { analyses, sources } = await analyzeSession(PYDANTIC, { judge: "none" });
    expect(sources[0]!.from).toBe("openai");
    expect(analyses[0]!.tool_calls).toEqual({ total: 2, with_findings: 0, unchecked: 0 });
    expect(analyses[0]!.tool_validation).toEqual([]);
  });
});

describe("an AutoGen agent named weather_agent (gpt-3.5-turbo, from Arize-ai/openinference)", () => {
  it("the API's unnamed reply continues the named agent it follows, and the log says so", () => {
    const { notes } = imported(AUTOGEN);
    expect(notes).toEqual([
      "messages[4]: an assistant message without a name is read as weather_agent's, whom it follows",
    ]);
    expect(interactions(AUTOGEN)).toEqual([
      {
        user: "What is the weather in New York?",
        agents: [
          [
            "weather_agent",
            [["get_weather", { city: "New York" }, "The weather in New York is 73 degrees and Sunny."]],
            "The weather in New York is currently 73 degrees and sunny.",
          ],
        ],
      },
    ]);
  });

  it("has one agent, and its valid call gives no finding", async () => {
    const { analyses } = await analyzeSession(AUTOGEN, { judge: "none" });
    expect(Object.keys(analyses[0]!.per_agent_scores)).toEqual(["weather_agent"]);
    expect(analyses[0]!.tool_calls).toEqual({ total: 1, with_findings: 0, unchecked: 0 });
    expect(analyses[0]!.tool_validation).toEqual([]);
  });
});

describe("an unnamed assistant message in a log whose agents are named", () => {
  const log = (messages: Record<string, unknown>[]) => ({
    messages: [{ role: "user", content: "Weather in Porto?" }, ...messages],
    tools: [{ type: "function", function: { name: "get_weather" } }],
  });
  const call = {
    id: "c1",
    type: "function",
    function: { name: "get_weather", arguments: '{"city":"Porto"}' },
  };

  it("after a user message opens a turn, belongs to no named agent", () => {
    const { sessions, notes } = importSessions(
      log([
        { role: "assistant", name: "forecaster", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: "c1", content: "19" },
        { role: "user", content: "Thanks" },
        { role: "assistant", content: "You're welcome." },
      ]),
      { file: "chat.json" },
    );
    expect(notes).toEqual(["the request's tools are every agent's (forecaster, assistant)"]);
    expect(sessions[0]!.turns.map((t) => t.agent_interactions.map((x) => x.agent_id))).toEqual([
      ["forecaster"],
      ["assistant"],
    ]);
  });

  it("in a log with no names at all, is the one agent called assistant, without a note", () => {
    const { sessions, notes } = importSessions(
      log([
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: "c1", content: "19" },
        { role: "assistant", content: "19 °C." },
      ]),
      { file: "chat.json" },
    );
    expect(notes).toEqual([]);
    expect(sessions[0]!.agents.map((a) => a.id)).toEqual(["assistant"]);
  });
});

describe("dramaturg session analyze on a recorded conversation", () => {
  it("reads it without --from and exits 0 with no findings", async () => {
    const r = await cli([
      "session",
      "analyze",
      AGNO,
      "--judge",
      "none",
      "--format",
      "json",
      "--db",
      "memory://",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const a = JSON.parse(r.stdout);
    expect(a.sources).toEqual([{ file: AGNO, from: "openai", sessions: 1, notes: [] }]);
    expect(a.tool_calls).toEqual({ total: 2, with_findings: 0, unchecked: 0 });
    expect(a.tool_validation).toEqual([]);
  });
});
