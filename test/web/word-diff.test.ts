// The word-level diff the persona and comparison sections show: an LCS over word tokens, escaped markup.
import { describe, expect, it } from "vitest";
import { wordDiff, wordDiffCounts, wordDiffHtml, wordTokens } from "../../src/web/word-diff.ts";

describe("a word-level diff", () => {
  it("joining a text's tokens gives the text back, whitespace and all", () => {
    const text = "  Marta is  a retired\nteacher.  ";
    expect(wordTokens(text).join("")).toBe(text);
  });

  it("two equal texts are one unchanged part", () => {
    expect(wordDiff("a calm voice", "a calm voice")).toEqual([{ op: "same", text: "a calm voice" }]);
  });

  it("a replaced word is a removal followed by its addition, the rest unchanged", () => {
    expect(wordDiff("Marta is a retired teacher", "Marta is a retired nurse")).toEqual([
      { op: "same", text: "Marta is a retired " },
      { op: "del", text: "teacher" },
      { op: "ins", text: "nurse" },
    ]);
  });

  it("keeps the longest common run of words and marks only what was inserted and removed", () => {
    const parts = wordDiff("she speaks slowly and kindly", "she speaks quickly, kindly and often");
    // Unchanged words carry B's whitespace, so each side is compared word by word.
    const words = (op: string) =>
      parts
        .filter((p) => p.op !== op)
        .map((p) => p.text)
        .join("")
        .split(/\s+/)
        .filter(Boolean);
    expect(words("ins")).toEqual(["she", "speaks", "slowly", "and", "kindly"]);
    expect(words("del")).toEqual(["she", "speaks", "quickly,", "kindly", "and", "often"]);
    expect(parts[0]).toEqual({ op: "same", text: "she speaks " });
    expect(wordDiffCounts(parts)).toEqual({ removed: 2, added: 3 });
  });

  it("an empty side is all additions or all removals", () => {
    expect(wordDiff("", "new text")).toEqual([{ op: "ins", text: "new text" }]);
    expect(wordDiff("old text", "")).toEqual([{ op: "del", text: "old text" }]);
  });

  it("escapes the words of both texts in its markup", () => {
    const markup = String(wordDiffHtml("say <b>hi</b>", "say <script>alert(1)</script>"));
    expect(markup).not.toContain("<script>");
    expect(markup).not.toContain("<b>");
    expect(markup).toContain("<del>&lt;b&gt;hi&lt;/b&gt;</del>");
    expect(markup).toContain("<ins>&lt;script&gt;alert(1)&lt;/script&gt;</ins>");
  });

  it("diffs two texts of 2,000 words each in well under a second", () => {
    const words = Array.from({ length: 2000 }, (_, i) => `w${i % 97}`);
    const changed = words.map((w, i) => (i % 50 === 0 ? "changed" : w));
    const started = performance.now();
    const counts = wordDiffCounts(wordDiff(words.join(" "), changed.join(" ")));
    expect(performance.now() - started).toBeLessThan(1000);
    expect(counts).toEqual({ removed: 40, added: 40 });
  });
});
