import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { generateText, streamText, wrapLanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { actionGate, historyFromPrompt, memoryCorrectionLog } from "../../src/corrections/index.ts";
import { openStore } from "../../src/store/index.ts";
import { ALL_SETS, drift, driftJudge, marta } from "./gate-fixtures.ts";

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function generated(text: string): LanguageModelV4GenerateResult {
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: undefined },
    usage: USAGE,
    warnings: [],
  };
}

function streamed(text: string): LanguageModelV4StreamPart[] {
  const words = text.split(/(?<= )/);
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t1" },
    ...words.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t1", delta })),
    { type: "text-end", id: "t1" },
    { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: USAGE },
  ];
}

/** A model that drifts first and answers with the scripted retries after. */
function driftingModel() {
  const texts = [drift.drift, ...drift.retries];
  let n = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => generated(texts[Math.min(n++, texts.length - 1)]!),
    doStream: async () => ({ stream: convertArrayToReadableStream(streamed(drift.drift)) }),
  });
}

function gated(model: MockLanguageModelV4, threshold = 7) {
  const sink = memoryCorrectionLog();
  const wrapped = wrapLanguageModel({
    model,
    middleware: actionGate({
      agent: marta,
      gate: {
        judge: driftJudge(new Map([[drift.drift, 1]])),
        config: { gate_adherence_enabled: true, gate_adherence_threshold: threshold },
        propositions: ALL_SETS,
        log: sink.log,
      },
    }),
  });
  return { wrapped, sink };
}

describe("actionGate middleware", () => {
  it("generateText on a wrapped model returns the corrected text, and the log says corrected", async () => {
    const model = driftingModel();
    const { wrapped, sink } = gated(model);
    const result = await generateText({ model: wrapped, prompt: drift.stimulus });
    expect(result.text).toBe(drift.retries[0]);
    expect(sink.entries).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({
      outcome: "corrected",
      original_text: drift.drift,
      corrected_text: drift.retries[0],
      attempt_number: 2,
    });
  });

  it("writes the check to a store's correction_logs through the log sink", async () => {
    const store = await openStore("memory://");
    try {
      const wrapped = wrapLanguageModel({
        model: driftingModel(),
        middleware: actionGate({
          agent: marta,
          gate: {
            judge: driftJudge(new Map([[drift.drift, 1]])),
            config: { gate_adherence_enabled: true },
            propositions: ALL_SETS,
            log: async (entry) => {
              await store.corrections.add(entry);
            },
          },
        }),
      });
      const result = await generateText({ model: wrapped, prompt: drift.stimulus });
      const [row] = await store.corrections.list({ agent_id: "marta" });
      expect(row).toMatchObject({ outcome: "corrected", corrected_text: result.text, attempt_number: 2 });
    } finally {
      await store.close();
    }
  });

  it("regenerates with the feedback appended to the prompt as a user message", async () => {
    const model = driftingModel();
    const { wrapped } = gated(model);
    await generateText({ model: wrapped, prompt: drift.stimulus });
    expect(model.doGenerateCalls).toHaveLength(2);
    const retryPrompt = model.doGenerateCalls[1]!.prompt;
    const last = retryPrompt[retryPrompt.length - 1]!;
    expect(last.role).toBe("user");
    expect(JSON.stringify(last.content)).toContain("Recommendation for adherence");
    expect(retryPrompt.slice(0, -1)).toEqual(model.doGenerateCalls[0]!.prompt);
  });

  it("adds up the usage of every generation", async () => {
    const { wrapped } = gated(driftingModel());
    const result = await generateText({ model: wrapped, prompt: drift.stimulus });
    expect(result.usage.inputTokens).toBe(20);
    expect(result.usage.outputTokens).toBe(10);
  });

  it("streamText yields only the checked text", async () => {
    const model = driftingModel();
    const { wrapped, sink } = gated(model);
    const result = streamText({ model: wrapped, prompt: drift.stimulus });
    const chunks: string[] = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    expect(chunks.join("")).toBe(drift.retries[0]);
    expect(chunks.some((c) => drift.drift.includes(c.trim()) && c.trim() !== "")).toBe(false);
    expect(sink.entries[0]).toMatchObject({ outcome: "corrected" });
  });

  it("streamText releases the original stream when it passes", async () => {
    const model = driftingModel();
    const { wrapped, sink } = gated(model, 1);
    const result = streamText({ model: wrapped, prompt: drift.stimulus });
    const chunks: string[] = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    expect(chunks.join("")).toBe(drift.drift);
    expect(chunks.length).toBeGreaterThan(1);
    expect(sink.entries[0]).toMatchObject({ outcome: "passed" });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it("reads the agent's history from the prompt: assistant messages are its own", () => {
    expect(
      historyFromPrompt([
        { role: "system", content: "You are Marta." },
        { role: "user", content: [{ type: "text", text: "Engine?" }] },
        { role: "assistant", content: [{ type: "text", text: "Hot." }] },
      ]),
    ).toEqual([{ text: "Engine?", from: "user" }, { text: "Hot." }]);
  });
});
