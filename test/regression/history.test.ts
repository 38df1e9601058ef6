import { describe, expect, it } from "vitest";
import { agentHistory, sparkline } from "../../src/regression/index.ts";
import type { HistoryPoint } from "../../src/store/index.ts";

const judge = {
  provider: "fixtures",
  model: "f.json",
  mode: "individual" as const,
  double_check: false,
  prompt_version: "fixtures",
};

function point(score: number | null, changes: Partial<HistoryPoint> = {}): HistoryPoint {
  return {
    run_id: `r${score}`,
    evaluation_id: null,
    trial: 1,
    score,
    count: null,
    errored: 0,
    is_baseline: false,
    judge,
    propositions_hash: "p1",
    persona_hash: "h1",
    created_at: "2026-03-01T10:00:00.000Z",
    completed_at: "2026-03-01T10:00:05.000Z",
    ...changes,
  };
}

describe("history", () => {
  it("a sparkline uses the fixed 0–9 scale, so equal scores draw equal bars", () => {
    expect(sparkline([0, 4.5, 9, 9])).toBe("▁▅██");
    expect(sparkline([7, 7, 7])).toBe("▆▆▆");
  });

  it("a missing score is a gap in the sparkline", () => {
    expect(sparkline([9, null, 0])).toBe("█ ▁");
  });

  it("marks a point whose judge, propositions or persona differ from the point before", () => {
    const h = agentHistory("dov", "adherence", [
      point(7),
      point(7.2),
      point(5, { persona_hash: "h2" }),
      point(5.1, { persona_hash: "h2", judge: { ...judge, model: "other.json" }, propositions_hash: "p2" }),
    ]);
    expect(h.points.map((p) => p.changed)).toEqual([[], [], ["persona"], ["judge", "propositions"]]);
  });
});
