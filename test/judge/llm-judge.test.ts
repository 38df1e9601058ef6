import { createOpenAI } from "@ai-sdk/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { JudgeError } from "../../src/core/index.ts";
import type { JudgeItem, JudgeRequest, LlmJudgeOptions } from "../../src/judge/index.ts";
import { isFatalJudgeError, LlmJudge, PROMPT_VERSION } from "../../src/judge/index.ts";
import type { FakeOpenAIServer, FakeOpenAIServerOptions } from "../../src/testing/index.ts";
import { claimIds, messageText, startFakeOpenAIServer } from "../../src/testing/index.ts";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(
  serverOptions: FakeOpenAIServerOptions = {},
  judgeOptions: Partial<LlmJudgeOptions> = {},
) {
  server = await startFakeOpenAIServer(serverOptions);
  const sleeps: number[] = [];
  const judge = new LlmJudge({
    model: createOpenAI({ baseURL: server.url, apiKey: "test-key" }).chat("fake-model"),
    descriptor: { provider: "openai", model: "fake-model", base_url: server.url },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...judgeOptions,
  });
  return { server, judge, sleeps };
}

const item = (id: string, kind: JudgeItem["kind"] = "score"): JudgeItem => ({
  key: { dimension: "adherence", proposition_id: id, agent_id: "marta", trial: 1 },
  kind,
  claim: `Marta keeps to her persona (${id}).`,
});

const request = (items: JudgeItem[], doubleCheck = false): JudgeRequest => ({
  items,
  context: {
    persona: { name: "Marta", text: "A talkative baker." },
    trajectory: { title: "Marta in #general", text: "#1 Marta acts: [TALK] Bom dia!" },
  },
  doubleCheck,
});

/** A responder that scores every claim with a fixed value. */
const scoreAll =
  (value: number | ((callIndex: number) => number)) =>
  (req: Parameters<NonNullable<FakeOpenAIServerOptions["respond"]>>[0], callIndex: number) => ({
    verdicts: claimIds(req).ids.map((id) => ({
      id,
      reasoning: `because ${id}`,
      value: typeof value === "number" ? value : value(callIndex),
      confidence: 0.9,
    })),
  });

describe("LlmJudge against the fake OpenAI server", () => {
  it("scores a single item", async () => {
    const { judge, server } = await setup({ scoreFor: () => 6 });
    const response = await judge.judge(request([item("style")]));
    expect(response.verdicts).toEqual([
      { ok: true, key: item("style").key, score: 6, reasoning: "Fake reasoning for style." },
    ]);
    expect(response.calls).toBe(1);
    expect(server.stats.calls).toBe(1);
  });

  it("scores a batch of items in one call, in item order", async () => {
    const scores: Record<string, number> = { a: 1, b: 5, c: 9 };
    const { judge, server } = await setup({ scoreFor: (id) => scores[id]! });
    const response = await judge.judge(request([item("a"), item("b"), item("c")]));
    expect(response.verdicts.map((v) => (v.ok ? v.score : null))).toEqual([1, 5, 9]);
    expect(server.stats.calls).toBe(1);
  });

  it("sends the system prompt, the delimited data and the answer schema", async () => {
    const { judge, server } = await setup();
    await judge.judge(request([item("a")]));
    const sent = server.stats.requests[0]!;
    expect(sent.messages[0]!.role).toBe("system");
    expect(messageText(sent.messages[0]!)).toMatch(/is absent, give 9/);
    expect(messageText(sent.messages[1]!)).toContain("<trajectory");
    expect(sent.response_format?.type).toBe("json_schema");
    expect(sent.response_format?.json_schema?.name).toBe("claim_scores");
  });

  it("the schema sent in strict mode asks for one verdict per claim, the ids named in the prompt", async () => {
    const { judge, server } = await setup();
    await judge.judge(request([item("a"), item("b"), item("c")]));
    const format = server.stats.requests[0]!.response_format!.json_schema!;
    expect(format.strict).toBe(true);
    expect(format.schema).not.toHaveProperty("$schema");
    const verdicts = format.schema!.properties!.verdicts!;
    expect(verdicts).toMatchObject({ minItems: 3, maxItems: 3 });
    expect(verdicts.items!.properties!.id).toEqual({ type: "string" });
    for (const id of ["a", "b", "c"])
      expect(messageText(server.stats.requests[0]!.messages[1]!)).toContain(`id="${id}"`);
  });

  it("the schema sent for one claim is that claim's verdict alone: reasoning, then value", async () => {
    const { judge, server } = await setup();
    await judge.judge(request([item("style")]));
    const schema = server.stats.requests[0]!.response_format!.json_schema!.schema!;
    expect(Object.keys(schema.properties!)).toEqual(["reasoning", "value"]);
    expect(schema.properties!.value).toMatchObject({ type: "integer", minimum: 0, maximum: 9 });
  });

  it("double-check makes two calls and the revised value replaces the first", async () => {
    const { judge, server } = await setup({ respond: scoreAll((call) => (call === 0 ? 8 : 3)) });
    const response = await judge.judge(request([item("a")], true));
    expect(response.calls).toBe(2);
    expect(response.verdicts[0]).toMatchObject({ ok: true, score: 3 });
    const second = server.stats.requests[1]!.messages;
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(JSON.parse(messageText(second[2]!)).verdicts[0].value).toBe(8);
    expect(messageText(second[3]!)).toMatch(/revise/);
  });

  it("a 429 is retried no sooner than its Retry-After", async () => {
    const { judge, sleeps, server } = await setup({
      faults: [{ type: "429", retryAfterSeconds: 3 }],
      scoreFor: () => 4,
    });
    const response = await judge.judge(request([item("a")]));
    expect(response.verdicts[0]).toMatchObject({ ok: true, score: 4 });
    expect(server.stats.calls).toBe(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(3000);
  });

  it("a retry-after-ms header is waited out for real with the default sleep", async () => {
    server = await startFakeOpenAIServer({
      faults: [{ type: "429", retryAfterSeconds: 0, retryAfterMs: 120 }],
    });
    const judge = new LlmJudge({
      model: createOpenAI({ baseURL: server.url, apiKey: "test-key" }).chat("fake-model"),
      backoff: { initialMs: 1 },
    });
    const started = Date.now();
    const response = await judge.judge(request([item("a")]));
    expect(response.verdicts[0]!.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  it("a 500 is retried with backoff", async () => {
    const { judge, sleeps } = await setup({ faults: [{ type: "500" }, { type: "500" }] });
    const response = await judge.judge(request([item("a")]));
    expect(response.verdicts[0]!.ok).toBe(true);
    expect(response.calls).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]!).toBeGreaterThan(0);
  });

  it("a malformed answer is retried and then judged", async () => {
    const { judge } = await setup({ faults: [{ type: "malformed" }], scoreFor: () => 2 });
    const response = await judge.judge(request([item("a")]));
    expect(response.verdicts[0]).toMatchObject({ ok: true, score: 2 });
    expect(response.calls).toBe(2);
  });

  it("answers that stay malformed give errored verdicts, not scores", async () => {
    const { judge, server } = await setup({ faults: () => ({ type: "malformed" }) }, { maxRetries: 2 });
    const response = await judge.judge(request([item("a"), item("b")]));
    expect(server.stats.calls).toBe(3);
    for (const verdict of response.verdicts) {
      expect(verdict.ok).toBe(false);
      expect(verdict).not.toHaveProperty("score");
      if (!verdict.ok)
        expect(verdict.error).toMatchObject({
          name: "JudgeError",
          message: expect.stringMatching(/malformed/),
        });
    }
  });

  it("out-of-range scores are retried, then errored", async () => {
    const { judge, server } = await setup({ faults: () => ({ type: "out-of-range" }) }, { maxRetries: 1 });
    const response = await judge.judge(request([item("a")]));
    expect(server.stats.calls).toBe(2);
    expect(response.verdicts[0]).toMatchObject({ ok: false, error: { name: "JudgeError" } });
  });

  it("a hanging call is cut by the timeout and errored", async () => {
    const { judge } = await setup({ faults: () => ({ type: "hang" }) }, { timeoutMs: 150, maxRetries: 1 });
    const started = Date.now();
    const response = await judge.judge(request([item("a")]));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(response.calls).toBe(2);
    expect(response.verdicts[0]).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/within 150 ms/) },
    });
  });

  it("never has more calls in flight than its concurrency", async () => {
    const { judge, server } = await setup({ latencyMs: 15 }, { concurrency: 4 });
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, i) => judge.judge(request([item(`p${i}`)]))),
    );
    expect(responses.every((r) => r.verdicts[0]!.ok)).toBe(true);
    expect(server.stats.maxInFlight).toBe(4);
  });

  it("sums token usage over every call, retries included", async () => {
    const { judge, server } = await setup({ faults: [{ type: "malformed" }] });
    const response = await judge.judge(request([item("a")], true));
    expect(response.calls).toBe(3);
    expect(server.stats.calls).toBe(3);
    expect(response.usage.input_tokens).toBeGreaterThan(0);
    expect(response.usage.output_tokens).toBeGreaterThan(0);
    // The fake server's usage is ceil(chars / 4) of every message; recompute it from what it received.
    const expectedInput = server.stats.requests.reduce(
      (sum, r) => sum + Math.ceil(r.messages.reduce((s, m) => s + messageText(m).length, 0) / 4),
      0,
    );
    expect(response.usage.input_tokens).toBe(expectedInput);
    expect(judge.totals).toEqual({ calls: 3, usage: response.usage });
  });

  it("asks again only about claims an answer left out", async () => {
    const { judge, server } = await setup({
      respond: (req, callIndex) => {
        const answer = scoreAll(5)(req, callIndex);
        if (callIndex === 0) answer.verdicts = answer.verdicts.filter((v) => v.id !== "b");
        return answer;
      },
    });
    const response = await judge.judge(request([item("a"), item("b"), item("c")]));
    expect(response.verdicts.map((v) => v.ok)).toEqual([true, true, true]);
    expect(server.stats.calls).toBe(2);
    expect(claimIds(server.stats.requests[1]!).ids).toEqual(["b"]);
    // The follow-up asks about the left-out claim alone, for its verdict alone.
    const schema = server.stats.requests[1]!.response_format!.json_schema!.schema!;
    expect(Object.keys(schema.properties!)).toEqual(["reasoning", "value"]);
  });

  it("a claim still left out when no retries remain is errored", async () => {
    const { judge } = await setup(
      { respond: (req, i) => ({ verdicts: scoreAll(5)(req, i).verdicts.filter((v) => v.id !== "b") }) },
      { maxRetries: 0 },
    );
    const response = await judge.judge(request([item("a"), item("b")]));
    expect(response.verdicts[0]).toMatchObject({ ok: true, score: 5 });
    expect(response.verdicts[1]).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/left out/) },
    });
  });

  it("an answer naming a claim it was not given is retried", async () => {
    const { judge, server } = await setup({
      respond: (req, callIndex) => {
        const answer = scoreAll(4)(req, callIndex);
        if (callIndex === 0) answer.verdicts.push({ ...answer.verdicts[0]!, id: "invented" });
        return answer;
      },
    });
    const response = await judge.judge(request([item("a")]));
    expect(response.verdicts[0]).toMatchObject({ ok: true, score: 4 });
    expect(server.stats.calls).toBe(2);
  });

  it("an answer with a claim twice is retried", async () => {
    const { judge, server } = await setup({
      respond: (req, callIndex) => {
        const answer = scoreAll(4)(req, callIndex);
        if (callIndex === 0) answer.verdicts.push({ ...answer.verdicts[0]!, value: 1 });
        return answer;
      },
    });
    const response = await judge.judge(request([item("a")]));
    expect(response.verdicts[0]).toMatchObject({ ok: true, score: 4 });
    expect(server.stats.calls).toBe(2);
  });

  it("a 400 errors the items at once without retrying", async () => {
    const { judge, server } = await setup({
      faults: [{ type: "status", status: 400, message: "bad schema" }],
    });
    const response = await judge.judge(request([item("a")]));
    expect(server.stats.calls).toBe(1);
    expect(response.verdicts[0]).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/HTTP 400/) },
    });
  });

  it("a rejected API key throws a fatal JudgeError that does not quote the key", async () => {
    server = await startFakeOpenAIServer({ requireApiKey: "the-right-key" });
    const judge = new LlmJudge({
      model: createOpenAI({ baseURL: server.url, apiKey: "sk-wrongwrongwrong" }).chat("m"),
    });
    const error = await judge.judge(request([item("a"), item("b", "count")])).catch((e: unknown) => e);
    expect(JudgeError.isInstance(error)).toBe(true);
    expect(isFatalJudgeError(error)).toBe(true);
    expect(error).toMatchObject({ kind: "auth", retryable: false, status: 401, exitCode: 3 });
    expect((error as Error).message).not.toContain("sk-wrongwrongwrong");
    expect(JSON.stringify(judge.descriptor)).not.toContain("sk-wrong");
  });

  it("stops with the caller's abort reason", async () => {
    const { judge } = await setup({ faults: () => ({ type: "hang" }) });
    const controller = new AbortController();
    const pending = judge.judge(request([item("a")]), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user cancelled")), 50);
    await expect(pending).rejects.toThrow("user cancelled");
  });

  it("checks claims as true or false", async () => {
    const { judge, server } = await setup({ scoreFor: (id) => (id === "yes" ? 8 : 1) });
    const response = await judge.judge(request([item("yes", "check"), item("no", "check")]));
    expect(response.verdicts.map((v) => (v.ok ? v.value : null))).toEqual([true, false]);
    expect(server.stats.requests[0]!.response_format?.json_schema?.name).toBe("claim_checks");
  });

  it("counts ideas in a call of its own, beside a batch of scores", async () => {
    const { judge, server } = await setup({ scoreFor: () => 7 });
    const response = await judge.judge(request([item("a"), item("ideas", "count"), item("b")]));
    expect(server.stats.calls).toBe(2);
    expect(response.verdicts[0]).toMatchObject({ ok: true, score: 7 });
    expect(response.verdicts[1]).toMatchObject({
      ok: true,
      count: 3,
      ideas: expect.arrayContaining(["a neighbourhood tool library"]),
    });
    expect(response.verdicts[2]).toMatchObject({ ok: true, score: 7 });
  });

  it("a count that disagrees with its list of ideas is retried", async () => {
    const { judge, server } = await setup({
      respond: (_req, callIndex) => ({
        reasoning: "r",
        ideas: ["one", "two"],
        count: callIndex === 0 ? 5 : 2,
      }),
    });
    const response = await judge.judge(request([item("ideas", "count")]));
    expect(server.stats.calls).toBe(2);
    expect(response.verdicts[0]).toMatchObject({ ok: true, count: 2, ideas: ["one", "two"] });
  });

  it("ask() returns any structured answer through the same machinery", async () => {
    const { judge, server } = await setup({ faults: [{ type: "500" }] });
    const schema = z.object({ completed: z.boolean(), steps: z.array(z.string()), note: z.string() });
    const result = await judge.ask({
      system: "Decide whether the task was completed.",
      messages: [{ role: "user", content: "<data>transcript</data>" }],
      schema,
      name: "task_completion",
    });
    expect(result.output).toEqual({ completed: true, steps: [], note: "fake" });
    expect(result.calls).toBe(2);
    expect(server.stats.requests[1]!.response_format?.json_schema?.name).toBe("task_completion");
  });

  it("describes itself with the prompt version and without credentials", async () => {
    const { judge } = await setup({}, { temperature: 0.2 });
    expect(judge.descriptor).toEqual({
      provider: "openai",
      model: "fake-model",
      base_url: server!.url,
      temperature: 0.2,
      prompt_version: PROMPT_VERSION,
    });
    expect(JSON.stringify(judge.descriptor)).not.toContain("test-key");
  });

  it("an empty request makes no call", async () => {
    const { judge, server } = await setup();
    expect(await judge.judge(request([]))).toEqual({
      verdicts: [],
      usage: { input_tokens: 0, output_tokens: 0 },
      calls: 0,
    });
    expect(server.stats.calls).toBe(0);
  });
});
