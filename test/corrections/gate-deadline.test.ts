// The gate's deadline counts from a message's arrival: a gate reads and parses its built-in proposition
// sets when it is made (a world's corrections: when they are made, before any agent speaks), never inside
// a check. The propositions module is wrapped to count the files parsed.
import { describe, expect, it, vi } from "vitest";
import { createActionGate, worldCorrections } from "../../src/corrections/index.ts";
import { drift, heldJudge, marta } from "./gate-fixtures.ts";

const parsed = vi.hoisted(() => ({ files: 0 }));

vi.mock("../../src/propositions/index.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/propositions/index.ts")>();
  return {
    ...original,
    parsePropositionFile: (...args: Parameters<typeof original.parsePropositionFile>) => {
      parsed.files++;
      return original.parsePropositionFile(...args);
    },
    builtinSuitabilitySet: (...args: Parameters<typeof original.builtinSuitabilitySet>) => {
      parsed.files++;
      return original.builtinSuitabilitySet(...args);
    },
  };
});

const ALL_ON = {
  gate_adherence_enabled: true,
  gate_consistency_enabled: true,
  gate_fluency_enabled: true,
  gate_suitability_enabled: true,
};

describe("the gate's deadline, from the message's arrival", () => {
  it("with a judge that never answers, the first message is released within the deadline of its arrival", async () => {
    const timeoutMs = 150;
    const judge = heldJudge();
    // The file's first gate, built-in sets and all: nothing has parsed a proposition file yet in this worker.
    const gate = createActionGate({ judge, config: ALL_ON, timeoutMs });
    const arrived = performance.now();
    const result = await gate.check({ agent: marta, tentativeText: drift.drift, history: drift.history });
    const held = performance.now() - arrived;
    expect(result.outcome).toBe("timeout_pass_through");
    expect(held).toBeGreaterThanOrEqual(timeoutMs - 1);
    // Parsing the sets in the check held it 60–110 ms past the deadline here; timers may run a little late.
    expect(held).toBeLessThan(timeoutMs + 40);
  });

  it("a new gate parses the built-in sets of its dimensions when it is made; its first check parses none", async () => {
    parsed.files = 0;
    const judge = heldJudge();
    const gate = createActionGate({ judge, config: ALL_ON, timeoutMs: 20 });
    expect(parsed.files).toBe(4);
    await gate.check({ agent: marta, tentativeText: drift.drift, history: drift.history });
    expect(parsed.files).toBe(4);
    // Each dimension was judged with its built-in set.
    expect(judge.requests.map((r) => r.items[0]!.key.dimension).sort()).toEqual([
      "adherence",
      "consistency",
      "fluency",
      "suitability",
    ]);
  });

  it("a world's corrections parse the built-in sets before any agent speaks; its gates parse none", async () => {
    parsed.files = 0;
    const corrections = worldCorrections({ judge: heldJudge(), configs: { marta: ALL_ON }, timeoutMs: 20 });
    expect(parsed.files).toBe(4);
    await corrections.beforeCommit({
      agent: marta,
      channel: "engine-room",
      text: drift.drift,
      history: [],
      step: 1,
      regenerate: async () => drift.drift,
    });
    expect(corrections.checks).toHaveLength(1);
    expect(parsed.files).toBe(4);
  });
});
