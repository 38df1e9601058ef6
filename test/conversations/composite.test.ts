// The seed's composite, by hand: (timing + 2·task + 4·assertions) / 7 − min(0.3·failures, 0.5).
import { describe, expect, it } from "vitest";
import { compositeScore, failurePenalty, timingScore } from "../../src/conversations/index.ts";

describe("the composite score of a pass", () => {
  it("weights timing 1, tasks 2 and assertions 4, less the failure penalty", () => {
    const c = compositeScore({
      aspirationalAverage: 3000,
      latencies: [2000, 4000, 6000], // average 4000: timing 0.75
      taskScores: [1, 0.5],
      assertions: [
        { label: "a", weight: 2, passed: true },
        { label: "b", weight: 3, passed: false },
        { label: "b", weight: 3, passed: false }, // the same assertion twice is two assertions
      ],
      failures: 1,
    });
    expect(c.timing).toBeCloseTo(0.75, 12);
    expect(c.task).toBeCloseTo(0.75, 12);
    expect(c.assertions).toBeCloseTo(2 / 8, 12);
    expect(c.penalty).toBeCloseTo(0.3, 12);
    expect(c.score).toBeCloseTo((0.75 + 2 * 0.75 + 4 * 0.25) / 7 - 0.3, 12);
    expect(c.formula).toBe("full");
  });

  it("a job without assertions is scored (timing + 2·task) / 3 and says so", () => {
    const c = compositeScore({
      aspirationalAverage: 1000,
      latencies: [500],
      taskScores: [0.5],
      assertions: [],
      failures: 0,
    });
    expect(c.score).toBeCloseTo((1 + 2 * 0.5) / 3, 12);
    expect(c.formula).toBe("without-assertions");
    expect(c.assertions).toBeNull();
  });

  it("the penalty saturates at 0.5, timing at 1, and an unscored part leaves the composite unknown", () => {
    expect(failurePenalty(1)).toBeCloseTo(0.3, 12);
    expect(failurePenalty(2)).toBe(0.5);
    expect(timingScore(3000, [100])).toBe(1);
    expect(
      compositeScore({
        aspirationalAverage: 1,
        latencies: [1],
        taskScores: [null],
        assertions: [],
        failures: 0,
      }).score,
    ).toBeNull();
  });
});
