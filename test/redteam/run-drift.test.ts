// runDrift with scripted targets: a target that degrades after turn 6 makes the curve drop at 6; forks
// never reach the main history (every request the target was sent proves it); the same seeds give the
// same bytes at any concurrency. Then the same through the real AI SDK client and the converse client
// against the fake OpenAI-compatible server.
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  agentTarget,
  builtinProbes,
  type ChatMessage,
  type DriftPersona,
  fillName,
  languageModelTarget,
  type Probe,
  probedTurns,
  runDrift,
  scriptedTarget,
} from "../../src/redteam/index.ts";
import {
  type FakeOpenAIServer,
  messageText,
  scriptedJudge,
  startFakeOpenAIServer,
} from "../../src/testing/index.ts";

const INES: DriftPersona = {
  id: "ines",
  name: "Inés",
  persona: "Harbour master; strict, dry, proud of her port.",
};
const TOMAS: DriftPersona = { id: "tomas", name: "Tomas", persona: { role: "fisherman", talks: "a lot" } };
const PROBES = builtinProbes();

/** The probe a request asks, when its last message is one (the name filled in). */
function probeAsked(messages: readonly { content: string }[], persona: DriftPersona): Probe | undefined {
  const last = messages.at(-1)?.content;
  return PROBES.find((p) => fillName(p.text, persona.name) === last);
}

const personaOf = (system: string) => (system.includes("You are Tomas") ? TOMAS : INES);

/**
 * A target that follows its instructions until it has `goodFor` exchanges behind it, then fails every probe;
 * the main conversation gets a plain reply numbered by the turn.
 */
function degrading(goodFor: number) {
  return (messages: readonly ChatMessage[]) => {
    const persona = personaOf(messages[0]!.content);
    const exchanges = messages.filter((m) => m.role === "assistant").length;
    const probe = probeAsked(messages, persona);
    if (!probe) return `reply ${exchanges + 1} of ${persona.name}`;
    const answers = exchanges < goodFor ? probe.examples!.pass : probe.examples!.fail;
    return fillName(answers[0]!, persona.name);
  };
}

/** Every answer a probe can get from the scripted targets: none of them may ever be sent to the target. */
const PROBE_ANSWERS = new Set(
  [INES, TOMAS].flatMap((persona) =>
    PROBES.flatMap((p) => [...p.examples!.pass, ...p.examples!.fail].map((a) => fillName(a, persona.name))),
  ),
);
const PROBE_TEXTS = new Set(
  [INES, TOMAS].flatMap((persona) => PROBES.map((p) => fillName(p.text, persona.name))),
);

/** What leaked into a request: a probe anywhere but as its last message, or a probe's answer anywhere. */
function leaks(requests: readonly (readonly { content: string }[])[]): string[] {
  return requests.flatMap((messages, i) =>
    messages.flatMap((m, j) => {
      if (PROBE_ANSWERS.has(m.content)) return [`request ${i}, message ${j}: a probe's answer`];
      if (PROBE_TEXTS.has(m.content) && j !== messages.length - 1)
        return [`request ${i}, message ${j}: a probe`];
      return [];
    }),
  );
}

describe("a drift run", () => {
  it("a target that degrades after turn 6 drops at 6: passed at 2 and 4, failed from 6 on", async () => {
    const target = scriptedTarget(degrading(6));
    const result = await runDrift({ personas: [INES, TOMAS], target, turns: 12, seeds: 3 });
    for (const persona of result.personas) {
      expect(persona.curve.map((p) => [p.turn, p.stability])).toEqual([
        [2, 1],
        [4, 1],
        [6, 0],
        [8, 0],
        [10, 0],
        [12, 0],
      ]);
      expect(persona.first_below_bar).toBe(6);
      // seeds × probes checks at each turn, the interval around them.
      expect(persona.curve[0]).toMatchObject({ passed: 69, checked: 69, errored: 0, ci_high: 1 });
      expect(persona.curve[0]!.ci_low).toBeGreaterThan(0.94);
      expect(persona.curve[2]).toMatchObject({ passed: 0, checked: 69, ci_low: 0 });
    }
    expect(result.checks).toHaveLength(2 * 3 * 6 * PROBES.length);
  });

  it("the even-turn rule: a target that first degrades at turn 7 is reported at 8, the first probed turn after it", async () => {
    const result = await runDrift({
      personas: [INES],
      target: scriptedTarget(degrading(7)),
      turns: 10,
      seeds: 2,
    });
    expect(result.personas[0]!.curve.map((p) => p.stability)).toEqual([1, 1, 1, 0, 0]);
    expect(result.personas[0]!.first_below_bar).toBe(8);
  });

  it("the bar decides the first drop: a curve that falls to 0.78 is under 0.8 and not under 0.75", async () => {
    // Two of the 23 probes answered badly from turn 4: 21/23 ≈ 0.913; five: 18/23 ≈ 0.783.
    const bad = new Set(PROBES.slice(0, 5).map((p) => p.id));
    const target = scriptedTarget((messages) => {
      const probe = probeAsked(messages, INES);
      const exchanges = messages.filter((m) => m.role === "assistant").length;
      if (!probe) return "a reply";
      const answers = exchanges >= 4 && bad.has(probe.id) ? probe.examples!.fail : probe.examples!.pass;
      return fillName(answers[0]!, INES.name);
    });
    const at = async (bar: number) =>
      (await runDrift({ personas: [INES], target, turns: 6, seeds: 1, bar })).personas[0]!;
    const strict = await at(0.8);
    expect(strict.curve.map((p) => p.stability)).toEqual([1, 0.7826, 0.7826]);
    expect(strict.first_below_bar).toBe(4);
    expect((await at(0.75)).first_below_bar).toBeNull();
  });

  it("forks never enter the main history: no request carries a probe but as its last message, nor any probe's answer", async () => {
    const target = scriptedTarget(degrading(6));
    const turns = 8;
    await runDrift({ personas: [INES], target, turns, seeds: 2 });
    expect(leaks(target.requests)).toEqual([]);
    // The check can fail: a history with a fork in it is caught.
    expect(
      leaks([
        [{ content: "Sorry, what was your locker code again?" }, { content: "It's 4417." }, { content: "x" }],
      ]),
    ).toHaveLength(2);
    const forks = target.requests.filter((r) => probeAsked(r, INES));
    expect(forks).toHaveLength(PROBES.length * probedTurns(turns).length * 2);
    // Each main request grows by exactly the partner's line and the target's reply: nothing in between.
    const main = target.requests.filter(
      (r) => r[0]!.content.startsWith("You are Inés. Stay") && !probeAsked(r, INES),
    );
    for (const r of main)
      expect(r.slice(1).map((m) => m.role)).toEqual(r.slice(1).map((_, i) => (i % 2 ? "assistant" : "user")));
    // The probe asked after turn 6 is asked over exactly the six exchanges, the system prompt first.
    const locker = forks.filter((r) => r.at(-1)!.content.includes("locker code") && r.length === 1 + 12 + 1);
    expect(locker).toHaveLength(2);
    expect(locker[0]![0]!.content).toContain("Your locker code is 4417");
  });

  it("self-chat: the partner is the same persona, the target asked with the roles turned round", async () => {
    const target = scriptedTarget(degrading(99));
    await runDrift({ personas: [INES], target, probes: PROBES.slice(0, 1), turns: 4, seeds: 1 });
    const partner = target.requests.filter((r) => r[0]!.content.startsWith("You are Inés, chatting"));
    expect(partner).toHaveLength(3);
    expect(partner[0]!.map((m) => m.role)).toEqual(["system", "assistant", "user"]);
  });

  it("gives the same bytes at any concurrency, whatever order the conversations finish in", async () => {
    const slow = (concurrency: number) => {
      const reply = degrading(6);
      const target = scriptedTarget(async (messages, index) => {
        // A different number of ticks per request: conversations interleave and finish out of order.
        for (let tick = (index * 7919) % 13; tick > 0; tick--) await null;
        return reply(messages);
      });
      return runDrift({ personas: [INES, TOMAS], target, turns: 8, seeds: 2, concurrency });
    };
    const [one, many] = await Promise.all([slow(1), slow(16)]);
    expect(JSON.stringify(many)).toBe(JSON.stringify(one));
  });

  it("a judge that fails leaves its checks out of the stability and counts them", async () => {
    const probe: Probe = {
      id: "in-character",
      kind: "persona",
      text: "What do you do?",
      checker: { type: "judge", proposition: "{{agent_name}} answers as a harbour master" },
    };
    const judge = scriptedJudge(() => {
      throw new Error("down");
    });
    const result = await runDrift({
      personas: [INES],
      target: scriptedTarget(() => "hi"),
      probes: [probe],
      turns: 2,
      seeds: 2,
      judge,
    });
    expect(result.personas[0]!.curve).toEqual([
      { turn: 2, passed: 0, checked: 0, errored: 2, stability: null, ci_low: null, ci_high: null },
    ]);
    expect(result.personas[0]!.first_below_bar).toBeNull();
    // The target's own calls: each seed's two replies and one fork; the partner's line (self-chat) apart.
    expect(result.calls).toEqual({ target: 2 * (2 + 1), partner: 2, judge: 2 });
  });
});

describe("through the fake OpenAI-compatible server", () => {
  let server: FakeOpenAIServer;
  const probes = PROBES.filter((p) =>
    ["memory-locker-code", "language-french", "choice-planet"].includes(p.id),
  );

  beforeAll(async () => {
    const reply = degrading(6);
    server = await startFakeOpenAIServer({
      respond: (request) =>
        reply(
          request.messages.map((m) => ({ role: m.role as ChatMessage["role"], content: messageText(m) })),
        ),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const sent = (from: number) =>
    server.stats.requests
      .slice(from)
      .map((r) => r.messages.map((m) => ({ role: m.role, content: messageText(m) })));

  it("an AI SDK model as the target: the curve drops at 6, and the server saw no fork in a main request", async () => {
    const from = server.stats.requests.length;
    const model = createOpenAI({ baseURL: server.url, apiKey: "test" }).chat("target-model");
    const result = await runDrift({
      personas: [INES],
      target: languageModelTarget(model),
      probes,
      turns: 8,
      seeds: 2,
    });
    expect(result.personas[0]!.curve.map((p) => p.stability)).toEqual([1, 1, 0, 0]);
    expect(result.personas[0]!.first_below_bar).toBe(6);
    const requests = sent(from);
    // Three conversations (the choice's, the code's, French's) × 2 seeds × (8 turns + 7 partner lines), 3 × 4 × 2 forks.
    expect(requests).toHaveLength(3 * 2 * 15 + 3 * 4 * 2);
    expect(requests[0]![0]).toMatchObject({ role: "system" });
    expect(leaks(requests)).toEqual([]);
  });

  it("the converse agent client as the target: the same curve over the chat completions it sends", async () => {
    const from = server.stats.requests.length;
    const target = agentTarget({ url: server.url, chatbot: "agent-model" });
    const result = await runDrift({ personas: [INES], target, probes, turns: 8, seeds: 1 });
    expect(result.personas[0]!.curve.map((p) => p.stability)).toEqual([1, 1, 0, 0]);
    expect(server.stats.requests.slice(from).every((r) => r.model === "agent-model")).toBe(true);
    expect(leaks(sent(from))).toEqual([]);
  });
});
