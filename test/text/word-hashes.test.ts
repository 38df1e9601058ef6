import { describe, expect, it } from "vitest";
import {
  distinctSorted,
  hashedWords,
  ngramHashes,
  sortedJaccard,
  tokenize,
  wordHashSet,
  wordJaccard,
} from "../../src/text/index.ts";

describe("word hashes", () => {
  it("hash the tokens tokenize gives, equal words to equal hashes", () => {
    const { tokens, hashes } = hashedWords("The cat, the CAT and the dog");
    expect(tokens).toEqual(tokenize("The cat, the CAT and the dog"));
    expect(hashes[1]).toBe(hashes[3]);
    expect(hashes[0]).toBe(hashes[2]);
    expect(hashes[0]).not.toBe(hashes[1]);
  });

  it("a text's word hash set has one ascending entry per distinct word", () => {
    const set = wordHashSet("b a b c a");
    expect(set).toHaveLength(3);
    expect([...set]).toEqual([...set].sort((x, y) => x - y));
  });

  it("Jaccard over hash sets equals word Jaccard", () => {
    const pairs = [
      ["The cat sat.", "the CAT ran!"],
      ["Coolant pump, seal worn", "Seal's worn; swap the coolant pump tonight"],
      ["", ""],
      ["words", ""],
    ];
    for (const [a, b] of pairs)
      expect(sortedJaccard(wordHashSet(a!), wordHashSet(b!))).toBe(wordJaccard(a!, b!));
  });

  it("gives one n-gram hash per n-gram, equal for equal n-grams", () => {
    const { hashes } = hashedWords("one two three one two three four");
    const trigrams = ngramHashes(hashes, 3);
    expect(trigrams).toHaveLength(5);
    expect(trigrams[0]).toBe(trigrams[3]);
    expect(new Set(trigrams).size).toBe(4);
    expect(ngramHashes(hashes.subarray(0, 2), 3)).toHaveLength(0);
  });

  it("distinctSorted sorts and drops repeats", () => {
    expect([...distinctSorted(Uint32Array.from([3, 1, 3, 2, 1]))]).toEqual([1, 2, 3]);
  });
});
