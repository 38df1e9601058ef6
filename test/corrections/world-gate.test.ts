// The action gate and repetition suppression on a world's agents: a scripted world where Marta drifts into
// assistant-speak (test/fixtures/corrections/drift.json), judged by the hand-written verdicts of
// gate-fixtures.ts; the gate's logs in a store; the stored settings winning over the world file's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import {
  gateHistory,
  requireWorldJudge,
  resolveWorldCorrections,
  simulateWithCorrections,
  worldCorrections,
} from "../../src/corrections/index.ts";
import type { Judge } from "../../src/judge/index.ts";
import { createWorld, loadWorldFile, parseWorldFile } from "../../src/sim/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { type AgentCall, scriptedAgentModel, speaker } from "../sim/scripted-agent-model.ts";
import { ADHERENCE_BY_TEXT, ALL_SETS, drift, driftJudge, heldJudge } from "./gate-fixtures.ts";

const ENGINE_ROOM = loadWorldFile(new URL("../fixtures/worlds/engine-room.yml", import.meta.url).pathname);
const GATED = { marta: { gate_adherence_enabled: true } };

/** Marta drifts, then writes the fixture's retries as the feedback asks for attempts 2 and 3; Bob asks. */
function driftingModel() {
  return scriptedAgentModel((call: AgentCall) => {
    if (speaker(call) !== "Marta Ilves") return [{ channel: "engine-room", text: "Is it the pump again?" }];
    if (call.prompt.includes("Write attempt 3")) return [{ channel: "engine-room", text: drift.retries[1] }];
    if (call.prompt.includes("Write attempt 2")) return [{ channel: "engine-room", text: drift.retries[0] }];
    return [{ channel: "engine-room", text: drift.drift }];
  });
}

const martaPrompts = (model: ReturnType<typeof driftingModel>) =>
  model.prompts.filter((p) => speaker(p) === "Marta Ilves").map((p) => p.prompt);

const martaSaid = (messages: readonly { sender: string; text: string }[]) =>
  messages.filter((m) => m.sender === "marta").map((m) => m.text);

let store: Store;
beforeAll(async () => {
  store = await openStore("memory://");
});
afterAll(async () => {
  await store.close();
});

describe("the action gate on a world's agents", () => {
  it("catches the drifting message and commits the retry that passes, as corrected", async () => {
    const model = driftingModel();
    const passing = new Map([...ADHERENCE_BY_TEXT, [drift.retries[1], 8]]);
    const gate = worldCorrections({ judge: driftJudge(passing), configs: GATED, propositions: ALL_SETS });
    const w = createWorld(ENGINE_ROOM, { model, beforeCommit: gate.beforeCommit });
    const { transcript } = await w.run();
    expect(martaSaid(transcript.messages)).toEqual([drift.retries[1]]);
    expect(gate.checks.map((c) => [c.agent_id, c.outcome, c.attempt_number])).toEqual([
      ["marta", "corrected", 3],
    ]);
    expect(gate.checks[0]!.original_text).toBe(drift.drift);
  });

  it("shows each retry every earlier failed attempt, its judge's reasoning and the propositions' recommendations", async () => {
    const model = driftingModel();
    const gate = worldCorrections({ judge: driftJudge(), configs: GATED, propositions: ALL_SETS });
    await createWorld(ENGINE_ROOM, { model, beforeCommit: gate.beforeCommit }).run();
    const [, second, third] = martaPrompts(model);
    expect(second).toContain(drift.drift.slice(0, 40));
    expect(second).toContain("Recommendation for adherence: speak as Marta Ilves would.");
    expect(second).toContain("hand-written: adherence of");
    // The third attempt's prompt carries both failed attempts, and a stronger call for change.
    expect(third).toContain(drift.drift.slice(0, 40));
    expect(third).toContain(drift.retries[0]);
    expect(third).toContain("MORE RADICAL than last time");
  });

  it("commits the best attempt, by its dimension scores, when no attempt passes", async () => {
    const model = driftingModel();
    // Hand-written: the first retry is the best of three failures.
    const scores = new Map([
      [drift.drift, 1],
      [drift.retries[0], 6],
      [drift.retries[1], 4],
    ]);
    const gate = worldCorrections({ judge: driftJudge(scores), configs: GATED, propositions: ALL_SETS });
    const { transcript } = await createWorld(ENGINE_ROOM, { model, beforeCommit: gate.beforeCommit }).run();
    expect(martaSaid(transcript.messages)).toEqual([drift.retries[0]]);
    expect(gate.checks.map((c) => [c.outcome, c.attempt_number, c.corrected_text])).toEqual([
      ["forced_through", 2, drift.retries[0]],
    ]);
  });

  it("commits the drift untouched, with no judge call, when the agent's gate is off", async () => {
    const model = driftingModel();
    let asked = 0;
    const scripted = driftJudge();
    const judge: Judge = {
      ...scripted,
      judge: (request, options) => {
        asked++;
        return scripted.judge(request, options);
      },
    };
    const gate = worldCorrections({ judge, configs: {}, propositions: ALL_SETS });
    const { transcript } = await createWorld(ENGINE_ROOM, { model, beforeCommit: gate.beforeCommit }).run();
    expect(martaSaid(transcript.messages)).toEqual([drift.drift]);
    expect(asked).toBe(0);
    expect(gate.checks).toEqual([]);
    expect(martaPrompts(model)).toHaveLength(1);
  });

  it("drops the message when no attempt passes and the agent's continue_on_failure is off", async () => {
    const gate = worldCorrections({
      judge: driftJudge(),
      configs: { marta: { gate_adherence_enabled: true, continue_on_failure: false } },
      propositions: ALL_SETS,
    });
    const { transcript, stats } = await createWorld(ENGINE_ROOM, {
      model: driftingModel(),
      beforeCommit: gate.beforeCommit,
    }).run();
    expect(martaSaid(transcript.messages)).toEqual([]);
    expect(stats.dropped).toBe(1);
    expect(gate.summary()).toMatchObject({ checks: 1, rejected: 1, outcomes: { rejected: 1 } });
    expect(gate.checks.map((c) => [c.outcome, c.corrected_text])).toEqual([["rejected", null]]);
  });

  it("passes the message through, logged as timeout_pass_through, when the judge hangs", async () => {
    const judge = heldJudge();
    const gate = worldCorrections({ judge, configs: GATED, propositions: ALL_SETS, timeoutMs: 50 });
    const started = performance.now();
    const { transcript } = await createWorld(ENGINE_ROOM, {
      model: driftingModel(),
      beforeCommit: gate.beforeCommit,
    }).run();
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(martaSaid(transcript.messages)).toEqual([drift.drift]);
    expect(gate.checks.map((c) => c.outcome)).toEqual(["timeout_pass_through"]);
    expect(gate.checks[0]!.dimension_scores.adherence).toMatchObject({ passed: true, timed_out: true });
  });

  it("writes the checks to the store's correction_logs with the run id when a step ends", async () => {
    const runId = "run-writes-at-step-end";
    const gate = worldCorrections({
      judge: driftJudge(),
      configs: GATED,
      propositions: ALL_SETS,
      log: store,
      runId,
    });
    const stored: number[] = [];
    await createWorld(ENGINE_ROOM, {
      model: driftingModel(),
      beforeCommit: gate.beforeCommit,
      afterStep: async () => {
        await gate.flush();
        stored.push(
          (await store.corrections.list({ agent_id: "marta" })).filter((r) => r.run_id === runId).length,
        );
      },
    }).run({ steps: 2 });
    expect(stored).toEqual([1, 2]);
    const rows = (await store.corrections.list({ agent_id: "marta" })).filter((r) => r.run_id === runId);
    expect(rows.map((r) => r.outcome)).toEqual(["forced_through", "forced_through"]);
  });
});

describe("repetition suppression in a world", () => {
  const REPEAT = "The coolant pump seal is worn again, as I said.";
  const repeating = () =>
    scriptedAgentModel((call) =>
      speaker(call) === "Marta Ilves" ? [{ channel: "engine-room", text: REPEAT }] : [],
    );

  it("tells an agent repeating itself which messages and phrases to avoid, in that act only", async () => {
    const model = repeating();
    const gate = worldCorrections({ configs: { marta: { repetition_suppression_enabled: true } } });
    const w = createWorld(ENGINE_ROOM, { model, beforeAct: gate.beforeAct });
    await w.run({ steps: 3 });
    // After one message there is nothing to repeat; after two identical ones the third act is told.
    const told = martaPrompts(model).map((p) => p.includes("Your last messages repeat one another"));
    expect(told).toEqual([false, false, true]);
    expect(martaPrompts(model)[2]).toContain('- "coolant pump seal"');
    const marta = w.agents.find((a) => a.agent.id === "marta")!;
    expect(marta.memory.some((e) => e.message.text.includes("repeat one another"))).toBe(false);
    expect(gate.summary().repetitionWarnings).toBe(1);
  });

  it("says nothing when the agent's repetition suppression is off", async () => {
    const model = repeating();
    const gate = worldCorrections({ configs: {} });
    await createWorld(ENGINE_ROOM, { model, beforeAct: gate.beforeAct }).run({ steps: 3 });
    expect(martaPrompts(model).some((p) => p.includes("repeat one another"))).toBe(false);
  });
});

describe("a simulation with corrections", () => {
  it("uses an agent's stored settings over the world file's", async () => {
    const own = await openStore("memory://");
    try {
      await own.agentConfig.set("marta", {
        gate_adherence_enabled: false,
        repetition_suppression_enabled: true,
      });
      const world = await resolveWorldCorrections(ENGINE_ROOM, { store: own });
      const marta = world.agents.find((a) => a.id === "marta")!;
      expect(marta.corrections).toMatchObject({
        gate_adherence_enabled: false,
        repetition_suppression_enabled: true,
      });
    } finally {
      await own.close();
    }
  });

  it("uses the world file's settings over dramaturg.yaml's, and dramaturg.yaml's for agents the world leaves unset", async () => {
    const world = await resolveWorldCorrections(ENGINE_ROOM, {
      project: { _default: { gate_fluency_enabled: true }, marta: { gate_adherence_enabled: false } },
    });
    const [marta, bob] = world.agents;
    expect(marta!.corrections).toMatchObject({ gate_adherence_enabled: true });
    expect(bob!.corrections).toMatchObject({ gate_fluency_enabled: true, gate_adherence_enabled: false });
  });

  it("keeps dramaturg.yaml's other keys for an agent whose world file sets one key", async () => {
    const world = await resolveWorldCorrections(ENGINE_ROOM, {
      project: {
        _default: { gate_fluency_enabled: true },
        marta: { gate_similarity_enabled: true, max_action_similarity: 0.4 },
      },
    });
    expect(world.agents[0]!.corrections).toMatchObject({
      gate_adherence_enabled: true,
      gate_fluency_enabled: true,
      gate_similarity_enabled: true,
      max_action_similarity: 0.4,
      gate_consistency_enabled: false,
    });
  });

  it("refuses a gated world without a judge before any model is called", async () => {
    const model = driftingModel();
    await expect(simulateWithCorrections(ENGINE_ROOM, { model })).rejects.toSatisfy(
      (e) =>
        InputError.isInstance(e) &&
        /agent "marta" turns on the action gate's adherence check/.test(e.message),
    );
    expect(model.prompts).toEqual([]);
    expect(() => requireWorldJudge(parseWorldFile(WORLD_WITHOUT_CORRECTIONS), undefined)).not.toThrow();
  });

  it("runs the world, stores the gate's logs under its run id, and summarises what the gate did", async () => {
    const result = await simulateWithCorrections(ENGINE_ROOM, {
      model: driftingModel(),
      judge: driftJudge(),
      propositions: ALL_SETS,
      store,
      runId: "run-simulated",
    });
    expect(result.runId).toBe("run-simulated");
    expect(result.corrections).toMatchObject({ checks: 1, outcomes: { forced_through: 1 } });
    const rows = (await store.corrections.list()).filter((r) => r.run_id === "run-simulated");
    expect(rows.map((r) => [r.agent_id, r.outcome, r.corrected_text])).toEqual([
      ["marta", "forced_through", drift.retries[1]],
    ]);
  });
});

describe("gateHistory", () => {
  it("maps an agent's own messages to entries without a sender, and what it perceived to entries naming the speaker", () => {
    const at = "2026-01-01T09:00:00.000Z";
    expect(
      gateHistory([
        {
          kind: "stimulus",
          message: { id: "1", sender: "bob", channel: "c", text: "Status?", at },
          senderName: "Bob",
        },
        {
          kind: "action",
          message: { id: "2", sender: "marta", channel: "c", text: "Hot.", at },
          senderName: "Marta",
        },
      ]),
    ).toEqual([{ text: "Status?", from: "Bob" }, { text: "Hot." }]);
  });
});

const WORLD_WITHOUT_CORRECTIONS = `
format: dramaturg.world/v1
agents: [{id: a, name: A, persona: someone}]
channels: [{id: c}]
steps: 1
`;
