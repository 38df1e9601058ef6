// Imported sessions as a persona transcript: the persona from what the source recorded (a system prompt, an Agents
// SDK agent's instructions), ids made of the source's own, several sessions as channels. The fixtures are those of
// test/sessions/imported-traces.test.ts and the Agents SDK export (each README says where a file comes from).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { importSessions, readSessionsTranscript, sessionsTranscript } from "../../src/sessions/index.ts";

const INSPECT = "test/fixtures/inspect/popularity.json";
const LANGFUSE = "test/fixtures/langfuse/hand-written-support.json";
const LANGSMITH = "test/fixtures/langsmith/hand-written-weather-runs.json";
const AGENTS_SDK = "test/fixtures/sessions/openai-agents-export.json";
const OTLP = "test/fixtures/sessions/openinference-and-events.otlp.json";

describe("imported sessions as a transcript", () => {
  it("takes each agent's persona from the system prompt the source recorded", () => {
    const inspect = JSON.parse(readFileSync(INSPECT, "utf8"));
    const system = inspect.samples[0].messages[0];
    expect(system.role).toBe("system");
    expect(readSessionsTranscript([INSPECT]).transcript.agents).toEqual([
      { id: "openai/gpt-4o-mini", name: "openai/gpt-4o-mini", persona: system.content.trim() },
    ]);
    expect(readSessionsTranscript([LANGFUSE]).transcript.agents[0]!.persona).toBe(
      "You are a support agent. Use the tools to look orders up.",
    );
    expect(readSessionsTranscript([LANGSMITH]).transcript.agents[0]!.persona).toMatch(
      /^You are a cheerful weather assistant\./,
    );
    expect(readSessionsTranscript([AGENTS_SDK]).transcript.agents).toEqual([
      { id: "Triage", name: "Triage", persona: "Route the user." },
    ]);
  });

  it("leaves out an agent without one, its words kept as what the others heard, and says so", () => {
    const { transcript, leftOut, notes } = readSessionsTranscript([AGENTS_SDK]);
    expect(leftOut).toEqual(["Billing"]);
    expect(notes[0]).toBe(
      "Billing: no system prompt or instructions recorded, so no persona; left out of the evaluation",
    );
    expect(transcript.messages.map((m) => m.sender)).toEqual(["user", "Triage", "agent:Billing"]);
  });

  it("lets in an agent given a persona apart", () => {
    const { transcript, leftOut } = readSessionsTranscript([AGENTS_SDK], {
      personas: { Billing: "A careful billing clerk." },
    });
    expect(leftOut).toEqual([]);
    expect(transcript.agents.map((a) => [a.id, a.persona])).toEqual([
      ["Triage", "Route the user."],
      ["Billing", "A careful billing clerk."],
    ]);
  });

  it("refuses sessions none of whose agents has a persona, naming the file", () => {
    const file = "test/fixtures/langsmith/wrap-openai-default.json";
    expect(() => readSessionsTranscript([file])).toThrow(InputError);
    expect(() => readSessionsTranscript([file])).toThrow(`${file}: no agent has a persona`);
  });

  it("makes message ids of the source's ids: the same file gives the same transcript", () => {
    const first = readSessionsTranscript([LANGFUSE]).transcript;
    expect(readSessionsTranscript([LANGFUSE]).transcript).toEqual(first);
    // A Langfuse turn is a trace, an interaction its AGENT observation.
    expect(first.messages.map((m) => m.id)).toEqual([
      "support-session-42/7f3c1e0a-0001-4c1e-9d7e-langfuse0001/user",
      "support-session-42/7f3c1e0a-0001-4c1e-9d7e-langfuse0001/obs-agent-1",
      "support-session-42/7f3c1e0a-0002-4c1e-9d7e-langfuse0002/user",
      "support-session-42/7f3c1e0a-0002-4c1e-9d7e-langfuse0002/obs-agent-2",
    ]);
    expect(first.messages.map((m) => m.at)).toEqual([
      "2000-01-01T00:00:00.000Z",
      "2000-01-01T00:00:01.000Z",
      "2000-01-01T00:00:02.000Z",
      "2000-01-01T00:00:03.000Z",
    ]);
  });

  it("keeps on each message the ids of the session, trace and observation it came from", () => {
    const { messages } = readSessionsTranscript([LANGFUSE]).transcript;
    const session = { langfuse_session_id: "support-session-42" };
    const trace = { ...session, langfuse_trace_id: "7f3c1e0a-0001-4c1e-9d7e-langfuse0001" };
    expect(messages.slice(0, 2).map((m) => m.source_ids)).toEqual([
      trace,
      { ...trace, langfuse_observation_id: "obs-agent-1" },
    ]);
  });

  it("keeps an OTLP import's trace, span and session ids as otlp_trace_id, otlp_span_id, otlp_session_id", () => {
    const { messages } = readSessionsTranscript([OTLP], {
      personas: { forecaster: "A terse forecaster.", assistant: "A helpful assistant." },
    }).transcript;
    const forecaster = messages.find((m) => m.sender === "forecaster")!;
    expect(forecaster.source_ids).toEqual({
      otlp_session_id: "chat-7",
      otlp_trace_id: "a".repeat(32),
      otlp_span_id: "a000000000000001",
    });
  });

  it("a message whose source kept no ids has no source_ids key at all", () => {
    const { sessions } = importSessions(
      {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi." },
          { role: "assistant", content: "Hello." },
        ],
      },
      { file: "chat.json" },
    );
    const { transcript } = sessionsTranscript([{ file: "chat.json", sessions }]);
    expect(transcript.messages.length).toBe(2);
    for (const m of transcript.messages) expect(Object.keys(m)).not.toContain("source_ids");
  });

  it("makes each session a channel, sessions of the same id apart", () => {
    const { sessions } = importSessions(JSON.parse(readFileSync(INSPECT, "utf8")), { file: INSPECT });
    const { transcript } = sessionsTranscript([
      { file: "a.json", sessions },
      { file: "b.json", sessions: sessions.slice(0, 1) },
    ]);
    expect(transcript.channels!.map((c) => c.id)).toEqual([
      "sample-1-epoch-1",
      "sample-2-epoch-1",
      "sample-3-epoch-1",
      "sample-1-epoch-1#2",
    ]);
    expect(new Set(transcript.messages.map((m) => m.id)).size).toBe(8);
  });

  it("reads an OpenAI chat log's system message as every agent's description, a named one as its agent's", () => {
    const { sessions } = importSessions(
      {
        messages: [
          { role: "system", content: "Be brief." },
          { role: "system", name: "critic", content: "You find fault." },
          { role: "user", content: "Review this." },
          { role: "assistant", name: "writer", content: "Done." },
          { role: "assistant", name: "critic", content: "Too short." },
        ],
      },
      { file: "chat.json" },
    );
    expect(sessions[0]!.agents.map((a) => [a.id, a.description])).toEqual([
      ["writer", "Be brief."],
      ["critic", "Be brief.\n\nYou find fault."],
    ]);
  });
});
