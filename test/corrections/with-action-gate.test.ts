import { describe, expect, it, vi } from "vitest";
import { type GateCheckResult, memoryCorrectionLog, withActionGate } from "../../src/corrections/index.ts";
import { ALL_SETS, drift, driftJudge, marta } from "./gate-fixtures.ts";

describe("withActionGate", () => {
  it("sends the corrected text instead of the drift", async () => {
    const send = vi.fn(async (text: string) => text.length);
    const sink = memoryCorrectionLog();
    const sendMessage = withActionGate(send, {
      agent: marta,
      gate: {
        judge: driftJudge(),
        config: { gate_adherence_enabled: true },
        propositions: ALL_SETS,
        log: sink.log,
      },
      regenerate: () => "Port runs hot. Seal goes tonight.",
    });
    const value = await sendMessage(drift.drift);
    expect(send).toHaveBeenCalledExactlyOnceWith("Port runs hot. Seal goes tonight.");
    expect(value).toBe("Port runs hot. Seal goes tonight.".length);
    expect(sink.entries[0]).toMatchObject({ outcome: "corrected" });
  });

  it("sends the drift unchanged when the gate is off", async () => {
    const send = vi.fn(async (_text: string) => undefined);
    const sendMessage = withActionGate(send, { agent: marta, gate: {}, regenerate: () => "never asked" });
    await sendMessage(drift.drift);
    expect(send).toHaveBeenCalledExactlyOnceWith(drift.drift);
  });

  it("remembers what it sent, so a repeated message fails the similarity check", async () => {
    const results: GateCheckResult[] = [];
    const sendMessage = withActionGate(async () => undefined, {
      agent: marta,
      gate: { config: { gate_similarity_enabled: true } },
      onCheck: (r) => results.push(r),
    });
    await sendMessage("Coolant pump. Seal's worn.");
    await sendMessage("Coolant pump. Seal's worn.");
    expect(results.map((r) => r.attempts[0]!.similarity)).toEqual([0, 1]);
    expect(results[1]!.outcome).toBe("forced_through");
  });

  it("reads the history from its option when given", async () => {
    const history = vi.fn(() => drift.history);
    const results: GateCheckResult[] = [];
    const sendMessage = withActionGate(async () => undefined, {
      agent: marta,
      gate: { config: { gate_similarity_enabled: true } },
      history,
      onCheck: (r) => results.push(r),
    });
    await sendMessage(drift.history[1]!.text);
    expect(history).toHaveBeenCalledOnce();
    expect(results[0]!.committed.similarity).toBe(1);
  });
});
