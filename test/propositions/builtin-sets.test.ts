import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  ACTION_LEVEL_WINDOW_DEFAULTS,
  builtinPropositionFilePath,
  builtinPropositionSet,
  EVALUATION_WINDOW_DEFAULTS,
} from "../../src/propositions/index.ts";

describe("built-in proposition sets", () => {
  it("adherence shows the persona and has the four adherence propositions", async () => {
    const set = await builtinPropositionSet("adherence", "marta");
    expect(set).toMatchObject({
      target_type: "agent",
      include_personas: true,
      hard: false,
      double_check: false,
    });
    expect(set.propositions.map((p) => [p.id, p.weight, p.inverted])).toEqual([
      ["persona-traits", 1, false],
      ["persona-style", 1, false],
      ["persona-knowledge", 0.8, false],
      ["breaks-character", 1, true],
    ]);
  });

  it("consistency leaves the persona out and has the three consistency propositions", async () => {
    const set = await builtinPropositionSet("consistency", "marta");
    expect(set).toMatchObject({ target_type: "agent", include_personas: false });
    expect(set.propositions.map((p) => [p.id, p.weight, p.inverted])).toEqual([
      ["consistent-positions", 1, false],
      ["consistent-voice", 1, false],
      ["self-contradiction", 1, true],
    ]);
  });

  it("fluency leaves the persona out and has the three fluency propositions", async () => {
    const set = await builtinPropositionSet("fluency", "marta");
    expect(set).toMatchObject({ target_type: "agent", include_personas: false });
    expect(set.propositions.map((p) => [p.id, p.weight, p.inverted])).toEqual([
      ["natural-language", 1, false],
      ["repetitive-phrasing", 1, true],
      ["formulaic-structure", 0.8, true],
    ]);
  });

  it("convergence is judged on the environment and scores voice divergence", async () => {
    const set = await builtinPropositionSet("convergence");
    expect(set).toMatchObject({ target_type: "environment", include_personas: false });
    expect(set.propositions.map((p) => [p.id, p.weight, p.inverted])).toEqual([
      ["distinct-voices", 1, false],
      ["diverse-viewpoints", 1, false],
      ["voices-converge", 1, true],
    ]);
  });

  it("ideas quantity is judged on the environment with one enumerating proposition", async () => {
    const set = await builtinPropositionSet("ideas_quantity");
    expect(set).toMatchObject({ target_type: "environment", include_personas: false });
    expect(set.propositions.map((p) => p.id)).toEqual(["distinct-ideas"]);
    expect(set.propositions[0]!.claim).toMatch(
      /^List every distinct idea put forward in \{\{channel_name\}\}/,
    );
  });

  it("every built-in proposition has a claim with a template variable and a recommendation", async () => {
    for (const dimension of [
      "adherence",
      "consistency",
      "fluency",
      "convergence",
      "ideas_quantity",
    ] as const) {
      const set = await builtinPropositionSet(dimension);
      const variable = set.target_type === "agent" ? "{{agent_name}}" : "{{channel_name}}";
      for (const p of set.propositions) {
        expect(p.claim, `${dimension}/${p.id}`).toContain(variable);
        expect(p.claim).not.toContain("\n");
        expect(p.recommendations_for_improvement?.length, `${dimension}/${p.id}`).toBeGreaterThan(40);
      }
      expect(set).toMatchObject(EVALUATION_WINDOW_DEFAULTS);
    }
  });

  it("every built-in file explains each of its settings in a comment just above it", async () => {
    for (const dimension of [
      "adherence",
      "consistency",
      "fluency",
      "convergence",
      "ideas_quantity",
    ] as const) {
      const lines = (await readFile(builtinPropositionFilePath(dimension), "utf8")).split("\n");
      for (const setting of [
        "dimension",
        "include_personas",
        "hard",
        "target_type",
        "first_n",
        "double_check",
        "propositions",
      ]) {
        const at = lines.findIndex((l) => l.startsWith(`${setting}:`));
        expect(at, `${dimension}: ${setting}`).toBeGreaterThan(0);
        expect(lines[at - 1], `${dimension}: ${setting}`).toMatch(/^# /);
      }
    }
  });
});

describe("window defaults", () => {
  it("are 10 first and 100 last actions for a whole evaluation", () => {
    expect(EVALUATION_WINDOW_DEFAULTS).toEqual({ first_n: 10, last_n: 100 });
  });

  it("are 5 first and 10 last actions for judging one action", () => {
    expect(ACTION_LEVEL_WINDOW_DEFAULTS).toEqual({ first_n: 5, last_n: 10 });
  });
});
