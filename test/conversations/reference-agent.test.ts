// The reference agent (examples/reference-agent) as the demo uses it: its model and the simulated user on
// the fake OpenAI-compatible server with the demo's hand-written script, its tools writing to its store,
// and the demo job end to end through runConversation with the demo's hand-written verdicts.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AgentState,
  type ReferenceAgent,
  startReferenceAgent,
} from "../../examples/reference-agent/agent.ts";
import {
  agentModelResponder,
  loadConversationScript,
  simulatedUserResponder,
} from "../../examples/reference-agent/scripted-replies.ts";
import {
  type ConversationJob,
  type ConversationResult,
  loadConversationJob,
  runConversation,
} from "../../src/conversations/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";

const example = (file: string) =>
  fileURLToPath(new URL(`../../examples/reference-agent/${file}`, import.meta.url));
const script = loadConversationScript(example("demo.script.json"));
const JUDGE = `fixtures:${example("demo.judge-fixtures.json")}`;

let model: FakeOpenAIServer;
let user: FakeOpenAIServer;
let agent: ReferenceAgent;
let idle: ReferenceAgent;

beforeAll(async () => {
  model = await startFakeOpenAIServer({ respond: agentModelResponder(script) });
  user = await startFakeOpenAIServer({ respond: simulatedUserResponder(script) });
  agent = await startReferenceAgent({ modelUrl: model.url });
  idle = await startReferenceAgent({ modelUrl: model.url, failWrites: true });
});
afterAll(async () => {
  await Promise.all([agent.close(), idle.close(), model.close(), user.close()]);
});

/** What the agent answers a chat request with (the parts the tests read). */
interface ChatReply {
  choices: {
    message: { content: string; tool_calls?: { function: { name: string; arguments: string } }[] };
  }[];
  error?: { message: string };
}

async function chat(base: string, who: string, content: string) {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "reference-agent", user: who, messages: [{ role: "user", content }] }),
  });
  return { status: response.status, body: (await response.json()) as ChatReply };
}

const state = async (base: string, who: string) =>
  (await (await fetch(`${base}/state?user=${who}`)).json()) as AgentState;

/** The demo job, pointed at the given agent instead of the demo's fixed port. */
function demoJob(base: string): ConversationJob {
  const job = loadConversationJob(example("demo.job.yml"));
  return JSON.parse(JSON.stringify(job).replaceAll("http://127.0.0.1:8081", base));
}

const userModel = () => createOpenAI({ baseURL: user.url, apiKey: "test" }).chat("user");

const runDemo = (base: string, passes: "both" | "without" = "both"): Promise<ConversationResult> =>
  runConversation(demoJob(base), { userModel: userModel(), judge: JUDGE, passes, name: "demo.job.yml" });

describe("the reference agent", () => {
  it("runs the tool its model calls, writes to the user's store and reports the call with its reply", async () => {
    const { status, body } = await chat(agent.url, "bob", "Remind me to call the dentist tomorrow at 9am");
    expect(status).toBe(200);
    const message = body.choices[0]!.message;
    expect(message.content).toBe("Done: I'll remind you to call the dentist tomorrow at 09:00.");
    expect(message.tool_calls!.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["create_reminder", { text: "Call the dentist", due: "tomorrow 09:00" }],
    ]);
    expect((await state(agent.url, "bob")).reminders).toEqual([
      { text: "Call the dentist", due: "tomorrow 09:00" },
    ]);
    // Two model calls: the tool call, then the reply after the tool's result.
    expect(agent.handled.findLast((h) => h.user === "bob")?.modelCalls).toBe(2);
  });

  it("keeps a store per user and resets one user's without touching another's", async () => {
    await chat(agent.url, "carol", "Please note that the team offsite moved to Friday");
    await chat(agent.url, "dave", "Please note that the team offsite moved to Friday");
    await fetch(`${agent.url}/reset?user=carol`, { method: "POST" });
    expect((await state(agent.url, "carol")).notes).toEqual([]);
    expect((await state(agent.url, "dave")).notes).toEqual([{ text: "The team offsite moved to Friday." }]);
  });

  it("with failWrites answers the same and writes nothing", async () => {
    const { body } = await chat(idle.url, "erin", "Remind me to call the dentist tomorrow at 9am");
    expect(body.choices[0]!.message.content).toMatch(/^Done/);
    expect((await state(idle.url, "erin")).reminders).toEqual([]);
  });

  it("takes the caller's system messages, as a job's text seed sends them", async () => {
    const response = await fetch(`${agent.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        messages: [
          { role: "system", content: "The user's name is Alice." },
          { role: "user", content: "Hello" },
        ],
      }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as ChatReply).choices[0]!.message.content).toBe(script.fallback);
    expect(model.stats.requests.at(-1)!.messages.map((m) => m.role)).toEqual(["system", "system", "user"]);
  });

  it("refuses a streaming request with 400 rather than answer it in the wrong shape", async () => {
    const response = await fetch(`${agent.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "Hello" }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ChatReply).error?.message).toMatch(
      /^stream: streaming is not supported/,
    );
  });

  it("answers a request without messages with 400 and what is wrong", async () => {
    const response = await fetch(`${agent.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "x", messages: [] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ChatReply).error?.message).toMatch(/^messages: /);
  });
});

describe("the demo job against the reference agent", () => {
  it("runs both passes to the signoff, with the tool calls the agent reported", async () => {
    const result = await runDemo(agent.url);
    // Six exchanges, then the signoff.
    expect(result.passes.map((p) => [p.pass, p.transcript.ended, p.transcript.turns.length])).toEqual([
      ["without_facts", "signoff", 13],
      ["with_facts", "signoff", 13],
    ]);
    expect(result.passes[1]!.transcript.tool_calls.map((c) => c.name)).toEqual([
      "create_reminder",
      "add_note",
      "update_customer",
    ]);
  });

  it("checks the assertions on what the agent wrote: the timezone only when the user knew it", async () => {
    const [without, withFacts] = (await runDemo(agent.url)).passes;
    expect(without!.assertions.map((a) => a.passed)).toEqual([true, true, true, false, true, true]);
    expect(without!.assertions[3]).toMatchObject({
      label: 'objectContext.customer.timezone == "Europe/Lisbon"',
      actual: null,
      expected: "Europe/Lisbon",
    });
    expect(withFacts!.assertions.every((a) => a.passed)).toBe(true);
  });

  it("scores the composite of each pass from the hand-written verdicts and the assertions", async () => {
    const [without, withFacts] = (await runDemo(agent.url)).passes;
    // The agent answers in milliseconds against an aspired 3 s: timing 1.
    expect(without!.composite).toMatchObject({ timing: 1, penalty: 0, assertions: 7 / 8 });
    expect(without!.composite.task).toBeCloseTo((9 + 9 + 6 + 9) / 4 / 9, 12);
    expect(without!.composite.score).toBeCloseTo((1 + (2 * 33) / 36 + 4 * (7 / 8)) / 7, 12);
    expect(withFacts!.composite.score).toBeCloseTo(1, 12);
  });

  it("an agent that answers right but writes nothing fails the store's assertions and scores lower", async () => {
    const doing = (await runDemo(agent.url, "without")).passes[0]!;
    const saying = (await runDemo(idle.url, "without")).passes[0]!;
    // Same words, same task verdicts: only what it wrote differs.
    expect(saying.transcript.turns.map((t) => t.content)).toEqual(
      doing.transcript.turns.map((t) => t.content),
    );
    // Each failed comparison shows what the agent's store held and what was expected.
    expect(saying.assertions.map((a) => [a.passed, a.actual, a.expected])).toEqual([
      [false, 0, 1],
      [false, false, undefined],
      [false, null, "alice@example.com"],
      [false, null, "Europe/Lisbon"],
      [true, true, undefined],
      [false, 0, 2],
    ]);
    expect(saying.composite.assertions).toBe(1 / 8);
    expect(saying.composite.score!).toBeLessThan(doing.composite.score! - 0.3);
  });
});

describe("npm run demo:converse", () => {
  it("prints both passes, the assertions with their actual values, and the agent that writes nothing", async () => {
    const demo = fileURLToPath(new URL("../../scripts/demo-converse.mjs", import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, [demo], { timeout: 60_000 });
    expect(stdout).toMatch(/without facts: composite 0\.90 = timing 1\.00, tasks 0\.92, assertions 0\.88/);
    expect(stdout).toMatch(/with facts: composite 1\.00 = timing 1\.00, tasks 1\.00, assertions 1\.00/);
    expect(stdout).toMatch(
      /FAIL ×1 {2}objectContext\.customer\.timezone == "Europe\/Lisbon" {2}actual null, expected "Europe\/Lisbon"/,
    );
    expect(stdout).toMatch(/without facts: composite 0\.48 = timing 1\.00, tasks 0\.92, assertions 0\.13/);
    expect(stdout).toMatch(/store after the pass .*"reminders":\[\],"notes":\[\]/);
  }, 60_000);
});
