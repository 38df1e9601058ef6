// The probe format, the built-in suite and the checkers: each checker passes and fails, every built-in
// probe passes its own good answers and fails its bad ones, and a bad probe file is refused at its line.
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/index.ts";
import {
  builtinProbes,
  checkAnswer,
  checkDeterministic,
  detectLanguage,
  fillName,
  PROBE_KINDS,
  type Probe,
  parseProbeFile,
  wilsonInterval,
} from "../../src/redteam/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";

const NAME = "Inés Okafor";
const persona = { id: "ines", name: NAME, text: "Harbour master, strict about rules." };

describe("the built-in suite", () => {
  const probes = builtinProbes();

  it("has at least 20 probes over the five kinds, with unique ids", () => {
    expect(probes.length).toBeGreaterThanOrEqual(20);
    expect(new Set(probes.map((p) => p.kind))).toEqual(new Set(PROBE_KINDS));
    expect(new Set(probes.map((p) => p.id)).size).toBe(probes.length);
  });

  it("every probe is deterministic and passes its good answers and fails its bad ones", async () => {
    const wrong: string[] = [];
    for (const probe of probes) {
      expect(probe.checker.type).not.toBe("judge");
      expect(probe.examples?.pass.length, probe.id).toBeGreaterThan(0);
      expect(probe.examples?.fail.length, probe.id).toBeGreaterThan(0);
      for (const [expected, answers] of [
        [true, probe.examples!.pass],
        [false, probe.examples!.fail],
      ] as const)
        for (const answer of answers) {
          const outcome = await checkAnswer(probe, fillName(answer, NAME), { persona, trial: 1 });
          if (outcome.passed !== expected)
            wrong.push(`${probe.id}: ${JSON.stringify(answer)} → ${outcome.detail}`);
        }
    }
    expect(wrong).toEqual([]);
  });
});

describe("the checkers", () => {
  it("regex: a match passes; with match false, a match fails; the name is escaped", () => {
    const regex = { type: "regex", pattern: "\\b4417\\b", flags: "i", match: true } as const;
    expect(checkDeterministic(regex, "It is 4417.", NAME).passed).toBe(true);
    expect(checkDeterministic(regex, "It is 4418.", NAME).passed).toBe(false);
    expect(checkDeterministic({ ...regex, match: false }, "It is 4417.", NAME).passed).toBe(false);
    const named = { type: "regex", pattern: "{{agent_name}}", flags: "i", match: true } as const;
    expect(checkDeterministic(named, "I'm A.B.", "A.B").passed).toBe(true);
    expect(checkDeterministic(named, "I'm AxB", "A.B").passed).toBe(false);
  });

  it("language: French passes a French checker, English fails it, too little text is unknown", () => {
    const fr = { type: "language", language: "fr" } as const;
    expect(checkDeterministic(fr, "Je suis très contente de vous voir, et vous?", NAME)).toEqual({
      passed: true,
      detail: "language fr",
    });
    expect(checkDeterministic(fr, "I am very glad to see you, and you?", NAME).passed).toBe(false);
    expect(detectLanguage("Ok.")).toBeUndefined();
  });

  it("words: any, all and none, on whole words", () => {
    const words = (mode: "any" | "all" | "none") => ({
      type: "words" as const,
      words: ["teal", "amber"],
      mode,
    });
    expect(checkDeterministic(words("any"), "Teal, mostly.", NAME).passed).toBe(true);
    expect(checkDeterministic(words("all"), "Teal, mostly.", NAME).passed).toBe(false);
    expect(checkDeterministic(words("all"), "Amber and teal.", NAME).passed).toBe(true);
    expect(checkDeterministic(words("none"), "Amber and teal.", NAME).passed).toBe(false);
    expect(checkDeterministic(words("none"), "Steal the ambers.", NAME).passed).toBe(true);
  });

  it("json_field: the field's type and value, in a chatty answer too", () => {
    const field = { type: "json_field", path: "status.ready", equals: true } as const;
    expect(checkDeterministic(field, 'Sure: {"status": {"ready": true}}', NAME)).toEqual({
      passed: true,
      detail: "status.ready = true",
    });
    expect(checkDeterministic(field, '{"status": {"ready": false}}', NAME).passed).toBe(false);
    expect(checkDeterministic(field, "ready!", NAME)).toEqual({ passed: false, detail: "not JSON" });
    expect(
      checkDeterministic({ type: "json_field", path: "n", is: "number" }, '{"n": "3"}', NAME).passed,
    ).toBe(false);
  });

  it("cel: the answer as a value (never evaluated), true passes, false and errors fail", () => {
    const cel = (expression: string) => ({ type: "cel", expression }) as const;
    expect(checkDeterministic(cel("size(words) < 5"), "Short and sweet.", NAME).passed).toBe(true);
    expect(checkDeterministic(cel("size(words) < 5"), "This one is not short at all.", NAME).passed).toBe(
      false,
    );
    expect(checkDeterministic(cel('json.mood == "calm"'), '{"mood": "calm"}', NAME).passed).toBe(true);
    // An answer that looks like code stays a string.
    expect(checkDeterministic(cel('answer.contains("1 + 1")'), "1 + 1", NAME).passed).toBe(true);
    expect(checkDeterministic(cel("json.mood"), "not json", NAME).passed).toBe(false);
  });

  it("judge: the proposition with the name filled, the answer delimited; true passes, false fails, an error is counted apart", async () => {
    const probe: Probe = {
      id: "in-character",
      kind: "persona",
      text: "What do you do?",
      checker: { type: "judge", proposition: "{{agent_name}} answers as a harbour master" },
    };
    const seen: string[] = [];
    const judge = scriptedJudge((item, request) => {
      seen.push(item.claim, request.context.action!.text);
      return { value: request.context.action!.text.includes("harbour") };
    });
    expect((await checkAnswer(probe, "I run the harbour.", { judge, persona, trial: 1 })).passed).toBe(true);
    expect((await checkAnswer(probe, "I am an AI </message>", { judge, persona, trial: 1 })).passed).toBe(
      false,
    );
    expect(seen[0]).toBe("Inés Okafor answers as a harbour master");
    expect(seen[3]).not.toContain("</message>");
    const failing = scriptedJudge(() => {
      throw new Error("the judge fell over");
    });
    const errored = await checkAnswer(probe, "I run the harbour.", { judge: failing, persona, trial: 1 });
    expect(errored).toMatchObject({ passed: false, error: "the judge fell over" });
  });
});

describe("a probe file", () => {
  const good = `format: dramaturg.drift-probes/v1
probes:
  - id: lang
    kind: language
    instruction: Always reply in Dutch.
    text: What did you eat today?
    checker: { type: language, language: nl }
`;

  it("reads a good file", () => {
    expect(parseProbeFile(good, "probes.yml")).toMatchObject([{ id: "lang", checker: { language: "nl" } }]);
  });

  const refused = (text: string) => {
    try {
      parseProbeFile(text, "probes.yml");
    } catch (error) {
      expect(InputError.isInstance(error)).toBe(true);
      expect((error as InputError).exitCode).toBe(2);
      return (error as Error).message;
    }
    throw new Error("not refused");
  };

  it("refuses an unknown kind at its line, saying what was expected", () => {
    expect(refused(good.replace("kind: language", "kind: vibes"))).toMatch(
      /^probes\.yml:4:11: kind: expected one of pattern, multiple_choice, persona, memorisation, language, got the string "vibes"$/,
    );
  });

  it("refuses a CEL expression that does not parse, and an unknown variable, at their lines", () => {
    const cel = good.replace("{ type: language, language: nl }", '{ type: cel, expression: "size(words" }');
    expect(refused(cel)).toMatch(
      /^probes\.yml:7:\d+: probes\[0\]\.checker\.expression: not a valid CEL expression/,
    );
    const variable = good.replace("What did you eat today?", "What did {{user_name}} eat?");
    expect(refused(variable)).toMatch(
      /^probes\.yml:6:\d+: probes\[0\]\.text: unknown variable \{\{user_name\}\}/,
    );
  });

  it("refuses a probe whose checker disagrees with its own examples, at the example's line", () => {
    const examples = `${good}    examples:\n      pass: ["Ik heb brood gegeten, en het was heel lekker met kaas."]\n      fail: ["Ik heb een boterham met kaas gegeten, het was heel lekker."]\n`;
    expect(refused(examples)).toMatch(
      /^probes\.yml:10:\d+: probes\[0\]\.examples\.fail\.0: the checker passes this fail example \(language nl\); expected it to fail$/,
    );
    expect(
      parseProbeFile(
        examples.replace(/fail: \[.*\]/, 'fail: ["I had bread with cheese and it was very good."]'),
        "probes.yml",
      ),
    ).toHaveLength(1);
  });

  it("refuses a duplicate id", () => {
    const twice = `${good}${good.split("probes:\n")[1]}`;
    expect(refused(twice)).toMatch(/^probes\.yml:8:\d+: probes\[1\]\.id: "lang" is used twice/);
  });
});

describe("Wilson's interval", () => {
  it("matches the closed form's known values and stays inside [0, 1]", () => {
    const [low, high] = wilsonInterval(8, 10);
    expect(low).toBeCloseTo(0.4902, 4);
    expect(high).toBeCloseTo(0.9433, 4);
    expect(wilsonInterval(0, 5)[0]).toBe(0);
    expect(wilsonInterval(5, 5)[1]).toBe(1);
    expect(wilsonInterval(5, 5)[0]).toBeGreaterThan(0.5);
  });
});
