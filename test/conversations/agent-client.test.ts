// The agent under test over HTTP: the OpenAI chat protocol with its history, a configurable POST, and
// what happens when the agent fails, is slow, or answers something that is not JSON.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AgentUnavailableError,
  createAgentClient,
  loadConversationJob,
} from "../../src/conversations/index.ts";

type Handler = (body: Record<string, unknown>, res: ServerResponse) => void;
let handler: Handler;
let server: Server;
let url: string;
const bodies: Record<string, unknown>[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const body = text ? JSON.parse(text) : {};
      bodies.push(body);
      handler(body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const job = loadConversationJob(
  fileURLToPath(new URL("../fixtures/conversations/seed-example.yml", import.meta.url)),
);
const chat = (content: string) => (_: unknown, res: ServerResponse) =>
  res
    .writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }));

describe("the openai-chat agent client", () => {
  it("sends the whole conversation each turn, under the job's model name and user", async () => {
    handler = chat("Hello Alice!");
    bodies.length = 0;
    const client = createAgentClient(job.target, { url: `${url}/v1`, conversationId: "c1" });
    await client.seedText("The user's name is Alice.");
    const first = await client.send("Hi");
    expect(first).toMatchObject({ text: "Hello Alice!", attempts: 1, failures: 0 });
    await client.send("What is my name?");
    expect(bodies[1]).toMatchObject({
      model: "my-agent",
      user: "test-user",
      messages: [
        { role: "system", content: "The user's name is Alice." },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello Alice!" },
        { role: "user", content: "What is my name?" },
      ],
    });
  });

  it("retries a failing agent, counts every failed attempt, and times only the attempt that answered", async () => {
    let n = 0;
    handler = (body, res) => {
      n++;
      if (n <= 2) res.writeHead(503).end("busy");
      else setTimeout(() => chat("ok")(body, res), 50);
    };
    const client = createAgentClient(job.target, { url: `${url}/v1`, conversationId: "c2", backoffMs: 100 });
    const started = performance.now();
    const turn = await client.send("hello");
    const wall = performance.now() - started;
    expect(turn).toMatchObject({ text: "ok", attempts: 3, failures: 2 });
    expect(client.failures).toBe(2);
    // 100 + 200 ms of back-off went by, but the turn took the answering attempt's ~50 ms.
    expect(wall).toBeGreaterThan(300);
    expect(turn.latency_ms).toBeLessThan(250);
  });

  it("gives up after its retries with a clear error when the agent answers something that is not JSON", async () => {
    handler = (_, res) => res.writeHead(200).end("<html>oops</html>");
    const client = createAgentClient(
      { ...job.target, retries: 2 },
      { url: `${url}/v1`, conversationId: "c3", backoffMs: 1 },
    );
    const error = await client.send("hello").catch((e) => e);
    expect(AgentUnavailableError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/failed 3 attempt\(s\); last: the reply is not JSON: "<html>oops<\/html>"/);
    expect(client.failures).toBe(3);
  });

  it("a slow agent times out per attempt, and a client error (400) is not retried", async () => {
    handler = () => {};
    const slow = createAgentClient(
      { ...job.target, timeoutMs: 50, retries: 1 },
      { url: `${url}/v1`, conversationId: "c4", backoffMs: 1 },
    );
    await expect(slow.send("hello")).rejects.toThrow(/failed 2 attempt\(s\); last: no answer within 50 ms/);
    handler = (_, res) => res.writeHead(400).end("bad request");
    const rejected = createAgentClient(job.target, { url: `${url}/v1`, conversationId: "c5", backoffMs: 1 });
    await expect(rejected.send("hello")).rejects.toThrow(
      /failed 1 attempt\(s\); last: HTTP 400: bad request/,
    );
  });

  it("an agent that is down is a clear error too", async () => {
    // A port that was just free: nothing listens on it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const down = createAgentClient(
      { ...job.target, retries: 1 },
      { url: `http://127.0.0.1:${port}/v1`, conversationId: "c6", backoffMs: 1 },
    );
    await expect(down.send("hello")).rejects.toThrow(
      /failed 2 attempt\(s\); last: cannot reach it \(ECONNREFUSED\)/,
    );
  });
});

describe("the http agent client", () => {
  it("posts the body template filled in and reads the reply at its JSON pointer", async () => {
    bodies.length = 0;
    handler = (_, res) =>
      res.writeHead(200).end(JSON.stringify({ data: { reply: ["Done: reminder at 9"] } }));
    const target = {
      ...job.target,
      protocol: "http" as const,
      http: {
        body: { text: "{{message}}", session: "{{conversation_id}}", who: "{{user}}" },
        reply: "/data/reply/0",
      },
    };
    const client = createAgentClient(target, { url: `${url}/chat`, conversationId: "conv-9" });
    const turn = await client.send('Remind me at 9 "sharp"');
    expect(turn.text).toBe("Done: reminder at 9");
    expect(bodies[0]).toEqual({ text: 'Remind me at 9 "sharp"', session: "conv-9", who: "test-user" });
  });
});
