// OTLP traces as sessions: real exports of the AI SDK's own telemetry (GenAI conventions and its ai.*
// spans), OpenInference and the older event form, and files that are not traces.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyzeSession, importSessions } from "../../src/sessions/index.ts";
import { inputError } from "../input-error.ts";

const path = (p: string) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const read = (file: string) => importSessions(JSON.parse(readFileSync(file, "utf8")), { file });

describe.each([
  ["the GenAI conventions (AI SDK 7, @ai-sdk/otel)", "examples/sessions/ai-sdk-genai.otlp.json"],
  ["the ai.* spans (AI SDK 6 names, LegacyOpenTelemetry)", "examples/sessions/ai-sdk-legacy.otlp.json"],
])("a real AI SDK export in %s", (_, file) => {
  it("is one session per conversation id, a turn per trace, an interaction per agent call", () => {
    const { from, sessions } = read(path(file));
    expect(from).toBe("otlp");
    expect(sessions).toHaveLength(1);
    const s = sessions[0]!;
    expect(s.id).toBe("conv-42");
    expect(s.agents.map((a) => [a.id, a.tools?.map((t) => t.name)])).toEqual([
      ["triage", ["classify"]],
      ["billing", ["lookup_charges", "refund"]],
    ]);
    expect(s.turns.map((t) => [t.user_message, t.agent_interactions.map((x) => x.agent_id)])).toEqual([
      ["I was charged twice for order 77.", ["triage", "billing"]],
      ["Did the refund go through?", ["billing"]],
    ]);
    // The rejected call is kept with the model's own arguments; the run one failed in the tool.
    const calls = s.turns[0]!.agent_interactions[1]!.agent_steps.map((st) => st.tool_call);
    expect(calls.map((c) => [c!.tool_name, c!.parameters, c!.error])).toEqual([
      ["lookup_charges", { order_id: "77" }, undefined],
      ["refund", { charge_id: 2, reason: "duplicate" }, undefined],
      ["refund", { charge_id: "c2", reason: "duplicate" }, "payment provider unavailable"],
    ]);
  });

  it("gives the bad call and the tool's failure, apart, and says the call was not run", async () => {
    const { analyses, sources } = await analyzeSession(path(file), { judge: "none" });
    expect(
      analyses[0]!.tool_validation.map((f) => [f.turn_index, f.agent_id, f.tool_name, f.type, f.parameters]),
    ).toEqual([
      [0, "billing", "refund", "invalid_parameter_type", ["charge_id"]],
      [0, "billing", "refund", "tool_error", []],
    ]);
    expect(sources[0]!.notes).toEqual([expect.stringMatching(/the model called refund and it was not run/)]);
  });
});

describe("a real OpenInference export (openinference-instrumentation-openai)", () => {
  it("reads the instrumentation's LLM spans and the app's AGENT and TOOL spans", async () => {
    const file = path("examples/sessions/openinference.otlp.json");
    const { sessions } = read(file);
    expect(sessions.map((s) => [s.id, s.agents.map((a) => [a.id, a.tools?.map((t) => t.name)])])).toEqual([
      ["chat-7", [["forecaster", ["get_weather"]]]],
    ]);
    expect(sessions[0]!.turns[0]).toMatchObject({
      user_message: "What's the weather in Porto?",
      final_response: "It is 19 °C and sunny in Porto.",
    });
    const { analyses } = await analyzeSession(file, { judge: "none" });
    expect(analyses[0]!.tool_validation.map((f) => [f.tool_name, f.type, f.parameters])).toEqual([
      ["get_weather", "hallucinated_parameter", ["units"]],
    ]);
  });
});

describe("other OTLP vocabularies", () => {
  it("reads OpenInference spans (tools from llm.tools, session.id) and the older event form", async () => {
    const { analyses } = await analyzeSession(
      path("test/fixtures/sessions/openinference-and-events.otlp.json"),
      {
        judge: "none",
      },
    );
    expect(analyses.map((a) => a.session_id)).toEqual(["chat-7", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]);
    // The model asked for `units`; the tool ran without it — the model's own arguments are what is checked.
    expect(analyses[0]!.tool_validation.map((f) => [f.agent_id, f.type, f.parameters])).toEqual([
      ["forecaster", "hallucinated_parameter", ["units"]],
    ]);
    const { sessions } = read(path("test/fixtures/sessions/openinference-and-events.otlp.json"));
    expect(sessions[1]!.turns[0]).toMatchObject({ user_message: "What is 2 + 2?", final_response: "4" });
  });
});

describe("files that are not traces", () => {
  it("an OTLP metrics export is named as one", () => {
    const e = inputError(() => importSessions({ resourceMetrics: [] }, { file: "m.json" }));
    expect(e.message).toBe('m.json: an OTLP metrics export, not a trace; expected {"resourceSpans": [...]}');
  });

  it("a trace without spans, or a span without its ids, is bad input at its JSON path", () => {
    expect(inputError(() => importSessions({ resourceSpans: [] }, { file: "t.json" })).message).toBe(
      "t.json:resourceSpans: the trace has no spans",
    );
    const e = inputError(() =>
      importSessions(
        { resourceSpans: [{ scopeSpans: [{ spans: [{ name: "x", spanId: "1" }] }] }] },
        { file: "t.json" },
      ),
    );
    expect(e.place).toBe("resourceSpans[0].scopeSpans[0].spans[0].traceId");
  });
});
