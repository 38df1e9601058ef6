import { describe, expect, test } from "vitest";
import { tokenize } from "../../src/text/index.ts";

describe("tokenize", () => {
  test("words are lowercased and punctuation separates them", () => {
    expect(tokenize("Hello, world! How are you?")).toEqual(["hello", "world", "how", "are", "you"]);
  });

  test("an apostrophe inside a word is kept", () => {
    expect(tokenize("Don't stop; it's rock'n'roll o'clock")).toEqual([
      "don't",
      "stop",
      "it's",
      "rock'n'roll",
      "o'clock",
    ]);
  });

  test("an apostrophe at the edge of a word is dropped", () => {
    expect(tokenize("'Tis the dogs' bone, 'quoted'")).toEqual(["tis", "the", "dogs", "bone", "quoted"]);
  });

  test("a typographic apostrophe is written as a plain one", () => {
    expect(tokenize("Don’t")).toEqual(["don't"]);
  });

  test("accented letters belong to words and are lowercased", () => {
    expect(tokenize("CAFÉ Naïve Ångström")).toEqual(["café", "naïve", "ångström"]);
  });

  test("a combining accent gives the same token as the precomposed letter", () => {
    expect(tokenize("cafe\u0301")).toEqual(tokenize("caf\u00e9"));
  });

  test("letters of other scripts form words too", () => {
    expect(tokenize("Привет, мир! Γειά σου")).toEqual(["привет", "мир", "γειά", "σου"]);
  });

  test("digits are word characters but dots and hyphens split", () => {
    expect(tokenize("Room 101 costs 3.50, well-known")).toEqual([
      "room",
      "101",
      "costs",
      "3",
      "50",
      "well",
      "known",
    ]);
  });

  test("emoji and symbols are not words", () => {
    expect(tokenize("great 🎉 work — 100% #1")).toEqual(["great", "work", "100", "1"]);
  });

  test("empty or punctuation-only text has no tokens", () => {
    expect(tokenize("")).toEqual([]);
    expect(tokenize("  ...!? -- ' ")).toEqual([]);
  });
});
