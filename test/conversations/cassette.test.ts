// Cassettes for conversation jobs: a run recorded against a scripted user and an LLM scorer on the fake
// OpenAI-compatible server replays with no model at all and gives the same result; a miss, a malformed
// file and secrets in a recording are each pinned here.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConversationJob,
  type ConversationResult,
  conversationCassetteFile,
  loadConversationJob,
  runConversation,
  runConversationTrials,
} from "../../src/conversations/index.ts";
import { InputError } from "../../src/core/index.ts";
import { Cassette, CassetteMissError } from "../../src/judge/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { tempDir } from "../temp-dir.ts";
import { scriptedTextModel } from "./scripted-model.ts";

const SECRET = "sk-test-cassette-secret-4242";
let agent: FakeOpenAIServer;
let scorer: FakeOpenAIServer;

beforeAll(async () => {
  // A deterministic agent: the same message, the same reply.
  agent = await startFakeOpenAIServer({
    respond: (request) => {
      const last = String(request.messages.at(-1)?.content ?? "");
      return /remind/i.test(last) ? "Done: reminder set for 9:00." : /capital/i.test(last) ? "Paris." : "Hi!";
    },
  });
  // The default responder answers the judge's schemas; the key must arrive, and nowhere else.
  scorer = await startFakeOpenAIServer({ requireApiKey: SECRET });
});
afterAll(async () => {
  await agent.close();
  await scorer.close();
});

function job(): ConversationJob {
  const loaded = loadConversationJob(
    fileURLToPath(new URL("../fixtures/conversations/seed-example.yml", import.meta.url)),
  );
  return {
    ...loaded,
    seeds: [],
    setup: [],
    target: { ...loaded.target, url: agent.url, stateUrl: undefined },
    assertions: [
      {
        kind: "expression",
        expression: 'conversation.turns.exists(t, t.content.contains("Paris"))',
        weight: 1,
      },
    ],
  };
}

const user = () =>
  scriptedTextModel(
    "Remind me tomorrow at 9, please.",
    "What is the capital of France?",
    "So Long, and Thanks for All the Fish",
  );

/** A user model that fails the test if anything calls it. */
const noModel = new MockLanguageModelV4({
  doGenerate: async () => {
    throw new Error("a replay called the model");
  },
});

/** The LLM scorer on the fake server, its key taken from a variable of our own environment. */
const judgeOptions = () => ({
  judge: "openai-compatible:judge",
  judgeSettings: { baseUrl: scorer.url, apiKeyEnv: "CASSETTE_TEST_KEY", env: { CASSETTE_TEST_KEY: SECRET } },
});

/** The result without what a live agent changes from run to run: its reply times and the run's id. */
function stable(result: ConversationResult) {
  const { evaluation_id: _id, ...rest } = result;
  return {
    ...rest,
    passes: rest.passes.map((p) => ({
      ...p,
      transcript: {
        ...p.transcript,
        latencies: p.transcript.latencies.length,
        turns: p.transcript.turns.map(({ role, content }) => ({ role, content })),
      },
    })),
  };
}

async function recorded(dir: string): Promise<ConversationResult> {
  return runConversation(job(), { userModel: user(), ...judgeOptions(), name: "reminders.yml", record: dir });
}

describe("conversation cassettes", () => {
  it("a recorded run replays with no model and gives the same result", async () => {
    const dir = tempDir();
    const before = scorer.stats.calls;
    const first = await recorded(dir);
    const scorerCalls = scorer.stats.calls - before;
    expect(scorerCalls).toBeGreaterThan(0);
    expect(first.judge.errored).toBe(0);
    const again = await runConversation(job(), {
      userModel: noModel,
      ...judgeOptions(),
      name: "reminders.yml",
      replay: dir,
    });
    expect(scorer.stats.calls - before).toBe(scorerCalls);
    expect(stable(again)).toEqual(stable(first));
  });

  it("replay needs no user model and no scorer key", async () => {
    const dir = tempDir();
    const first = await recorded(dir);
    const again = await runConversation(job(), {
      judge: "openai-compatible:judge",
      judgeSettings: { baseUrl: "http://127.0.0.1:9/v1" },
      name: "reminders.yml",
      replay: dir,
    });
    expect(again.passes.map((p) => p.composite.score)).toEqual(first.passes.map((p) => p.composite.score));
  });

  it("the cassette is one file per job, named after the job, holding the user's and the scorer's answers", async () => {
    const dir = tempDir();
    await recorded(dir);
    const file = conversationCassetteFile(dir, "jobs/reminders.yml");
    expect(file).toBe(join(dir, "reminders.cassette.json"));
    const cassette = JSON.parse(readFileSync(file, "utf8"));
    expect(cassette.format).toBe("dramaturg.cassette/v1");
    expect(Object.keys(cassette.tapes).sort()).toEqual(["scorer", "user"]);
    expect(cassette.tapes.user[0].answers[0].content).toEqual([
      { type: "text", text: "Remind me tomorrow at 9, please." },
    ]);
  });

  it("no secret reaches the cassette: not the key, not a header", async () => {
    const dir = tempDir();
    await recorded(dir);
    const text = readFileSync(join(dir, "reminders.cassette.json"), "utf8");
    expect(text).not.toContain(SECRET);
    expect(text.toLowerCase()).not.toContain("authorization");
    expect(text.toLowerCase()).not.toContain("headers");
  });

  it("a replay whose prompt differs from the recording fails naming the cassette and the key", async () => {
    const dir = tempDir();
    await recorded(dir);
    const changed = { ...job(), evaluator: { ...job().evaluator, voice: "Terse, all lower case." } };
    const replay = runConversation(changed, {
      userModel: noModel,
      ...judgeOptions(),
      name: "reminders.yml",
      replay: dir,
    });
    await expect(replay).rejects.toSatisfy(
      (error: unknown) =>
        CassetteMissError.isInstance(error) &&
        error.message.includes(join(dir, "reminders.cassette.json")) &&
        /key [0-9a-f]{16}/.test(error.message),
    );
  });

  it("a scorer answer missing from the cassette fails the run instead of erroring a verdict quietly", async () => {
    const dir = tempDir();
    await recorded(dir);
    const file = join(dir, "reminders.cassette.json");
    const cassette = JSON.parse(readFileSync(file, "utf8"));
    cassette.tapes.scorer = [];
    writeFileSync(file, JSON.stringify(cassette));
    const replay = runConversation(job(), {
      userModel: noModel,
      ...judgeOptions(),
      name: "reminders.yml",
      replay: dir,
    });
    await expect(replay).rejects.toSatisfy(
      (error: unknown) => CassetteMissError.isInstance(error) && error.message.includes("scorer call"),
    );
  });

  it("a malformed cassette is an InputError naming the file and the JSON path", async () => {
    const dir = tempDir();
    const file = join(dir, "reminders.cassette.json");
    writeFileSync(
      file,
      JSON.stringify({
        format: "dramaturg.cassette/v1",
        tapes: { user: [{ key: "not-a-hash", answers: [] }] },
      }),
    );
    const replay = runConversation(job(), {
      userModel: noModel,
      ...judgeOptions(),
      name: "reminders.yml",
      replay: dir,
    });
    await expect(replay).rejects.toSatisfy(
      (error: unknown) =>
        InputError.isInstance(error) && error.file === file && error.place === "tapes.user[0].key",
    );
  });

  it("one cassette serves every trial: recorded trials replay in order", async () => {
    const dir = tempDir();
    const trials = { ...judgeOptions(), name: "reminders.yml", trials: 2, minScore: 0.5 };
    const first = await runConversationTrials(job(), { ...trials, userModel: user(), record: dir });
    const again = await runConversationTrials(job(), { ...trials, userModel: noModel, replay: dir });
    expect(again.trials.map(stable)).toEqual(first.trials.map(stable));
    expect(again.pass_k).toEqual(first.pass_k);
  });

  it("replays repeated calls with the same prompt in the order they were recorded", async () => {
    const dir = tempDir();
    const file = join(dir, "calls.cassette.json");
    const recording = Cassette.record(file);
    const live = wrapLanguageModel({
      model: scriptedTextModel("one", "two"),
      middleware: recording.middleware("m"),
    });
    const asked = [];
    for (let i = 0; i < 2; i++) asked.push((await generateText({ model: live, prompt: "same" })).text);
    recording.save();
    const replayed = wrapLanguageModel({ model: noModel, middleware: Cassette.replay(file).middleware("m") });
    const again = [];
    for (let i = 0; i < 2; i++) again.push((await generateText({ model: replayed, prompt: "same" })).text);
    expect(again).toEqual(asked);
    expect(asked).toEqual(["one", "two"]);
  });
});
