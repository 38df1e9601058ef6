import { createOpenAI } from "@ai-sdk/openai";
import { generateText, Output, streamText, tool } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { FakeOpenAIServer, FakeOpenAIServerOptions } from "../../src/testing/index.ts";
import { startFakeOpenAIServer } from "../../src/testing/index.ts";

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: FakeOpenAIServerOptions = {}) {
  server = await startFakeOpenAIServer(options);
  return { server, model: createOpenAI({ baseURL: server.url, apiKey: "test-key" }).chat("fake-model") };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("fake OpenAI server", () => {
  it("listens on 127.0.0.1 with a base URL ending in /v1", async () => {
    const { server } = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`);
  });

  it("answers plain text and reports usage as a quarter of the characters", async () => {
    const { model } = await start({ respond: () => "12345678" });
    const result = await generateText({ model, prompt: "abcdefghij", maxRetries: 0 });
    expect(result.text).toBe("12345678");
    expect(result.usage.inputTokens).toBe(3);
    expect(result.usage.outputTokens).toBe(2);
  });

  it("counts the tokens it answered, the answer schema apart, and when the first call came", async () => {
    const { model, server } = await start({ respond: () => ({ ok: true }) });
    const before = Date.now();
    expect(server.stats.firstCallAt).toBeUndefined();
    const schema = z.object({ ok: z.boolean() });
    await generateText({ model, prompt: "abcdefghij", output: Output.object({ schema }), maxRetries: 0 });
    await generateText({ model, prompt: "abcdefghij", output: Output.object({ schema }), maxRetries: 0 });
    const format = JSON.stringify(server.stats.requests[0]!.response_format);
    expect(server.stats.tokens).toEqual({
      prompt: 2 * 3,
      completion: 2 * Math.ceil('{"ok":true}'.length / 4),
      schema: 2 * Math.ceil(format.length / 4),
    });
    expect(server.stats.firstCallAt).toBeGreaterThanOrEqual(before);
  });

  it("the default responder scores each claim of the last user message, deterministically", async () => {
    const { model, server } = await start();
    const schema = z.object({
      verdicts: z.array(
        z.object({
          id: z.string(),
          reasoning: z.string(),
          value: z.number().int(),
        }),
      ),
    });
    const ask = () =>
      generateText({
        model,
        prompt: '<claim id="one">x</claim> <claim id="two">y</claim>',
        output: Output.object({ schema }),
        maxRetries: 0,
      });
    const [a, b] = [await ask(), await ask()];
    expect(a.output.verdicts.map((v) => v.id)).toEqual(["one", "two"]);
    expect(a.output).toEqual(b.output);
    expect(server.stats.requests[0]!.response_format?.type).toBe("json_schema");
  });

  it("fills any other JSON schema with a minimal valid value", async () => {
    const { model } = await start();
    const schema = z.object({
      ok: z.boolean(),
      n: z.number().int().min(2),
      tags: z.array(z.string()),
      mood: z.enum(["calm", "sad"]),
    });
    const result = await generateText({
      model,
      prompt: "x",
      output: Output.object({ schema }),
      maxRetries: 0,
    });
    expect(result.output).toEqual({ ok: true, n: 2, tags: [], mood: "calm" });
  });

  it("returns tool calls when the responder asks for them", async () => {
    const { model, server } = await start({
      respond: () => ({ tool_calls: [{ name: "lookup_order", arguments: { order_id: "A-17" } }] }),
    });
    const result = await generateText({
      model,
      prompt: "Where is my order?",
      tools: { lookup_order: tool({ inputSchema: z.object({ order_id: z.string() }) }) },
      maxRetries: 0,
    });
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ toolName: "lookup_order", input: { order_id: "A-17" } });
    expect(server.stats.requests[0]?.tools?.[0]?.function.name).toBe("lookup_order");
  });

  it("streams when asked, as server-sent events", async () => {
    const { model } = await start({ respond: () => "Hello from the stream." });
    const result = streamText({ model, prompt: "hi", maxRetries: 0 });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe("Hello from the stream.");
    expect((await result.usage).outputTokens).toBe(Math.ceil("Hello from the stream.".length / 4));
  });

  it("streams tool calls too", async () => {
    const { model } = await start({ respond: () => ({ tool_calls: [{ name: "ping", arguments: {} }] }) });
    const result = streamText({
      model,
      prompt: "x",
      tools: { ping: tool({ inputSchema: z.object({}) }) },
      maxRetries: 0,
    });
    expect((await result.toolCalls).map((c) => c.toolName)).toEqual(["ping"]);
  });

  it("rejects requests without the required key, and never records the key", async () => {
    const { server } = await start({ requireApiKey: "k-1" });
    const body = { model: "m", messages: [{ role: "user", content: "x" }] };
    expect((await post(server.url, body)).status).toBe(401);
    expect((await post(server.url, body, { authorization: "Bearer wrong" })).status).toBe(401);
    expect((await post(server.url, body, { authorization: "Bearer k-1" })).status).toBe(200);
    expect(server.stats.calls).toBe(3);
    expect(JSON.stringify(server.stats)).not.toContain("k-1");
  });

  it("injects faults from an array by call index", async () => {
    const { server } = await start({
      faults: [{ type: "429", retryAfterSeconds: 7 }, undefined, { type: "500" }],
    });
    const body = { model: "m", messages: [{ role: "user", content: "x" }] };
    const first = await post(server.url, body);
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("7");
    expect((await post(server.url, body)).status).toBe(200);
    expect((await post(server.url, body)).status).toBe(500);
    expect((await post(server.url, body)).status).toBe(200);
  });

  it("injects faults from a function, with malformed and out-of-range answers", async () => {
    const faults = ["malformed", "out-of-range"] as const;
    const { server } = await start({ faults: (i) => (i < 2 ? { type: faults[i]! } : undefined) });
    const body = {
      model: "m",
      messages: [{ role: "user", content: '<claim id="a">x</claim>' }],
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "s",
          schema: {
            type: "object",
            properties: {
              verdicts: {
                type: "array",
                items: { type: "object", properties: { value: { type: "integer" } } },
              },
            },
          },
        },
      },
    };
    const content = async () =>
      ((await (await post(server.url, body)).json()) as { choices: Array<{ message: { content: string } }> })
        .choices[0]!.message.content;
    const malformed = await content();
    expect(() => JSON.parse(malformed)).toThrow();
    expect(JSON.parse(await content()).verdicts[0].value).toBe(12);
    expect(JSON.parse(await content()).verdicts[0].value).toBeLessThanOrEqual(9);
  });

  it("close() ends hanging requests", async () => {
    const { server } = await start({ faults: () => ({ type: "hang" }) });
    const pending = post(server.url, { model: "m", messages: [] }).then(
      () => "answered",
      () => "failed",
    );
    await server.until((s) => s.hanging === 1);
    expect(server.stats.inFlight).toBe(1);
    const started = Date.now();
    await server.close();
    expect(await pending).toBe("failed");
    expect(Date.now() - started).toBeLessThan(1000);
    // The server ended it: not a client giving up.
    expect(server.stats).toMatchObject({ inFlight: 0, hanging: 0, aborted: 0 });
  });

  it("a client abort frees a hanging request, and the server counts it as given up", async () => {
    const { server } = await start({ faults: [{ type: "hang" }] });
    const controller = new AbortController();
    const pending = fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [] }),
      signal: controller.signal,
    }).then(
      () => "answered",
      (error: Error) => error.name,
    );
    // Abort only once the server holds the request: it arrived, and it is the one being given up.
    await server.until((s) => s.hanging === 1);
    expect(server.stats).toMatchObject({ calls: 1, inFlight: 1, aborted: 0 });
    controller.abort();
    expect(await pending).toBe("AbortError");
    await server.until((s) => s.inFlight === 0);
    expect(server.stats).toMatchObject({ calls: 1, inFlight: 0, hanging: 0, aborted: 1 });
  });

  it("an answered request is not counted as given up, and waiting on the stats stops at a deadline", async () => {
    const { server } = await start({ respond: () => "ok" });
    expect((await post(server.url, { model: "m", messages: [] })).status).toBe(200);
    await server.until((s) => s.inFlight === 0);
    expect(server.stats).toMatchObject({ calls: 1, hanging: 0, aborted: 0 });
    await expect(server.until((s) => s.calls === 2, { timeoutMs: 20 })).rejects.toThrow(
      /did not meet the condition within 20 ms \(calls 1, in flight 0, hanging 0, aborted 0\)/,
    );
  });

  it("holds hundreds of requests in flight at once", async () => {
    const { server } = await start({ latencyMs: 100, recordRequests: false });
    const body = { model: "m", messages: [{ role: "user", content: "x" }] };
    const started = Date.now();
    const statuses = await Promise.all(
      Array.from({ length: 300 }, () => post(server.url, body).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(server.stats.maxInFlight).toBeGreaterThan(100);
    expect(server.stats.requests).toHaveLength(0);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("answers 404 for other routes and 400 for a body that is not a chat request", async () => {
    const { server } = await start();
    expect((await fetch(`${server.url}/models`)).status).toBe(404);
    const bad = await fetch(`${server.url}/chat/completions`, { method: "POST", body: "{nope" });
    expect(bad.status).toBe(400);
  });
});
