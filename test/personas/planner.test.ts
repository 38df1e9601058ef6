// The planner's verdict keys and lazily built contexts, on the hand-scored transcript (test/fixtures/hand-scored).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PERSONA_DIMENSIONS, type PropositionSet, parseTranscript } from "../../src/core/index.ts";
import { requestOf } from "../../src/engine/index.ts";
import { planPersonaEvaluation } from "../../src/personas/index.ts";
import { loadPropositions, propositionSetFor } from "../../src/propositions/index.ts";

const dir = fileURLToPath(new URL("../fixtures/hand-scored/", import.meta.url));
const transcript = parseTranscript(readFileSync(`${dir}transcript.json`, "utf8"), "transcript.json");

async function plan(trials: number, dimension: "adherence" | "consistency" = "adherence") {
  const loaded = await loadPropositions({
    dir: `${dir}propositions`,
    dimensions: PERSONA_DIMENSIONS,
    agentIds: transcript.agents.map((a) => a.id),
  });
  return planPersonaEvaluation({
    transcript,
    propositions: (d, a) => propositionSetFor(loaded, d, a),
    dimensions: [dimension],
    mode: "individual",
    trials,
  });
}

describe("planner", () => {
  it("gives every key its fields in one order, the trial last, as stored keys always had", async () => {
    for (const call of (await plan(2)).calls())
      for (const { key } of call.items)
        expect(Object.keys(key)).toEqual(["dimension", "proposition_id", "agent_id", "message_id", "trial"]);
  });

  it("repeats each call once per trial, the keys differing only in their trial", async () => {
    const keys = [...(await plan(2)).calls()].flatMap((c) => c.items.map((i) => i.key));
    const first = keys.filter((k) => k.trial === 1).map(({ trial: _, ...rest }) => rest);
    const second = keys.filter((k) => k.trial === 2).map(({ trial: _, ...rest }) => rest);
    expect(first.length).toBeGreaterThan(0);
    expect(second).toEqual(first);
  });

  it("builds a message's trajectory on first use, the same in every pass over the plan", async () => {
    const p = await plan(1);
    const texts = () => [...p.calls()].map((call) => requestOf(call).context.trajectory.text);
    const once = texts();
    expect(once.some((t) => t.includes("#1 "))).toBe(true);
    expect(texts()).toEqual(once);
  });

  it("consistency judges every message of an agent but its first, each against its earlier messages", async () => {
    const calls = [...(await plan(1, "consistency")).calls()];
    for (const agent of transcript.agents) {
      const own = transcript.messages.filter((m) => m.sender === agent.id).map((m) => m.id);
      const judged = calls.filter((c) => c.items[0]!.key.agent_id === agent.id);
      expect([...new Set(judged.map((c) => c.items[0]!.key.message_id))]).toEqual(own.slice(1));
      for (const call of judged) {
        const at = own.indexOf(call.items[0]!.key.message_id!);
        const history = requestOf(call).context.trajectory.text;
        // The message just before is the last of its history; the message itself is not in it.
        expect(history).toContain(`#${at} `);
        expect(history).not.toContain(`#${at + 1} `);
      }
    }
  });

  it("says it double-checks only when a call does: not for a set that asks but has no call left", async () => {
    const loaded = await loadPropositions({
      dir: `${dir}propositions`,
      dimensions: PERSONA_DIMENSIONS,
      agentIds: transcript.agents.map((a) => a.id),
    });
    const planWith = (change: (set: PropositionSet) => PropositionSet) =>
      planPersonaEvaluation({
        transcript,
        propositions: (d, a) => {
          const set = propositionSetFor(loaded, d, a);
          return set && change(set);
        },
        dimensions: ["adherence"],
        mode: "individual",
      });
    const unchanged = planWith((set) => set);
    expect([...unchanged.calls()].some((c) => c.doubleCheck)).toBe(false);
    expect(unchanged.doubleChecked()).toBe(false);
    const asked = planWith((set) => ({ ...set, double_check: true }));
    expect([...asked.calls()].every((c) => c.doubleCheck)).toBe(true);
    expect(asked.doubleChecked()).toBe(true);
    // Every precondition false: every verdict is trivial, no call is made, so nothing is double-checked.
    const noCall = planWith((set) => ({
      ...set,
      double_check: true,
      propositions: set.propositions.map((p) => ({ ...p, precondition: () => false })),
    }));
    expect([...noCall.calls()]).toEqual([]);
    expect([...noCall.trivial()].length).toBeGreaterThan(0);
    expect(noCall.doubleChecked()).toBe(false);
  });
});
