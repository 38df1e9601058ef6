import { MockLanguageModelV3, MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { LlmJudge } from "../../src/judge/index.ts";

const answer = (text: string, input = 100, output = 20, cacheRead?: number) => ({
  content: [{ type: "text" as const, text }],
  finishReason: { unified: "stop" as const, raw: undefined },
  usage: {
    inputTokens: { total: input, noCache: input - (cacheRead ?? 0), cacheRead, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  },
  warnings: [],
});

describe("LlmJudge with MockLanguageModelV4", () => {
  it("records cached input tokens and marks the system prompt as an Anthropic cache breakpoint", async () => {
    const verdict = { id: "style", reasoning: "r", value: 7 };
    const model = new MockLanguageModelV4({
      doGenerate: [answer(JSON.stringify({ verdicts: [verdict] }), 100, 20, 64)],
    });
    const judge = new LlmJudge({ model });
    const response = await judge.judge({
      items: [
        { key: { dimension: "fluency", proposition_id: "style", trial: 1 }, kind: "score", claim: "c" },
      ],
      context: { trajectory: { title: "Bob", text: "Bob acts: [TALK] hi" } },
      doubleCheck: false,
    });
    expect(response.usage).toEqual({ input_tokens: 100, output_tokens: 20, cached_input_tokens: 64 });
    expect(judge.totals.usage.cached_input_tokens).toBe(64);
    const system = model.doGenerateCalls[0]!.prompt[0]!;
    expect(system).toMatchObject({
      role: "system",
      providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
    });
  });

  it("reads the structured answer and the usage, and names the mock in its descriptor", async () => {
    const model = new MockLanguageModelV4({
      provider: "mock",
      modelId: "judge-1",
      doGenerate: [
        answer("not json at all", 50, 5),
        answer(
          JSON.stringify({
            verdicts: [{ id: "style", reasoning: "r", value: 7, confidence: 0.6 }],
          }),
        ),
      ],
    });
    const judge = new LlmJudge({ model, temperature: 0 });
    const response = await judge.judge({
      items: [
        {
          key: { dimension: "fluency", proposition_id: "style", trial: 2 },
          kind: "score",
          claim: "Varied wording.",
        },
      ],
      context: { trajectory: { title: "Bob", text: "Bob acts: [TALK] hi" } },
      doubleCheck: false,
    });
    expect(response.verdicts).toEqual([
      {
        ok: true,
        key: { dimension: "fluency", proposition_id: "style", trial: 2 },
        score: 7,
        reasoning: "r",
      },
    ]);
    expect(response).toMatchObject({ calls: 2, usage: { input_tokens: 150, output_tokens: 25 } });
    expect(model.doGenerateCalls[1]!.temperature).toBe(0);
    expect(model.doGenerateCalls[1]!.responseFormat).toMatchObject({ type: "json", name: "claim_scores" });
    expect(judge.descriptor).toMatchObject({ provider: "mock", model: "judge-1", temperature: 0 });
  });

  it("passes the model a schema whose length is the number of claims, the ids named in the prompt", async () => {
    const verdict = (id: string) => ({ id, reasoning: "r", value: true, confidence: 0.6 });
    const model = new MockLanguageModelV4({
      doGenerate: [answer(JSON.stringify({ verdicts: [verdict("calm"), verdict("brief")] }))],
    });
    const judge = new LlmJudge({ model });
    const key = (proposition_id: string) => ({ dimension: "fluency", proposition_id, trial: 1 });
    const response = await judge.judge({
      items: ["calm", "brief"].map((id) => ({ key: key(id), kind: "check" as const, claim: `Claim ${id}.` })),
      context: { trajectory: { title: "Bob", text: "Bob acts: [TALK] hi" } },
      doubleCheck: false,
    });
    expect(response.verdicts.map((v) => v.ok)).toEqual([true, true]);
    const format = model.doGenerateCalls[0]!.responseFormat;
    expect(format).toMatchObject({
      type: "json",
      name: "claim_checks",
      schema: {
        properties: {
          verdicts: { minItems: 2, maxItems: 2, items: { properties: { id: { type: "string" } } } },
        },
      },
    });
  });

  it("hands a current model the prompt and the answer schema directly, and reads a single claim's verdict", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: [
        answer("not json at all", 10, 1),
        answer(JSON.stringify({ reasoning: "fits", value: 6 }), 30, 4),
      ],
    });
    const judge = new LlmJudge({ model, temperature: 0.2 });
    const response = await judge.judge({
      items: [
        { key: { dimension: "adherence", proposition_id: "tone", trial: 1 }, kind: "score", claim: "Calm." },
      ],
      context: { trajectory: { title: "Bob", text: "" }, action: { name: "Bob", text: "hi" } },
      doubleCheck: false,
    });
    expect(response.verdicts).toEqual([
      {
        ok: true,
        key: { dimension: "adherence", proposition_id: "tone", trial: 1 },
        score: 6,
        reasoning: "fits",
      },
    ]);
    // The unparseable first answer was retried, and both calls' tokens counted.
    expect(response).toMatchObject({ calls: 2, usage: { input_tokens: 40, output_tokens: 5 } });
    const call = model.doGenerateCalls[1]!;
    expect(call.prompt.map((m) => m.role)).toEqual(["system", "user"]);
    expect(call.prompt[1]).toMatchObject({
      content: [{ type: "text", text: expect.stringContaining('<claim id="tone">Calm.</claim>') }],
    });
    expect(call.responseFormat).toMatchObject({
      type: "json",
      name: "claim_scores",
      schema: { required: ["reasoning", "value"] },
    });
    expect(call.temperature).toBe(0.2);
  });

  it("still judges through generateText with a model of the previous specification", async () => {
    const model = new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: "text", text: JSON.stringify({ reasoning: "ok", value: 3 }) }],
        finishReason: { unified: "stop", raw: undefined },
        usage: {
          inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 3, text: 3, reasoning: undefined },
        },
        warnings: [],
      },
    });
    const judge = new LlmJudge({ model });
    const response = await judge.judge({
      items: [
        { key: { dimension: "fluency", proposition_id: "style", trial: 1 }, kind: "score", claim: "c" },
      ],
      context: { trajectory: { title: "Bob", text: "Bob acts: [TALK] hi" } },
      doubleCheck: false,
    });
    expect(response.verdicts[0]).toMatchObject({ ok: true, score: 3, reasoning: "ok" });
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 3 });
    expect(model.doGenerateCalls).toHaveLength(1);
  });
});
