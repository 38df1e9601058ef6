// The five trajectory match modes, each told apart from the others by the same expected calls against four
// sessions' calls; precision, recall and F1 of the matching; arguments compared exactly, ignored, or per tool
// by a CEL expression.
import { describe, expect, it } from "vitest";
import { MATCH_MODES, type MadeCall, matchTrajectory } from "../../src/sessions/trajectory-match.ts";

const search = (q: string): MadeCall => ({ tool_name: "search", parameters: { q } });
const book = (id: number): MadeCall => ({ tool_name: "book", parameters: { id } });
const lookup = (x: string): MadeCall => ({ tool_name: "lookup", parameters: { x } });
const EXPECTED = [search("paris"), book(1)];

const CASES: Record<string, MadeCall[]> = {
  "the same calls, swapped": [book(1), search("paris")],
  "one of them only": [search("paris")],
  "both in order, one more between": [search("paris"), lookup("hotel"), book(1)],
  "both, swapped, one more between": [book(1), lookup("hotel"), search("paris")],
};

const verdicts = (made: MadeCall[]) =>
  Object.fromEntries(MATCH_MODES.map((mode) => [mode, matchTrajectory(EXPECTED, made, { mode }).passed]));

describe("trajectory match modes", () => {
  it("all pass when the calls are the expected ones in their order", () => {
    expect(verdicts([search("paris"), book(1)])).toEqual({
      strict: true,
      unordered: true,
      subset: true,
      superset: true,
      "in-order": true,
    });
  });

  it("each mode answers the four sessions differently from every other mode", () => {
    const table = Object.fromEntries(Object.entries(CASES).map(([name, made]) => [name, verdicts(made)]));
    expect(table).toEqual({
      "the same calls, swapped": {
        strict: false,
        unordered: true,
        subset: true,
        superset: true,
        "in-order": false,
      },
      "one of them only": {
        strict: false,
        unordered: false,
        subset: true,
        superset: false,
        "in-order": false,
      },
      "both in order, one more between": {
        strict: false,
        unordered: false,
        subset: false,
        superset: true,
        "in-order": true,
      },
      "both, swapped, one more between": {
        strict: false,
        unordered: false,
        subset: false,
        superset: true,
        "in-order": false,
      },
    });
    // Read by mode, the five columns are five different answers.
    const columns = MATCH_MODES.map((mode) =>
      Object.values(table)
        .map((row) => row[mode])
        .join(),
    );
    expect(new Set(columns).size).toBe(5);
  });

  it("scores the matching: precision over the calls made, recall over the expected, F1", () => {
    const extra = matchTrajectory(EXPECTED, CASES["both in order, one more between"]!, { mode: "in-order" });
    expect(extra).toMatchObject({
      matched: [
        [0, 0],
        [1, 2],
      ],
      missing: [],
      unexpected: [1],
      recall: 1,
    });
    expect(extra.precision).toBeCloseTo(2 / 3, 12);
    expect(extra.f1).toBeCloseTo(0.8, 12);
    const short = matchTrajectory(EXPECTED, CASES["one of them only"]!, { mode: "superset" });
    expect(short).toMatchObject({ precision: 1, recall: 0.5, missing: [1], unexpected: [] });
    // Strict counts a match by position only: swapped, nothing matches.
    const swapped = matchTrajectory(EXPECTED, CASES["the same calls, swapped"]!, { mode: "strict" });
    expect(swapped).toMatchObject({ matched: [], precision: 0, recall: 0, f1: 0 });
    expect(matchTrajectory([], [], { mode: "strict" })).toMatchObject({
      passed: true,
      precision: null,
      f1: null,
    });
  });

  it("compares arguments exactly, ignores them, or asks a tool's CEL rule", () => {
    const made = [search("Paris, France"), book(2)];
    expect(matchTrajectory(EXPECTED, made, { mode: "strict" }).passed).toBe(false);
    expect(matchTrajectory(EXPECTED, made, { mode: "strict", arguments: "ignore" }).passed).toBe(true);
    const cel = {
      mode: "strict" as const,
      tools: {
        search: { arguments: { cel: "actual.q.lowerAscii().startsWith(expected.q)" } },
        book: { arguments: { cel: "actual.id >= expected.id" } },
      },
    };
    expect(matchTrajectory(EXPECTED, made, cel).passed).toBe(true);
    expect(matchTrajectory(EXPECTED, [search("Lyon"), book(2)], cel)).toMatchObject({
      passed: false,
      missing: [0],
    });
    // An expected call without parameters matches the tool whatever its arguments.
    expect(matchTrajectory([{ tool_name: "book" }], [book(7)], { mode: "strict" }).passed).toBe(true);
  });

  it("refuses a rule that is not CEL, naming it", () => {
    expect(() =>
      matchTrajectory(EXPECTED, [book(1)], {
        mode: "subset",
        tools: { book: { arguments: { cel: "actual.id >=" } } },
      }),
    ).toThrow(/not a CEL expression/);
  });
});
