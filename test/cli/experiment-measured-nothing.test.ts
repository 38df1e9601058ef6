// `experiment run` and `experiment table1` exit 3 when an experiment measured nothing (every judge verdict
// errored), naming each such experiment of a table1 run; a measured one exits 0.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { measuredNothingExit } from "../../src/cli/experiment-output.ts";
import type { ExperimentResultDocument } from "../../src/experiments/index.ts";
import { ROOT } from "./run-cli.ts";

const measured = (): ExperimentResultDocument =>
  JSON.parse(readFileSync(`${ROOT}test/fixtures/kinds/tiny-brainstorm.experiment-result.json`, "utf8"));

/** The same experiment as if its judge had failed every verdict: no metric has a value. */
function unmeasured(id: string): ExperimentResultDocument {
  const d = measured();
  d.scenario = { ...d.scenario, id };
  for (const arm of [d.arms.control, d.arms.treatment]) {
    arm.metrics = Object.fromEntries(Object.keys(arm.metrics).map((name) => [name, []]));
    arm.errored = 7;
  }
  return d;
}

describe("an experiment that measured nothing", () => {
  it("exits 0 when every experiment measured something", () => {
    const said: string[] = [];
    expect(measuredNothingExit([measured(), measured()], (t) => said.push(t))).toBe(0);
    expect(said).toEqual([]);
  });

  it("exits 3 with the errored count for one run", () => {
    const said: string[] = [];
    expect(measuredNothingExit([unmeasured("brainstorming-average")], (t) => said.push(t))).toBe(3);
    expect(said).toEqual([
      "dramaturg: every judge verdict errored (14); the experiment measured nothing. Check the judge with `dramaturg doctor`\n",
    ]);
  });

  it("exits 3 for table1 when one of its experiments measured nothing, naming it", () => {
    const said: string[] = [];
    const code = measuredNothingExit([measured(), unmeasured("debate-controversial")], (t) => said.push(t));
    expect(code).toBe(3);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("errored (14) in debate-controversial; the experiment measured nothing");
  });
});
