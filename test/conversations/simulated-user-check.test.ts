// The simulated user, checked: its own turns judged on propositions about the user, through the real LLM
// judge (the AI SDK client) against the fake OpenAI-compatible server, whose scorer here reads the
// conversation it is shown. A user scripted to state a fact withheld from it makes that pass a simulator
// fault, not an agent failure, and pass^k leaves the trial out and says so; a clean user gives no fault; the
// check can be switched off, which saves its requests; the result is the same whatever the jobs at once.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConversationJob,
  type ConversationResult,
  conversationScore,
  loadConversationJob,
  renderConversationMarkdown,
  renderConversationTable,
  renderTrials,
  runConversation,
  runConversationJobs,
  runConversationTrials,
  SIMULATED_USER_DIMENSION,
} from "../../src/conversations/index.ts";
import { InputError } from "../../src/core/index.ts";
import { loadSimulatedUserSet } from "../../src/propositions/index.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { scriptedTextModel } from "./scripted-model.ts";

const dir = useTempDir("dramaturg-simulated-user-");
const FACT = "Australia/Sydney";
const SIGNOFF = "So Long, and Thanks for All the Fish";
const LEAK = `I live in ${FACT}, so remind me tomorrow at 9 my time.`;
const ASK = "Remind me tomorrow at 9, please.";

let agent: FakeOpenAIServer;
let scorer: FakeOpenAIServer;
/** A simulated user on the fake server: it leaks the fact in the pass without it, then signs off. */
let leakyUser: FakeOpenAIServer;

/** The conversation block of a judge prompt: the only place the user's own words are. */
const conversationOf = (prompt: string) =>
  /<trajectory[^>]*>([\s\S]*?)<\/trajectory>/.exec(prompt)?.[1] ?? "";

beforeAll(async () => {
  agent = await startFakeOpenAIServer({ respond: () => "Done: a reminder for tomorrow at 9:00." });
  // The scorer: a withheld fact in a User line breaks keeps-withheld-facts; everything else is judged well.
  scorer = await startFakeOpenAIServer({
    scoreFor: (id, prompt) =>
      id === "keeps-withheld-facts" &&
      conversationOf(prompt)
        .split("\n")
        .some((line) => line.startsWith("User:") && line.includes(FACT))
        ? 1
        : 9,
  });
  // Answers from the conversation it is shown, so that jobs run at once cannot change what it says.
  leakyUser = await startFakeOpenAIServer({
    respond: (request) => {
      const text = request.messages.map((m) => String(m.content)).join("\n");
      const replies = (text.match(/^assistant: /gm) ?? []).length;
      if (replies >= 2) return SIGNOFF;
      return text.includes("<facts>") ? ASK : LEAK;
    },
  });
});
afterAll(async () => {
  await agent.close();
  await scorer.close();
  await leakyUser.close();
});

function job(): ConversationJob {
  const loaded = loadConversationJob(
    fileURLToPath(new URL("../fixtures/conversations/seed-example.yml", import.meta.url)),
  );
  return {
    ...loaded,
    seeds: [],
    setup: [],
    target: { ...loaded.target, url: agent.url, stateUrl: undefined, graph: undefined },
    tasks: [loaded.tasks[0]!],
    assertions: [],
  };
}

const judgeOptions = () => ({ judge: "openai-compatible:judge", judgeSettings: { baseUrl: scorer.url } });

/** A user that leaks the withheld fact in the first pass of the first trial, and keeps to its brief after. */
const leakingOnce = () => scriptedTextModel(LEAK, SIGNOFF, ASK, SIGNOFF, ASK, SIGNOFF, ASK, SIGNOFF);
const clean = () => scriptedTextModel(ASK, SIGNOFF);

/** The result without what a live agent changes from run to run: reply times and the run's id. */
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

describe("the simulated user, checked", () => {
  it("a user that states a withheld fact makes that pass a simulator fault, not an agent failure, and pass^k leaves it out", async () => {
    const trials = await runConversationTrials(job(), {
      userModel: leakingOnce(),
      ...judgeOptions(),
      trials: 2,
      minScore: 0.5,
    });
    const [first, second] = trials.trials as [ConversationResult, ConversationResult];
    const [without, withFacts] = first.passes;
    expect(without!.transcript.turns.map((t) => t.content)).toContain(LEAK);
    expect(without!.simulator_fault).toBe(true);
    expect(without!.simulated_user).toMatchObject({ fault: true, threshold: 5, errored: 0 });
    const broken = without!.simulated_user!.findings.filter((f) => f.broken);
    expect(broken).toEqual([
      {
        id: "keeps-withheld-facts",
        score: 1,
        reasoning: "Fake reasoning for keeps-withheld-facts.",
        broken: true,
      },
    ]);
    expect(without!.simulated_user!.reason).toBe(
      "keeps-withheld-facts 1/9: Fake reasoning for keeps-withheld-facts.",
    );
    // The pass with the facts asks whether they were volunteered, not whether they were withheld.
    expect(withFacts!.simulator_fault).toBe(false);
    expect(withFacts!.simulated_user!.findings.map((f) => f.id)).toEqual([
      "stays-in-role",
      "pursues-tasks",
      "gives-facts-when-asked",
      "ends-on-time",
    ]);
    // The agent did its task in both passes: its score is the clean pass's, no difference is made of a fault.
    expect(without!.tasks[0]!.score).toBe(1);
    expect(first.simulated_user).toMatchObject({ faults: 1, threshold: 5 });
    expect(first.simulated_user!.propositions).toBe("builtin:simulated_user");
    expect(first.difference).toBeNull();
    expect(conversationScore(first)).toBe(withFacts!.composite.score);
    expect(second.passes.map((p) => p.simulator_fault)).toEqual([false, false]);
    // pass^k over the one trial that counts; the left-out one is named, with why.
    expect(trials.passed).toEqual([null, true]);
    expect(trials.pass_k).toEqual({ "1": 1 });
    expect(trials.simulator_faults).toEqual([
      {
        trial: 1,
        reason: "without facts: keeps-withheld-facts 1/9: Fake reasoning for keeps-withheld-facts.",
      },
    ]);
    const text = renderTrials([trials], "table");
    expect(text).toContain("pass^k (a trial passes at score ≥ 0.5; over 1 of 2 trials): k=1 1.00");
    expect(text).toContain(
      "1 trial left out of pass^k: the simulated user broke its brief (a simulator fault, not the agent's): trial 1 — without facts: keeps-withheld-facts 1/9",
    );
    expect(text).toContain("SIMULATOR FAULT: the simulated user broke its brief — keeps-withheld-facts 1/9");
    expect(renderConversationTable([first])).toMatch(
      /score \d\.\d\d \(left out: without facts, a simulator fault\)/,
    );
    expect(renderConversationMarkdown([first])).toMatch(
      /\| simulated user \| ⚠️ simulator fault: keeps-withheld-facts 1\/9/,
    );
  });

  it("shows the judge the user's turns inside the delimited conversation, and its brief apart", async () => {
    const before = scorer.stats.requests.length;
    await runConversation(job(), { userModel: leakingOnce(), ...judgeOptions(), passes: "without" });
    const prompts = scorer.stats.requests
      .slice(before)
      .map((r) => r.messages.map((m) => String(m.content)).join("\n"))
      .filter((p) => p.includes('id="keeps-withheld-facts"'));
    expect(prompts).toHaveLength(1);
    expect(conversationOf(prompts[0]!)).toContain(`User: ${LEAK}`);
    expect(prompts[0]).toMatch(
      /<persona[^>]*>[\s\S]*Facts withheld from it[\s\S]*Australia\/Sydney[\s\S]*<\/persona>/,
    );
  });

  it("a user that keeps to its brief gives no fault, and every pass counts", async () => {
    const result = await runConversation(job(), { userModel: clean(), ...judgeOptions(), passes: "without" });
    const [pass] = result.passes;
    expect(pass!.simulator_fault).toBe(false);
    expect(pass!.simulated_user!.findings.map((f) => [f.id, f.score, f.broken])).toEqual([
      ["stays-in-role", 9, false],
      ["pursues-tasks", 9, false],
      ["keeps-withheld-facts", 9, false],
      ["ends-on-time", 9, false],
    ]);
    expect(result.simulated_user!.faults).toBe(0);
    expect(conversationScore(result)).toBe(pass!.composite.score);
    const trials = await runConversationTrials(job(), {
      userModel: clean(),
      ...judgeOptions(),
      passes: "without",
      minScore: 0.5,
    });
    expect(trials.simulator_faults).toBeUndefined();
    expect(trials.passed).toEqual([true]);
  });

  it("switched off, the check asks the judge nothing and marks nothing", async () => {
    const count = async (simulatedUser?: false) => {
      const before = scorer.stats.calls;
      const result = await runConversation(job(), {
        userModel: leakingOnce(),
        ...judgeOptions(),
        passes: "without",
        ...(simulatedUser === false ? { simulatedUser } : {}),
      });
      return { result, calls: scorer.stats.calls - before };
    };
    const on = await count();
    const off = await count(false);
    // One request more per pass: the user's propositions (four here) in one batch.
    expect(on.calls - off.calls).toBe(1);
    expect(off.result.passes[0]!.simulator_fault).toBeUndefined();
    expect(off.result.passes[0]!.simulated_user).toBeUndefined();
    expect(off.result.simulated_user).toBeUndefined();
    expect(on.result.passes[0]!.simulator_fault).toBe(true);
  });

  it("its verdicts go through the verdict cache: a rerun of the same transcripts asks the judge nothing", async () => {
    const { openStore } = await import("../../src/store/index.ts");
    const store = await openStore("memory://");
    try {
      const run = async () => {
        const before = scorer.stats.calls;
        const result = await runConversation(job(), {
          userModel: leakingOnce(),
          ...judgeOptions(),
          passes: "without",
          store,
        });
        return { result, calls: scorer.stats.calls - before };
      };
      const first = await run();
      const again = await run();
      expect(first.calls).toBe(2);
      expect(again.calls).toBe(0);
      expect(again.result.passes[0]!.simulated_user).toEqual(first.result.passes[0]!.simulated_user);
    } finally {
      await store.close();
    }
  });

  it("gives byte-identical results whatever the number of jobs at once", async () => {
    const jobs = ["a.yml", "b.yml", "c.yml"].map((name) => ({ name, job: job() }));
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    const userModel = createOpenAICompatible({ name: "user", baseURL: leakyUser.url }).chatModel("user");
    const run = async (limit: number) => {
      const outcome = await runConversationJobs(jobs, {
        jobs: limit,
        trials: 2,
        minScore: 0.5,
        userModel,
        ...judgeOptions(),
      });
      expect(outcome.failures).toEqual([]);
      return JSON.stringify(
        outcome.slots.map((s) => ({ ...s, trials: s!.trials.map(stable) })),
        null,
        2,
      );
    };
    const one = await run(1);
    expect(await run(3)).toBe(one);
    // Every trial's first pass leaked: each is a fault, so pass^k counts none and says so.
    const parsed = JSON.parse(one);
    expect(parsed[0].simulator_faults.map((f: { trial: number }) => f.trial)).toEqual([1, 2]);
    expect(parsed[0].pass_k).toEqual({});
  });
});

describe("the propositions about the simulated user", () => {
  it("the built-in set has the four parts of a brief, none inverted", () => {
    const set = loadSimulatedUserSet();
    expect(set.propositions.map((p) => [p.id, p.when ?? "always"])).toEqual([
      ["stays-in-role", "always"],
      ["pursues-tasks", "always"],
      ["keeps-withheld-facts", "facts_withheld"],
      ["gives-facts-when-asked", "facts_given"],
      ["ends-on-time", "always"],
    ]);
    expect(set.propositions.every((p) => !p.inverted)).toBe(true);
    expect(set.hash).toMatch(/^[0-9a-f]{16}$/);
    expect(SIMULATED_USER_DIMENSION).toBe("simulated_user");
  });

  it("a set of one's own replaces it; an inverted proposition is flipped before the threshold", async () => {
    const file = join(dir(), "user.yaml");
    writeFileSync(
      file,
      [
        "dimension: simulated_user",
        "threshold: 7",
        "propositions:",
        "  - id: says-it-is-a-bot",
        "    inverted: true",
        "    claim: '{{user_name}} says it is a bot.'",
      ].join("\n"),
    );
    const set = loadSimulatedUserSet(file);
    expect(set.source).toBe(file);
    const { scriptedJudge } = await import("../../src/testing/index.ts");
    const claims: string[] = [];
    const judge = scriptedJudge((item) => {
      if (item.key.dimension === SIMULATED_USER_DIMENSION) claims.push(item.claim);
      return { score: item.key.dimension === SIMULATED_USER_DIMENSION ? 3 : 9 };
    });
    const result = await runConversation(job(), {
      userModel: clean(),
      judge,
      passes: "without",
      simulatedUser: { propositions: set },
    });
    expect(claims).toEqual(["Socrates says it is a bot."]);
    // 9 − 3 = 6, under the file's threshold of 7.
    expect(result.passes[0]!.simulated_user!.findings).toEqual([
      { id: "says-it-is-a-bot", score: 6, reasoning: "", broken: true },
    ]);
    expect(result.passes[0]!.simulator_fault).toBe(true);
  });

  it("a bad file is an InputError naming the file and the line", () => {
    const file = join(dir(), "bad.yaml");
    writeFileSync(
      file,
      ["dimension: simulated_user", "propositions:", "  - id: x", "    claim: '{{agent_name}} is fine'"].join(
        "\n",
      ),
    );
    expect(() => loadSimulatedUserSet(file)).toThrow(InputError);
    expect(() => loadSimulatedUserSet(file)).toThrow(
      new RegExp(`${file}:4:\\d+: unknown variable \\{\\{agent_name\\}\\}`),
    );
    writeFileSync(file, ["dimension: simulated_user", "threshold: 12", "propositions: []"].join("\n"));
    expect(() => loadSimulatedUserSet(file)).toThrow(new RegExp(`${file}:2:\\d+`));
  });
});
