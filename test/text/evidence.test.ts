import { describe, expect, test } from "vitest";
import {
  fluencyStatistics,
  renderFluencyEvidence,
  renderVocabularyEvidence,
  vocabularyStatistics,
} from "../../src/text/index.ts";

const MESSAGES = ["The cat sat on the mat.", "The cat sat down!", "A dog sat on the mat."];

describe("renderFluencyEvidence", () => {
  test("summarises repetition in a few fixed-precision lines", () => {
    expect(renderFluencyEvidence(fluencyStatistics(MESSAGES))).toBe(
      [
        "Fluency evidence (algorithmic, supplementary): 3 messages, 16 words; type-token ratio 0.500, MATTR-50 0.500.",
        "2-grams: 5 of 8 distinct recur across messages; 76.9% of 13 occurrences also appear in another message.",
        "3-grams: 3 of 7 distinct recur across messages; 60.0% of 10 occurrences also appear in another message.",
        "Consecutive messages share 10.0% of their trigrams on average (Jaccard).",
        'Most repeated: "on the mat" (2 messages), "sat on the" (2 messages), "the cat sat" (2 messages).',
      ].join("\n"),
    );
  });

  test("says so when there is nothing to measure", () => {
    expect(renderFluencyEvidence(fluencyStatistics([]))).toBe(
      "Fluency evidence (algorithmic, supplementary): 0 messages, no words to measure.",
    );
  });
});

describe("renderVocabularyEvidence", () => {
  const channel = new Map([
    ["bob", ["The fish swim.", "Fish swim fast!"]],
    ["ann", ["The fish sleep."]],
    ["cy", ["Ledgers balance."]],
  ]);
  const names = new Map([
    ["ann", "Ann"],
    ["bob", "Bob"],
  ]);

  test("lists each agent, the mean similarity and the most and least alike pairs", () => {
    expect(renderVocabularyEvidence(vocabularyStatistics(channel), names)).toBe(
      [
        "Vocabulary evidence (algorithmic, supplementary; similarity over content words, stopwords excluded): 3 agents.",
        "- Ann: 1 message, 3 words, MATTR-50 1.000; top words: fish (1), sleep (1).",
        "- Bob: 2 messages, 6 words, MATTR-50 0.667; top words: fish (2), swim (2), fast (1).",
        "- cy: 1 message, 2 words, MATTR-50 1.000; top words: balance (1), ledgers (1).",
        "Content-vocabulary similarity between agents (0 = disjoint, 1 = identical): mean Jaccard 0.083, mean cosine 0.157.",
        "Most alike: Ann & Bob (Jaccard 0.250, cosine 0.471). Most distinct: Ann & cy (Jaccard 0.000, cosine 0.000).",
      ].join("\n"),
    );
  });

  test("does not depend on the order agents were added in", () => {
    const reversed = new Map([...channel].reverse());
    expect(renderVocabularyEvidence(vocabularyStatistics(reversed), names)).toBe(
      renderVocabularyEvidence(vocabularyStatistics(channel), names),
    );
  });
});
