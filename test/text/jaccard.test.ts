import { describe, expect, test } from "vitest";
import { characterMultisetJaccard, jaccard, wordJaccard } from "../../src/text/index.ts";

describe("jaccard", () => {
  test("set Jaccard is shared elements over all elements", () => {
    expect(jaccard(new Set(["a", "b", "c"]), new Set(["b", "c", "d"]))).toBe(0.5);
  });

  test("two empty sets are identical and one empty set shares nothing", () => {
    expect(jaccard(new Set(), new Set())).toBe(1);
    expect(jaccard(new Set(["a"]), new Set())).toBe(0);
  });

  test("word Jaccard compares word sets, ignoring case and punctuation", () => {
    expect(wordJaccard("The cat sat.", "the CAT ran!")).toBe(0.5);
    expect(wordJaccard("Hello!", "hello")).toBe(1);
  });

  test("character multiset Jaccard of night and nacht is 3/7", () => {
    // Shared n, h, t; the union adds i, g, a, c.
    expect(characterMultisetJaccard("night", "nacht")).toBe(3 / 7);
  });

  test("character multiset Jaccard counts repeated characters", () => {
    // min: a×1 + b×1 = 2; max: a×2 + b×1 = 3.
    expect(characterMultisetJaccard("aab", "ab")).toBe(2 / 3);
  });

  test("character multiset Jaccard is 1 for identical strings and 0 against an empty one", () => {
    expect(characterMultisetJaccard("same text", "same text")).toBe(1);
    expect(characterMultisetJaccard("", "")).toBe(1);
    expect(characterMultisetJaccard("abc", "")).toBe(0);
  });

  test("character multiset Jaccard keeps case, as textdistance does", () => {
    expect(characterMultisetJaccard("A", "a")).toBe(0);
  });
});
