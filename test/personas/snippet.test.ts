import { describe, expect, it } from "vitest";
import { snippet } from "../../src/personas/context.ts";

/** What a snippet is by definition: whitespace runs collapsed to one space, trimmed, cut with an ellipsis. */
const byDefinition = (text: string, max = 160) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

describe("snippet", () => {
  it.each([
    "Pour the tea and pray the gasbags hold.",
    "two  spaces",
    "a\nnew line",
    "a\ttab",
    " leading and trailing ",
    "\u00a0no-break\u00a0spaces\u00a0",
    "a\u2028line separator",
    "",
    "   ",
    "x".repeat(170),
    `${"word ".repeat(40)}\n\nend`,
  ])("gives what collapsing and cutting give: %j", (text) => {
    expect(snippet(text)).toBe(byDefinition(text));
    expect(snippet(text, 10)).toBe(byDefinition(text, 10));
  });

  it("cuts at max characters with an ellipsis", () => {
    expect(snippet("abcdefghijk", 5)).toBe("abcd…");
    expect(snippet("a  b\n\nc", 160)).toBe("a b c");
  });
});
