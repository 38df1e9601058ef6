import { describe, expect, test } from "vitest";
import { ngramCounts, ngrams } from "../../src/text/index.ts";

describe("ngrams", () => {
  test("n-grams are consecutive tokens joined by a space, in order", () => {
    expect(ngrams(["a", "b", "c", "d"], 2)).toEqual(["a b", "b c", "c d"]);
    expect(ngrams(["a", "b", "c", "d"], 3)).toEqual(["a b c", "b c d"]);
  });

  test("fewer tokens than n give no n-grams", () => {
    expect(ngrams(["a", "b"], 3)).toEqual([]);
    expect(ngrams([], 1)).toEqual([]);
  });

  test("n-gram counts add up repeated n-grams", () => {
    expect([...ngramCounts(["a", "b", "a", "b", "a"], 2)]).toEqual([
      ["a b", 2],
      ["b a", 2],
    ]);
  });

  test("an order that is not a positive integer is a programming error", () => {
    expect(() => ngrams(["a"], 0)).toThrow(RangeError);
    expect(() => ngrams(["a"], 1.5)).toThrow(RangeError);
  });
});
