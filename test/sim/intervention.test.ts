// Interventions: every precondition must hold (AND), cheap functional ones first, the seed's threshold
// inversion for propositional ones, batches, and the built-in anti-convergence and variety interventions.
import { describe, expect, it } from "vitest";
import { CorrectionSettingsSchema } from "../../src/core/index.ts";
import {
  antiConvergenceIntervention,
  createPersonaAgent,
  DEFAULT_VARIETY_NUDGE,
  Intervention,
  InterventionBatch,
  varietyIntervention,
} from "../../src/sim/index.ts";
import { scriptedAgentModel } from "./scripted-agent-model.ts";
import { scriptedJudge } from "./scripted-judge.ts";

const model = scriptedAgentModel(() => [{ channel: "room", text: "I agree with everyone." }]);
function agent(id: string, corrections = {}, nudges = {}) {
  return createPersonaAgent({
    agent: { id, name: id.toUpperCase(), persona: `${id}'s persona` },
    channels: ["room"],
    model,
    corrections: CorrectionSettingsSchema.parse(corrections),
    nudges,
  });
}
const context = (judge = scriptedJudge(() => ({ value: true }))) => ({ step: 1, judge });

describe("an intervention", () => {
  it("fires when every precondition holds and applies its effect to its targets", async () => {
    const a = agent("a");
    const fired = await new Intervention(a)
      .setFunctionalPrecondition(() => true)
      .setTextualPrecondition("{{agent_name}} agrees too much")
      .setEffect((targets) => {
        for (const t of targets) t.think("disagree");
      })
      .execute(context());
    expect(fired).toBe(true);
    expect(a.pendingThoughts).toEqual(["disagree"]);
  });

  it("does not fire when the textual precondition is false, even if the functional one holds", async () => {
    const a = agent("a");
    const fired = await new Intervention(a)
      .setFunctionalPrecondition(() => true)
      .setTextualPrecondition("x")
      .setEffect((targets) => {
        for (const t of targets) t.think("disagree");
      })
      .execute(context(scriptedJudge(() => ({ value: false }))));
    expect(fired).toBe(false);
    expect(a.pendingThoughts).toEqual([]);
  });

  it("asks no judge when the functional precondition is false", async () => {
    const judge = scriptedJudge(() => ({ value: true }));
    const fired = await new Intervention(agent("a"))
      .setFunctionalPrecondition(() => false)
      .setTextualPrecondition("x")
      .execute(context(judge));
    expect(fired).toBe(false);
    expect(judge.asked).toEqual([]);
  });

  it("judges the textual claim about its single target, keyed by its name and the agent", async () => {
    const judge = scriptedJudge(() => ({ value: true }));
    await new Intervention(agent("a"), { name: "echo" })
      .setTextualPrecondition("{{agent_name}} echoes")
      .execute(context(judge));
    expect(judge.asked).toEqual([
      {
        key: { dimension: "intervention", proposition_id: "echo", agent_id: "a", trial: 1 },
        kind: "check",
        claim: "A echoes",
      },
    ]);
  });

  it("treats an errored verdict as a false precondition (fails closed)", async () => {
    const fired = await new Intervention(agent("a"))
      .setTextualPrecondition("x")
      .execute(context(scriptedJudge(() => "error")));
    expect(fired).toBe(false);
  });

  it("with a threshold, holds only while the proposition's score is below it", async () => {
    const proposition = { id: "diverse", claim: "the agents' voices are distinct" };
    const at = async (score: number) =>
      new Intervention(agent("a"))
        .setPropositionalPrecondition(proposition, 5)
        .execute(context(scriptedJudge(() => ({ score }))));
    expect(await at(4)).toBe(true);
    expect(await at(5)).toBe(false);
    expect(await at(9)).toBe(false);
  });

  it("without a threshold, checks the proposition as true or false", async () => {
    const judge = scriptedJudge(() => ({ value: true }));
    const fired = await new Intervention(agent("a"))
      .setPropositionalPrecondition({ id: "stuck", claim: "the agent is stuck" })
      .execute(context(judge));
    expect(fired).toBe(true);
    expect(judge.asked.map((i) => [i.kind, i.key.proposition_id])).toEqual([["check", "stuck"]]);
  });
});

describe("an intervention batch", () => {
  it("makes one intervention per agent, each checking and nudging its own target", async () => {
    const [a, b] = [agent("a"), agent("b")];
    const batch = InterventionBatch.createForEach([a, b], { name: "nudge" })
      .setTextualPrecondition("{{agent_name}} is stuck")
      .setEffect((targets) => {
        for (const t of targets) t.think(`hi ${t.agent.id}`);
      });
    const judge = scriptedJudge((item) => ({ value: item.key.agent_id === "b" }));
    const fired = [];
    for (const i of batch) fired.push(await i.execute(context(judge)));
    expect(batch.asList().map((i) => i.name)).toEqual(["nudge_0", "nudge_1"]);
    expect(fired).toEqual([false, true]);
    expect([a.pendingThoughts, b.pendingThoughts]).toEqual([[], ["hi b"]]);
  });
});

describe("the anti-convergence intervention", () => {
  it("fires when the agent's config enables it and the judge sees agreement, with the agent's own nudge", async () => {
    const a = agent("michael", { anti_convergence_enabled: true }, { anti_convergence: "Tell a story." });
    expect(await antiConvergenceIntervention(a).execute(context())).toBe(true);
    expect(a.pendingThoughts).toEqual(["Tell a story."]);
  });

  it("does not fire, and asks no judge, when the agent's config leaves it off", async () => {
    const judge = scriptedJudge(() => ({ value: true }));
    const a = agent("michael");
    expect(await antiConvergenceIntervention(a).execute(context(judge))).toBe(false);
    expect(judge.asked).toEqual([]);
  });

  it("does not fire when the judge sees no agreement pattern", async () => {
    const a = agent("michael", { anti_convergence_enabled: true });
    expect(
      await antiConvergenceIntervention(a).execute(context(scriptedJudge(() => ({ value: false })))),
    ).toBe(false);
    expect(a.pendingThoughts).toEqual([]);
  });
});

describe("the variety intervention", () => {
  it("waits until the agent has sent variety_message_threshold messages", async () => {
    const a = agent("jim", { variety_intervention_enabled: true, variety_message_threshold: 2 });
    const variety = varietyIntervention(a);
    expect(await variety.execute(context())).toBe(false);
    await a.act({ step: 1 });
    await a.act({ step: 2 });
    expect(await variety.execute(context())).toBe(true);
    expect(a.pendingThoughts).toEqual([DEFAULT_VARIETY_NUDGE]);
  });
});
