import { MockLanguageModelV4 } from "ai/test";
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
});
