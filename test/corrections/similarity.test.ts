import { describe, expect, it } from "vitest";
import { actionSimilarity, repetitionCheck } from "../../src/corrections/index.ts";
import { characterMultisetJaccard } from "../../src/text/index.ts";

describe("actionSimilarity", () => {
  it("is 0 with no recent messages", () => {
    expect(actionSimilarity("Coolant pump.", [])).toBe(0);
  });

  it("is 1 for a message repeated word for word, whatever the case and punctuation", () => {
    expect(actionSimilarity("Coolant pump, seal worn!", ["coolant pump seal worn"])).toBe(1);
  });

  it("is the highest word Jaccard against the recent messages", () => {
    // {the, pump, is, hot} vs {the, pump, is, cold}: 3 shared of 5.
    expect(actionSimilarity("The pump is hot", ["Nothing in common here", "The pump is cold"])).toBe(0.6);
  });

  it("scores unrelated sentences low where character Jaccard scores them near TinyTroupe's threshold", () => {
    const a = "We could sell umbrellas that turn into picnic blankets.";
    const b = "Let's build an app that reminds people to water their plants.";
    expect(actionSimilarity(a, [b])).toBeLessThan(0.1);
    expect(characterMultisetJaccard(a, b)).toBeGreaterThan(0.45);
  });
});

describe("repetitionCheck", () => {
  const repetitive = [
    "As I always say, the engine never lies to you.",
    "Well, as I always say, the engine never lies.",
    "The pump again. As I always say, the engine never lies to you.",
  ];
  const varied = [
    "Coolant pump. Seal's worn.",
    "Two more days and the bearing goes.",
    "Starboard is fine, port needs a new seal tonight.",
  ];

  it("flags recent messages whose trigram overlap is above 0.3 and lists the repeated phrases", () => {
    const check = repetitionCheck(repetitive);
    expect(check.overlap).toBeGreaterThan(0.3);
    expect(check.repetitive).toBe(true);
    expect(check.repeated.map((r) => r.ngram)).toContain("engine never lies");
  });

  it("injects the recent messages and the phrases to avoid", () => {
    const { injection } = repetitionCheck(repetitive);
    expect(injection).toContain("1. As I always say, the engine never lies to you.");
    expect(injection).toContain(`- "engine never lies"`);
  });

  it("leaves varied messages alone", () => {
    const check = repetitionCheck(varied);
    expect(check).toMatchObject({ overlap: 0, repetitive: false, injection: null });
  });

  it("looks at the last five messages only", () => {
    const check = repetitionCheck([...repetitive, ...varied, "Fine.", "Done."]);
    expect(check.repetitive).toBe(false);
  });

  it("takes its threshold and n-gram order from the options", () => {
    expect(repetitionCheck(repetitive, { threshold: 0.95 }).repetitive).toBe(false);
    expect(repetitionCheck(repetitive, { n: 5 }).repeated.every((r) => r.n === 5)).toBe(true);
  });
});

describe("repetitionCheck and the text module's recentOverlap", () => {
  it("measure the same overlap on every five-message window of the example transcript", async () => {
    const { readFileSync } = await import("node:fs");
    const { recentOverlap } = await import("../../src/text/index.ts");
    const transcript = JSON.parse(
      readFileSync(new URL("../../examples/ensemble/transcript.json", import.meta.url), "utf8"),
    ) as { messages: { text: string }[] };
    const texts = transcript.messages.map((m) => m.text);
    const repeats = [...texts.slice(0, 3), ...texts.slice(0, 2)];
    for (const window of [...texts.map((_, i) => texts.slice(i, i + 5)), repeats]) {
      const ours = repetitionCheck(window);
      const theirs = recentOverlap(window);
      expect(ours.overlap).toBeCloseTo(theirs.overlapRatio, 12);
      expect(ours.repeated.map((r) => r.ngram).sort()).toEqual(theirs.repeated.map((r) => r.ngram).sort());
    }
  });
});
