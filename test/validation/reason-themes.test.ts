// The reasons' themes (issue 49, validate's second part), with scripted judges (hand-written answers, no model):
// batches of reasons merged, the overlap's figures computed from the judge's lists, reasons kept inside the
// judge's delimited block, a failed request counted and its figures null; and the command on TinyTroupe's
// Gazpacho survey with a hand-written fixtures file.
import { describe, expect, it } from "vitest";
import type { JudgeRequest } from "../../src/judge/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";
import { compareReasonThemes, REASON_BATCH } from "../../src/validation/index.ts";
import { cli, ROOT } from "../cli/run-cli.ts";

const reasons = (n: number, text: (i: number) => string) => Array.from({ length: n }, (_, i) => text(i));

describe("compareReasonThemes", () => {
  it("lists each side's themes by batch, merges them, and gives coverage and Jaccard from the shared list", async () => {
    const asked: JudgeRequest[] = [];
    const judge = scriptedJudge((item, request) => {
      asked.push(request);
      const id = item.key.proposition_id;
      if (id === "real-themes") return { count: 2, ideas: [`price ${item.key.trial}`, "taste"] };
      if (id === "real-themes-merged") return { count: 3, ideas: ["price", "taste", "health"] };
      if (id === "simulated-themes") return { count: 2, ideas: ["taste", "convenience"] };
      if (id === "shared-themes") return { count: 1, ideas: ["taste"] };
      throw new Error(`unexpected ${id}`);
    });
    const real = reasons(REASON_BATCH + 5, (i) => `reason ${i}`);
    const result = await compareReasonThemes({
      question: "Explanation",
      real: [...real, "", "  "],
      simulated: ["I like the taste", "Easy to grab"],
      judge,
    });
    expect(result).toMatchObject({
      real: { reasons: REASON_BATCH + 5, themes: ["price", "taste", "health"] },
      simulated: { reasons: 2, themes: ["taste", "convenience"] },
      shared: ["taste"],
      errored: 0,
    });
    expect(result.coverage).toBeCloseTo(1 / 3, 12);
    expect(result.jaccard).toBeCloseTo(1 / 4, 12);
    // Two batches of the real side and their merge, one of the simulated side, then the shared list.
    const ids = asked.map((r) => `${r.items[0]!.key.proposition_id}#${r.items[0]!.key.trial}`).sort();
    expect(ids).toEqual([
      "real-themes#1",
      "real-themes#2",
      "real-themes-merged#1",
      "shared-themes#1",
      "simulated-themes#1",
    ]);
    const firstBatch = asked.find((r) => r.items[0]!.key.proposition_id === "real-themes")!;
    expect(firstBatch.context.trajectory.text.split("\n")).toHaveLength(REASON_BATCH);
    expect(firstBatch.items[0]!.claim).not.toContain("reason 0");
  });

  it("counts a failed request and leaves the figures it feeds null", async () => {
    const judge = scriptedJudge((item) => {
      if (item.key.proposition_id === "simulated-themes")
        throw new Error("the judge answered nothing usable");
      return { count: 1, ideas: ["taste"] };
    });
    const result = await compareReasonThemes({ question: "q", real: ["tasty"], simulated: ["yum"], judge });
    expect(result.errored).toBe(1);
    expect(result.coverage).toBeNull();
    expect(result.jaccard).toBeNull();
    expect(result.shared).toEqual([]);
  });
});

describe("validate --reasons", () => {
  const real = `${ROOT}test/fixtures/validation/tinytroupe-gazpacho-real.csv`;
  const simulated = `${ROOT}test/fixtures/validation/tinytroupe-gazpacho-simulated.csv`;
  const base = [
    "validate",
    real,
    simulated,
    "--column",
    "Vote",
    "--simulated-column",
    "response",
    "--kind",
    "ordinal",
    "--scale",
    "1-5",
    "--db",
    "memory://",
  ];

  it("adds the themes compared to the document and the table, with the hand-written fixtures' lists", async () => {
    const json = await cli([
      ...base,
      "--reasons",
      "Explanation",
      "--simulated-reasons",
      "justification",
      "--judge",
      `fixtures:${ROOT}test/fixtures/validation/gazpacho-reason-themes.judge-fixtures.json`,
      "--format",
      "json",
    ]);
    expect(json.code, json.stderr).toBe(1);
    const themes = JSON.parse(json.stdout).reason_themes;
    expect(themes).toMatchObject({
      question: "Explanation",
      real: { reasons: 50 },
      simulated: { reasons: 50 },
    });
    expect(themes.real.themes).toHaveLength(6);
    expect(themes.shared).toHaveLength(3);
    expect(themes.coverage).toBe(0.5);
    expect(themes.jaccard).toBeCloseTo(3 / 7, 12);
  });

  it("refuses --reasons without a judge, and a reasons column that is not there, before any judge call", async () => {
    const noJudge = await cli([...base, "--reasons", "Explanation"]);
    expect(noJudge.code).toBe(2);
    expect(noJudge.stderr).toContain("give --judge");
    const missing = await cli([
      ...base,
      "--reasons",
      "Explanations",
      "--judge",
      "fixtures:/nonexistent.json",
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no column "Explanations"');
  });
});
