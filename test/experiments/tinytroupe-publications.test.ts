// Every results file TinyTroupe publishes at the top of its two paper folders (June and October 2025), read by
// `experiment compare` as Python wrote them: those with both arms compare, those without say which arm has no
// results. The twenty files are in three fixture folders (each README says where they come from).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readResultSets } from "../../src/experiments/index.ts";
import { cli } from "../cli/run-cli.ts";

const FOLDERS = ["tinytroupe-june-2025", "tinytroupe-october-2025", "tinytroupe-publications-rest"].map(
  (f) => `test/fixtures/experiments/${f}`,
);
const FILES = FOLDERS.flatMap((folder) =>
  readdirSync(folder)
    .filter((f) => f.endsWith(".json"))
    .map((f) => join(folder, f)),
);

describe("TinyTroupe's published results files", () => {
  it("are all twenty of its two paper folders", () => {
    expect(FILES).toHaveLength(20);
  });

  it("compare when both arms have results, and name the arm that has none otherwise", async () => {
    const outcomes: Record<string, number> = {};
    for (const file of FILES) {
      const ran = readResultSets(file).arms.filter(
        (a) => a.metrics !== undefined && Object.keys(a.metrics).length > 0,
      );
      const run = await cli(["experiment", "compare", file, "--format", "json"]);
      outcomes[run.code] = (outcomes[run.code] ?? 0) + 1;
      if (ran.length === 2) {
        expect(run.code, `${file}: ${run.stderr}`).toBe(0);
        expect(JSON.parse(run.stdout).comparisons.length).toBeGreaterThan(0);
      } else {
        expect(run.code, file).toBe(2);
        expect(run.stderr).toMatch(/the arm "(Control|Treatment)" has no results yet/);
      }
    }
    // Sixteen with both arms, four without (three of them with one arm, one with none).
    expect(outcomes).toEqual({ 0: 16, 2: 4 });
  });

  it("compares a metric given as the extracted records themselves by their count, and says so", async () => {
    const file =
      "test/fixtures/experiments/tinytroupe-publications-rest/june-2025-food_products_brainstorming_2.json";
    const run = await cli(["experiment", "compare", file, "--format", "json"]);
    expect(run.code, run.stderr).toBe(0);
    const [ideas] = JSON.parse(run.stdout).comparisons;
    expect(ideas).toMatchObject({ metric: "ideas", delta: 13 });
    expect(ideas.control).toMatchObject({ n: 1, mean: 4 });
    expect(ideas.treatment).toMatchObject({ n: 1, mean: 17 });
    expect(ideas.note).toContain(
      "the file lists the extracted ideas themselves: each arm's value is their count",
    );
  });
});
