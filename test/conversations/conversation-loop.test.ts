// One pass of a live conversation against a scripted agent over HTTP and a scripted simulated user.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAgentClient,
  loadConversationJob,
  runConversationPass,
} from "../../src/conversations/index.ts";
import { scriptedTextModel } from "./scripted-model.ts";

const job = loadConversationJob(
  fileURLToPath(new URL("../fixtures/conversations/seed-example.yml", import.meta.url)),
);
let server: Server;
let url: string;
let reply: (messages: { role: string; content: string }[]) => { status: number; content?: string };
const received: { role: string; content: string }[][] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (d) => (text += d));
    req.on("end", () => {
      const { messages } = JSON.parse(text);
      received.push(messages);
      const r = reply(messages);
      setTimeout(() => {
        if (r.status !== 200) res.writeHead(r.status).end("down");
        else
          res
            .writeHead(200)
            .end(JSON.stringify({ choices: [{ message: { role: "assistant", content: r.content } }] }));
      }, 30);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const user = scriptedTextModel;

describe("a conversation pass", () => {
  it("sends the seeds, greets, takes turns until the signoff, and times every reply", async () => {
    received.length = 0;
    reply = (messages) => ({
      status: 200,
      content: `reply ${messages.filter((m) => m.role === "user").length}`,
    });
    const agent = createAgentClient(job.target, { url, conversationId: "p1" });
    const pass = await runConversationPass(job, {
      agent,
      userModel: user(
        "Please set a reminder for tomorrow at 9.",
        "What is the capital of France?",
        "So Long, and Thanks for All the Fish",
      ),
      withFacts: false,
      seed: 7,
    });
    // The conversation seed's user message went first; the text seed rides in every request.
    expect(received[0]!.map((m) => m.role)).toEqual(["system", "user"]);
    expect(received[0]![1]!.content).toBe("My name is Alice");
    expect(pass.turns.map((t) => t.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(job.greetings).toContain(pass.turns[0]!.content);
    expect(pass.ended).toBe("signoff");
    expect(pass.latencies).toHaveLength(3);
    for (const l of pass.latencies) expect(l).toBeGreaterThanOrEqual(25);
    expect(pass.failures).toBe(0);
  });

  it("stops at maxTurns exchanges when the user never signs off", async () => {
    reply = () => ({ status: 200, content: "ok" });
    const agent = createAgentClient(job.target, { url, conversationId: "p2" });
    const pass = await runConversationPass(
      { ...job, seeds: [], maxTurns: 2 },
      { agent, userModel: user("more"), withFacts: true, seed: 1 },
    );
    expect(pass.ended).toBe("max_turns");
    expect(pass.turns.filter((t) => t.role === "assistant")).toHaveLength(2);
  });

  it("an agent that stops answering ends the pass as failed, with its failed attempts counted", async () => {
    let n = 0;
    reply = () => (++n <= 1 ? { status: 200, content: "hello" } : { status: 503 });
    const agent = createAgentClient(
      { ...job.target, retries: 1 },
      { url, conversationId: "p3", backoffMs: 1 },
    );
    const pass = await runConversationPass(
      { ...job, seeds: [] },
      { agent, userModel: user("next please"), withFacts: false, seed: 1 },
    );
    expect(pass.ended).toBe("agent_failed");
    expect(pass.error).toMatch(/failed 2 attempt\(s\); last: HTTP 503/);
    expect(pass.failures).toBe(2);
    expect(pass.turns.at(-1)).toEqual({ role: "user", content: "next please" });
  });
});
