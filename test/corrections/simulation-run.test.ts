// A world simulation as a stored `simulation` evaluation: the scripted engine-room world where Marta drifts
// (test/fixtures/corrections/drift.json), judged by gate-fixtures.ts's hand-written verdicts, in memory://.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import { runSimulation } from "../../src/corrections/index.ts";
import {
  listSimulationResults,
  loadSimulationResult,
  loadWorldFile,
  SIMULATION_RESULT_FORMAT,
} from "../../src/sim/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { type AgentCall, scriptedAgentModel, speaker } from "../sim/scripted-agent-model.ts";
import { ALL_SETS, drift, driftJudge } from "./gate-fixtures.ts";

const ENGINE_ROOM = loadWorldFile(new URL("../fixtures/worlds/engine-room.yml", import.meta.url).pathname);

/** Marta drifts, then writes the fixture's retries; Bob asks. */
function driftingModel() {
  return scriptedAgentModel((call: AgentCall) => {
    if (speaker(call) !== "Marta Ilves") return [{ channel: "engine-room", text: "Is it the pump again?" }];
    if (call.prompt.includes("Write attempt 3")) return [{ channel: "engine-room", text: drift.retries[1] }];
    if (call.prompt.includes("Write attempt 2")) return [{ channel: "engine-room", text: drift.retries[0] }];
    return [{ channel: "engine-room", text: drift.drift }];
  });
}

let store: Store;
beforeAll(async () => {
  store = await openStore("memory://");
});
afterAll(async () => {
  await store.close();
});

const run = () =>
  runSimulation(ENGINE_ROOM, {
    store,
    source: "worlds/engine-room.yml",
    model: driftingModel(),
    judge: driftJudge(),
    propositions: ALL_SETS,
  });

describe("a stored simulation", () => {
  it("is a completed evaluation of kind simulation whose id is the run id of its gate checks", async () => {
    const { evaluation_id: id } = await run();
    expect(await store.evaluations.get(id)).toMatchObject({
      kind: "simulation",
      status: "completed",
      source: "worlds/engine-room.yml",
    });
    const logs = await store.corrections.list({ run_id: id });
    expect(logs.map((l) => [l.agent_id, l.outcome, l.run_id])).toEqual([["marta", "forced_through", id]]);
  });

  it("keeps a result document with the world, the transcript's place and the gate's statistics", async () => {
    const { evaluation_id: id, document } = await run();
    expect(document).toMatchObject({
      format: SIMULATION_RESULT_FORMAT,
      world: { file: "engine-room.yml" },
      model: "mock-provider:mock-model-id",
      seed: 0,
      steps: 1,
      transcript: { messages: 2, dropped: 0, source: `simulation:${id}` },
      gate: { checks: 1, outcomes: { forced_through: 1 } },
      statistics: { checks: 1, forced_through: 1, original_successes: 0 },
    });
    expect(document.world.hash).toMatch(/^[0-9a-f]{16}$/);
    // Two acts, Marta's with two redrafts: four model calls of 10 + 5 tokens each (scripted-agent-model.ts).
    // The scripted judge calls no model, so it bills none.
    expect(document.calls).toEqual({ agent: 4, judge: 0, interventions: 0, gate: 0, gate_checks: 1 });
    expect(document.tokens.agents).toEqual({ input_tokens: 40, output_tokens: 20 });
    const stored = await store.messages.query({ source: `simulation:${id}` });
    expect(stored.map((m) => m.sender).sort()).toEqual(["bob", "captain", "marta"]);
  });

  it("is read back by its id or its first 8 characters as it was stored", async () => {
    const { evaluation_id: id, document } = await run();
    expect(await loadSimulationResult({ store, id })).toEqual({ ...document, evaluation_id: id });
    expect(await loadSimulationResult({ store, id: id.slice(0, 8) })).toEqual({
      ...document,
      evaluation_id: id,
    });
  });

  it("is listed newest first with its world, steps, messages and gate checks", async () => {
    const { evaluation_id: id } = await run();
    const [newest] = await listSimulationResults({ store, limit: 1 });
    expect(newest).toMatchObject({
      id,
      status: "completed",
      world: "engine-room.yml",
      steps: 1,
      messages: 2,
      gate_checks: 1,
    });
  });

  it("is stored as failed, with its error, when an agent's model fails mid-run", async () => {
    const failing = scriptedAgentModel(() => {
      throw new Error("the model fell over");
    });
    await expect(runSimulation(ENGINE_ROOM, { store, model: failing, judge: driftJudge() })).rejects.toThrow(
      /the model fell over/,
    );
    const [latest] = await store.evaluations.list({ kind: "simulation", limit: 1 });
    expect(latest).toMatchObject({ status: "failed", error: expect.stringMatching(/the model fell over/) });
  });

  it("writes nothing for bad input: a world without a model is refused before the evaluation is created", async () => {
    const before = (await store.evaluations.list({ kind: "simulation" })).length;
    await expect(runSimulation(ENGINE_ROOM, { store, judge: driftJudge() })).rejects.toSatisfy(
      (e) => InputError.isInstance(e) && /no model for the agents/.test(e.message),
    );
    expect(await store.evaluations.list({ kind: "simulation" })).toHaveLength(before);
  });
});
