import { describe, expect, test } from "vitest";
import { fluencyStatistics, recentOverlap } from "../../src/text/index.ts";

// Bigrams — m0: the cat, cat sat, sat on, on the, the mat; m1: the cat, cat sat, sat down;
// m2: a dog, dog sat, sat on, on the, the mat.
// Trigrams — m0: the cat sat, cat sat on, sat on the, on the mat; m1: the cat sat, cat sat down;
// m2: a dog sat, dog sat on, sat on the, on the mat.
const MESSAGES = ["The cat sat on the mat.", "The cat sat down!", "A dog sat on the mat."];

describe("fluencyStatistics", () => {
  test("counts messages, tokens and the type-token ratio", () => {
    const stats = fluencyStatistics(MESSAGES);
    expect(stats.messages).toBe(3);
    expect(stats.tokens).toBe(16);
    expect(stats.types).toBe(8);
    expect(stats.typeTokenRatio).toBe(0.5);
  });

  test("bigram overlap is the share of occurrences also found in another message", () => {
    // 8 distinct, 5 in two messages; 13 occurrences, of which 5 + 2 + 3 = 10 recur elsewhere.
    expect(fluencyStatistics(MESSAGES).repeatedNgrams[0]).toEqual({
      n: 2,
      occurrences: 13,
      distinct: 8,
      repeated: 5,
      overlapRatio: 10 / 13,
    });
  });

  test("trigram overlap is the share of occurrences also found in another message", () => {
    // 7 distinct, 3 in two messages; 10 occurrences, of which 3 + 1 + 2 = 6 recur elsewhere.
    expect(fluencyStatistics(MESSAGES).repeatedNgrams[1]).toEqual({
      n: 3,
      occurrences: 10,
      distinct: 7,
      repeated: 3,
      overlapRatio: 0.6,
    });
  });

  test("consecutive messages overlap by the Jaccard of their trigram sets", () => {
    // (m0, m1): 1 shared of 5 = 0.2; (m1, m2): 0 of 6 = 0; mean 0.1.
    expect(fluencyStatistics(MESSAGES).meanPairwiseOverlap).toBeCloseTo(0.1, 12);
  });

  test("the top repeated n-grams leave out shorter ones contained in a listed n-gram", () => {
    expect(fluencyStatistics(MESSAGES).topRepeated).toEqual([
      { ngram: "on the mat", n: 3, messages: 2 },
      { ngram: "sat on the", n: 3, messages: 2 },
      { ngram: "the cat sat", n: 3, messages: 2 },
    ]);
  });

  test("a shorter n-gram found in more messages than its longer forms is listed", () => {
    const stats = fluencyStatistics(["i think so", "i think not", "well i think so"], { top: 3 });
    expect(stats.topRepeated).toEqual([
      { ngram: "i think", n: 2, messages: 3 },
      { ngram: "i think so", n: 3, messages: 2 },
    ]);
  });

  test("an n-gram repeated within one message only is not repeated across messages", () => {
    const [bigrams] = fluencyStatistics(["no no no no", "yes"]).repeatedNgrams;
    expect(bigrams).toEqual({ n: 2, occurrences: 3, distinct: 1, repeated: 0, overlapRatio: 0 });
  });

  test("the requested orders and list length are honoured", () => {
    const stats = fluencyStatistics(MESSAGES, { n: 2, top: 1 });
    expect(stats.repeatedNgrams.map((r) => r.n)).toEqual([2]);
    expect(stats.topRepeated).toEqual([{ ngram: "cat sat", n: 2, messages: 2 }]);
  });

  test("no messages give zeros and no pairwise overlap", () => {
    const stats = fluencyStatistics([]);
    expect(stats).toMatchObject({
      messages: 0,
      tokens: 0,
      typeTokenRatio: 0,
      mattr: 0,
      meanPairwiseOverlap: null,
    });
    expect(stats.repeatedNgrams[0]?.overlapRatio).toBe(0);
  });

  test("pairs of messages without trigrams are left out of the pairwise mean", () => {
    expect(fluencyStatistics(["ok", "ok", "sure"]).meanPairwiseOverlap).toBeNull();
  });
});

describe("recentOverlap", () => {
  test("only the last messages are compared", () => {
    const recent = recentOverlap(MESSAGES, { last: 2 });
    expect(recent).toEqual({ messages: 2, n: 3, occurrences: 6, overlapRatio: 0, repeated: [] });
  });

  test("the overlap ratio and the repeated n-grams to avoid are reported", () => {
    expect(recentOverlap(MESSAGES)).toEqual({
      messages: 3,
      n: 3,
      occurrences: 10,
      overlapRatio: 0.6,
      repeated: [
        { ngram: "on the mat", n: 3, messages: 2 },
        { ngram: "sat on the", n: 3, messages: 2 },
        { ngram: "the cat sat", n: 3, messages: 2 },
      ],
    });
  });

  test("every repeated n-gram is listed, most messages first", () => {
    const recent = recentOverlap(
      ["as you know", "as you know", "as you know", "you know what", "you know what"],
      {
        n: 2,
      },
    );
    expect(recent.repeated).toEqual([
      { ngram: "you know", n: 2, messages: 5 },
      { ngram: "as you", n: 2, messages: 3 },
      { ngram: "know what", n: 2, messages: 2 },
    ]);
  });
});

describe("fluencyStatistics at scale", () => {
  test("the numeric n-gram index agrees with plain string counting on a large input", () => {
    // A deterministic stream of 30 words in 2,000 messages gives well over 1,024 distinct trigrams,
    // so the index grows and rehashes several times.
    let seed = 7;
    const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % 30;
    const messages = Array.from({ length: 2000 }, () =>
      Array.from({ length: 8 }, () => `w${next()}`).join(" "),
    );

    const messagesPerTrigram = new Map<string, Set<number>>();
    let occurrences = 0;
    messages.forEach((text, m) => {
      const words = text.split(" ");
      for (let i = 0; i + 3 <= words.length; i++) {
        const gram = words.slice(i, i + 3).join(" ");
        occurrences++;
        const seen = messagesPerTrigram.get(gram) ?? new Set<number>();
        seen.add(m);
        messagesPerTrigram.set(gram, seen);
      }
    });
    let shared = 0;
    messages.forEach((text, m) => {
      const words = text.split(" ");
      for (let i = 0; i + 3 <= words.length; i++) {
        const seen = messagesPerTrigram.get(words.slice(i, i + 3).join(" "))!;
        if (seen.size > 1 || !seen.has(m)) shared++;
      }
    });
    const repeated = [...messagesPerTrigram.values()].filter((s) => s.size >= 2).length;

    const trigrams = fluencyStatistics(messages, { n: 3 }).repeatedNgrams[0]!;
    expect(messagesPerTrigram.size).toBeGreaterThan(5000);
    expect(trigrams).toEqual({
      n: 3,
      occurrences,
      distinct: messagesPerTrigram.size,
      repeated,
      overlapRatio: shared / occurrences,
    });
  });
});
