// The drift chart as SVG text: a line per dimension over the runs it scored, a dashed baseline per
// dimension that has one, a ring on each regression, and dimension names escaped like any other text.
import { describe, expect, it } from "vitest";
import { type DriftPoint, driftChart } from "../../src/web/drift-chart.ts";

const points: DriftPoint[] = [
  { run_id: "r1", created_at: "2026-11-01T09:00:00Z", scores: { adherence: 8, fluency: 7 } },
  { run_id: "r2", created_at: "2026-11-08T09:00:00Z", scores: { adherence: 7.5, fluency: null } },
  { run_id: "r3", created_at: "2026-11-15T09:00:00Z", scores: { adherence: 5, fluency: 6 } },
];

const chart = (overrides: Partial<Parameters<typeof driftChart>[0]> = {}) =>
  driftChart({
    points,
    dimensions: ["adherence", "fluency"],
    baselines: { adherence: 7.6 },
    isRegression: (p, d) => d === "adherence" && p.run_id === "r3",
    ...overrides,
  }).toString();

describe("driftChart", () => {
  it("draws one line per dimension through the runs that scored it", () => {
    const svg = chart();
    const lines = [...svg.matchAll(/data-dimension="(\w+)">\s*<polyline class="line" points="([^"]+)"/g)];
    expect(lines.map((m) => [m[1], m[2]!.split(" ").length])).toEqual([
      ["adherence", 3],
      ["fluency", 2],
    ]);
  });

  it("draws a dashed baseline only for a dimension that has one", () => {
    const svg = chart();
    expect(svg.match(/<line class="baseline/g)).toHaveLength(1);
    expect(svg).toContain('<line class="baseline series-0" data-dimension="adherence"');
  });

  it("rings the regressions and links every point to its run", () => {
    const svg = chart();
    expect(svg.match(/class="point regression"/g)).toHaveLength(1);
    expect(svg).toContain('<a href="/runs/r3"><circle class="point regression"');
    expect(svg.match(/<a href="\/runs\//g)).toHaveLength(5);
  });

  it("escapes a dimension's name", () => {
    const svg = chart({
      dimensions: ['<script>alert("x")</script>'],
      points: [
        { run_id: "r1", created_at: "2026-11-01T09:00:00Z", scores: { '<script>alert("x")</script>': 5 } },
      ],
    });
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });
});
