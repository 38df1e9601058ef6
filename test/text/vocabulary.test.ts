import { describe, expect, test } from "vitest";
import { movingAverageTypeTokenRatio, typeTokenRatio, vocabularyStatistics } from "../../src/text/index.ts";

// bob: the fish swim fish swim fast — content fish 2, swim 2, fast 1 ("the" is a stopword).
// ann: the fish sleep — content fish 1, sleep 1.
const CHANNEL = new Map([
  ["bob", ["The fish swim.", "Fish swim fast!"]],
  ["ann", ["The fish sleep."]],
]);

describe("vocabularyStatistics", () => {
  test("each agent's counts, type-token ratio and top content words are reported, by agent id", () => {
    const stats = vocabularyStatistics(CHANNEL);
    expect(stats.agents).toEqual([
      {
        agent: "ann",
        messages: 1,
        tokens: 3,
        types: 3,
        typeTokenRatio: 1,
        mattr: 1,
        contentTypes: 2,
        topWords: [
          { word: "fish", count: 1 },
          { word: "sleep", count: 1 },
        ],
      },
      {
        agent: "bob",
        messages: 2,
        tokens: 6,
        types: 4,
        typeTokenRatio: 4 / 6,
        mattr: 4 / 6,
        contentTypes: 3,
        topWords: [
          { word: "fish", count: 2 },
          { word: "swim", count: 2 },
          { word: "fast", count: 1 },
        ],
      },
    ]);
  });

  test("a pair compares content vocabularies by Jaccard and frequency vectors by cosine", () => {
    // Sets {fish, sleep} and {fish, swim, fast}: 1 shared of 4. Vectors (1, 1) and (2, 2, 1): 2 / (√2 · 3).
    const { pairs, summary } = vocabularyStatistics(CHANNEL);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]).toMatchObject({ a: "ann", b: "bob", jaccard: 0.25 });
    expect(pairs[0]?.cosine).toBeCloseTo(Math.SQRT2 / 3, 12);
    expect(summary.meanPairwiseJaccard).toBe(0.25);
    expect(summary.meanPairwiseCosine).toBeCloseTo(Math.SQRT2 / 3, 12);
  });

  test("custom stopwords replace the built-in list", () => {
    // With no stopwords "the" is content: {the, fish, sleep} and {the, fish, swim, fast} share 2 of 5.
    const { pairs } = vocabularyStatistics(CHANNEL, { stopwords: [] });
    expect(pairs[0]?.jaccard).toBe(0.4);
  });

  test("an agent with only stopwords is dissimilar to everyone", () => {
    const { pairs } = vocabularyStatistics(
      new Map([
        ["a", ["the and of"]],
        ["b", ["fish"]],
      ]),
    );
    expect(pairs[0]).toMatchObject({ jaccard: 0, cosine: 0 });
  });

  test("a single agent has no pairs and no pairwise means", () => {
    const stats = vocabularyStatistics(new Map([["solo", ["just me here"]]]));
    expect(stats.pairs).toEqual([]);
    expect(stats.summary).toEqual({ agents: 1, meanPairwiseJaccard: null, meanPairwiseCosine: null });
  });
});

describe("type-token ratios", () => {
  test("the raw type-token ratio is distinct tokens over tokens", () => {
    expect(typeTokenRatio(["a", "b", "a", "a"])).toBe(0.5);
    expect(typeTokenRatio([])).toBe(0);
  });

  test("MATTR averages the type-token ratio over sliding windows", () => {
    // Windows of 2: [a b] 1, [b a] 1, [a a] 0.5.
    expect(movingAverageTypeTokenRatio(["a", "b", "a", "a"], 2)).toBeCloseTo(2.5 / 3, 12);
  });

  test("MATTR of a text shorter than the window is its raw type-token ratio", () => {
    expect(movingAverageTypeTokenRatio(["a", "b", "a", "a"], 50)).toBe(0.5);
  });

  test("MATTR does not fall as a varied text gets longer, unlike the raw ratio", () => {
    const words = Array.from({ length: 2000 }, (_, i) => `w${(i * 7919) % 500}`);
    const short = words.slice(0, 200);
    expect(typeTokenRatio(words)).toBeLessThan(typeTokenRatio(short) / 2);
    expect(movingAverageTypeTokenRatio(words)).toBeCloseTo(movingAverageTypeTokenRatio(short), 1);
  });
});
