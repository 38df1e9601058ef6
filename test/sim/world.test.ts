// The step-based world: interventions once per step before agents act, facilitator prompts, parallel and
// seeded sequential_random order, transient nudges, and a valid transcript.
import { describe, expect, it } from "vitest";
import { TranscriptSchema } from "../../src/core/index.ts";
import {
  createWorld,
  Intervention,
  loadWorldFile,
  type PersonaAgent,
  parseWorldFile,
} from "../../src/sim/index.ts";
import { type AgentCall, scriptedAgentModel, speaker } from "./scripted-agent-model.ts";
import { scriptedJudge } from "./scripted-judge.ts";

const HARBOUR = new URL("../fixtures/worlds/harbour.yml", import.meta.url).pathname;

function world(order: "parallel" | "sequential_random", seed = 1, steps = 2) {
  return parseWorldFile(
    [
      "format: dramaturg.world/v1",
      "agents:",
      ...["a", "b", "c", "d"].map(
        (id) => `  - {id: ${id}, name: ${id.toUpperCase()}, persona: "${id} persona"}`,
      ),
      "channels: [{id: room}]",
      "facilitator: [{channel: room, text: Begin., every: 1}]",
      `steps: ${steps}`,
      `order: ${order}`,
      `seed: ${seed}`,
    ].join("\n"),
  );
}

/** Each agent says its name and step; the prompt it saw is kept. */
const sayName = (call: AgentCall) => [{ channel: "room", text: `${speaker(call)} here` }];

describe("a world", () => {
  it("posts the facilitator prompt first in each step, then every agent acts once", async () => {
    const { transcript, stats } = await createWorld(world("parallel"), {
      model: scriptedAgentModel(sayName),
    }).run();
    expect(transcript.messages.map((m) => m.sender)).toEqual([
      "facilitator",
      "a",
      "b",
      "c",
      "d",
      "facilitator",
      "a",
      "b",
      "c",
      "d",
    ]);
    expect(stats).toMatchObject({ steps: 2, messages: 8, agentCalls: 8 });
    expect(TranscriptSchema.safeParse(transcript).success).toBe(true);
  });

  it("writes each agent's model into the transcript when the model names itself, and none for a mock", async () => {
    const named = Object.assign(scriptedAgentModel(sayName), {
      provider: "openai.chat",
      modelId: "gpt-4o-mini",
    });
    const file = world("parallel", 1, 1);
    const { transcript } = await createWorld(file, {
      model: (agent) => (agent.id === "a" ? named : scriptedAgentModel(sayName)),
    }).run();
    expect(transcript.agents.map((a) => a.model)).toEqual([
      "openai:gpt-4o-mini",
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("in parallel order, no agent hears what another said in the same step", async () => {
    const model = scriptedAgentModel(sayName);
    await createWorld(world("parallel", 1, 1), { model }).run();
    for (const call of model.prompts) expect(call.prompt).not.toMatch(/[A-D] here/);
  });

  it("in sequential_random order, each agent hears those who spoke before it in the step", async () => {
    const model = scriptedAgentModel(sayName);
    const { transcript } = await createWorld(world("sequential_random", 1, 1), { model }).run();
    const spoke = transcript.messages.filter((m) => m.sender !== "facilitator");
    const last = model.prompts.at(-1)!;
    for (const m of spoke.slice(0, -1)) expect(last.prompt).toContain(m.text);
  });

  it("gives the same sequential_random transcript for the same seed, and another order for another seed", async () => {
    const run = async (seed: number) =>
      (await createWorld(world("sequential_random", seed, 3), { model: scriptedAgentModel(sayName) }).run())
        .transcript;
    const senders = (t: Awaited<ReturnType<typeof run>>) => t.messages.map((m) => m.sender).join("");
    const [first, again] = [await run(7), await run(7)];
    expect(again).toEqual(first);
    const others = await Promise.all([1, 2, 3, 4, 5].map(run));
    expect(others.some((t) => senders(t) !== senders(first))).toBe(true);
  });

  it("checks an intervention once per step, before any agent acts in that step", async () => {
    const events: string[] = [];
    const model = scriptedAgentModel((call) => {
      events.push(`act ${speaker(call)}`);
      return [];
    });
    await createWorld(world("parallel"), {
      model,
      interventions: [
        new Intervention<PersonaAgent>([]).setFunctionalPrecondition((_t, { step }) => {
          events.push(`check ${step}`);
          return false;
        }),
      ],
    }).run();
    expect(events).toEqual([
      "check 1",
      "act A",
      "act B",
      "act C",
      "act D",
      "check 2",
      "act A",
      "act B",
      "act C",
      "act D",
    ]);
  });

  it("fires the anti-convergence intervention only in the step its judge finds agreement, once per step", async () => {
    const model = scriptedAgentModel((call) => [{ channel: "harbour", text: `${speaker(call)} agrees` }]);
    // Hand-written verdicts, one per question: agreement in step 2 only.
    const answers = [false, true, false];
    const judge = scriptedJudge(() => ({ value: answers[judge.asked.length - 1]! }));
    const { stats } = await createWorld(loadWorldFile(HARBOUR), { model, judge }).run({ steps: 3 });
    expect(stats.fired).toEqual([{ step: 2, name: "anti_convergence", agent_ids: ["ines"] }]);
    expect(judge.asked).toHaveLength(3);
    const nudged = model.prompts
      .filter((p) => speaker(p) === "Ines")
      .map((p) => p.prompt.includes("Cite the regulation"));
    expect(nudged).toEqual([false, true, false]);
  });
});

describe("a world's per-act and per-step hooks", () => {
  it("gives the thought beforeAct returns to that agent's act only, and never to its memory", async () => {
    const model = scriptedAgentModel(sayName);
    const w = createWorld(world("parallel", 1, 2), {
      model,
      beforeAct: (agent, step) => (agent.agent.id === "b" && step === 2 ? "Change the subject." : undefined),
    });
    await w.run();
    const thought = model.prompts.map(
      (p) => `${speaker(p)}${p.prompt.includes("Change the subject.") ? "!" : ""}`,
    );
    expect(thought).toEqual(["A", "B", "C", "D", "A", "B!", "C", "D"]);
    for (const agent of w.agents)
      expect(agent.memory.some((e) => e.message.text.includes("Change the subject"))).toBe(false);
  });

  it("calls afterStep once each step, after the step's messages are committed", async () => {
    const seen: string[] = [];
    const hooked = createWorld(world("sequential_random", 1, 2), {
      model: scriptedAgentModel(sayName),
      afterStep: (step) => {
        seen.push(`${step}:${hooked.messages.length}`);
      },
    });
    await hooked.run();
    expect(seen).toEqual(["1:5", "2:10"]);
  });
});

describe("the anti-convergence nudge in a world", () => {
  it("reaches Ines's prompt in the step it fires, and is in neither her memory nor the transcript afterwards", async () => {
    const model = scriptedAgentModel((call) => [{ channel: "harbour", text: `${speaker(call)} agrees` }]);
    const judge = scriptedJudge(() => ({ value: true }));
    const w = createWorld(loadWorldFile(HARBOUR), { model, judge });
    const { transcript, stats } = await w.run({ steps: 1 });
    const nudge = "Cite the regulation that everyone is forgetting.";
    expect(stats.fired).toEqual([{ step: 1, name: "anti_convergence", agent_ids: ["ines"] }]);
    expect(model.prompts.filter((p) => p.prompt.includes(nudge)).map(speaker)).toEqual(["Ines"]);
    const ines = w.agents.find((a) => a.agent.id === "ines")!;
    expect(ines.memory.some((e) => e.message.text.includes(nudge))).toBe(false);
    expect(ines.pendingThoughts).toEqual([]);
    expect(JSON.stringify(transcript)).not.toContain(nudge);
    expect(judge.asked.map((i) => i.key.agent_id)).toEqual(["ines"]);
  });
});
