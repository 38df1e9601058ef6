// The drift chart as SVG text: a line per dimension over the runs it scored, placed on a time axis, a
// dashed baseline per dimension that has one, a ring on each regression with a link to compare it with the
// run before, tick labels that fit any count of runs, axis titles, and dimension names escaped.
import { describe, expect, it } from "vitest";
import { type DriftPoint, driftChart, MAX_TICKS, timeTicks } from "../../src/web/drift-chart.ts";

const points: DriftPoint[] = [
  { run_id: "r1", created_at: "2026-11-01T09:00:00Z", scores: { adherence: 8, fluency: 7 } },
  {
    run_id: "r2",
    created_at: "2026-11-08T09:00:00Z",
    scores: { adherence: 7.5, fluency: null },
    previous_run_id: "r1",
  },
  {
    run_id: "r3",
    created_at: "2026-11-15T09:00:00Z",
    scores: { adherence: 5, fluency: 6 },
    previous_run_id: "r2",
  },
];

const chart = (overrides: Partial<Parameters<typeof driftChart>[0]> = {}) =>
  driftChart({
    points,
    dimensions: ["adherence", "fluency"],
    baselines: { adherence: 7.6 },
    isRegression: (p, d) => d === "adherence" && p.run_id === "r3",
    ...overrides,
  }).toString();

/** The x of each point of a dimension's line, in order. */
const xs = (svg: string, dimension: string) =>
  svg
    .match(new RegExp(`data-dimension="${dimension}">\\s*<polyline class="line" points="([^"]+)"`))![1]!
    .split(" ")
    .map((p) => Number(p.split(",")[0]));

const tickLabels = (svg: string) =>
  [...svg.matchAll(/<text class="axis tick-label"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);

/** `n` runs evenly spread from `start` over `spanMs`. */
const runsOver = (n: number, start: string, spanMs: number): DriftPoint[] =>
  Array.from({ length: n }, (_, i) => ({
    run_id: `r${i}`,
    created_at: new Date(Date.parse(start) + (n === 1 ? 0 : (i * spanMs) / (n - 1))).toISOString(),
    scores: { adherence: 5 + (i % 4) },
  }));

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("driftChart", () => {
  it("draws one line per dimension through the runs that scored it", () => {
    const svg = chart();
    const lines = [...svg.matchAll(/data-dimension="(\w+)">\s*<polyline class="line" points="([^"]+)"/g)];
    expect(lines.map((m) => [m[1], m[2]!.split(" ").length])).toEqual([
      ["adherence", 3],
      ["fluency", 2],
    ]);
  });

  it("places each run at its time: x is proportional to created_at, not to the run's index", () => {
    const uneven: DriftPoint[] = [
      { run_id: "a", created_at: "2026-11-01T00:00:00Z", scores: { adherence: 5 } },
      { run_id: "b", created_at: "2026-11-02T00:00:00Z", scores: { adherence: 5 } },
      { run_id: "c", created_at: "2026-11-11T00:00:00Z", scores: { adherence: 5 } },
    ];
    const [a, b, c] = xs(chart({ points: uneven, dimensions: ["adherence"] }), "adherence");
    // One day of ten: a tenth of the way along the axis, where an index axis would put it half way.
    expect((b! - a!) / (c! - a!)).toBeCloseTo(0.1, 2);
  });

  it("draws the baselines only for a dimension that has one", () => {
    const svg = chart();
    expect(svg.match(/<line class="baseline/g)).toHaveLength(1);
    expect(svg).toContain('<line class="baseline series-0" data-dimension="adherence"');
  });

  it("rings the regressions and links every point to its run, a ringed one at the dimension that fell", () => {
    const svg = chart();
    expect(svg.match(/class="point regression"/g)).toHaveLength(1);
    expect(svg).toMatch(
      /<a href="\/runs\/r3\?dimension=adherence#verdicts-adherence" aria-label="adherence 5\.0 on 2026-11-15 09:00 — regression[^"]*"><title>[^<]+<\/title><circle class="point regression"/,
    );
    expect(
      svg.match(
        /<a href="\/runs\/r\d(?:\?dimension=adherence#verdicts-adherence)?" aria-label="[^"]+"><title>/g,
      ),
    ).toHaveLength(5);
  });

  it("gives every point an invisible tap target in its link, and draws the rings above every line", () => {
    const svg = chart();
    const links = [...svg.matchAll(/<a href="[^"]+" aria-label="[^"]+">([\s\S]*?)<\/a>/g)].map((m) => m[1]!);
    expect(links).toHaveLength(5);
    for (const link of links)
      expect(link).toMatch(/<circle class="hit" cx="[\d.]+" cy="[\d.]+" r="12"><\/circle>$/);
    // The ring comes after the last line's group: no point drawn later can cover its target.
    expect(svg.lastIndexOf('class="point regression"')).toBeGreaterThan(svg.lastIndexOf("<polyline"));
  });

  it("lists each regression under the chart with a link comparing it with the run before", () => {
    const svg = chart();
    const list = svg.slice(svg.indexOf('<ul class="regression-links">'));
    expect(list).toContain(
      '<a href="/runs/r3?dimension=adherence#verdicts-adherence">2026-11-15 09:00</a> adherence 5.0',
    );
    expect(list).toContain('<a class="compare" href="/compare?a=r2&amp;b=r3">compare with previous run</a>');
    expect(list.match(/<li>/g)).toHaveLength(1);
    // Without a previous run there is nothing to compare with, and no link.
    const first = chart({ isRegression: (p, d) => d === "adherence" && p.run_id === "r1" });
    expect(first).toContain('<ul class="regression-links">');
    expect(first).not.toContain("/compare");
  });

  it("has no regression list when nothing regressed", () => {
    expect(chart({ isRegression: () => false })).not.toContain("regression-links");
  });

  it("titles both axes", () => {
    const svg = chart();
    expect(svg).toMatch(/<text class="axis-title" transform="rotate\(-90\)"[^>]*>score \(0–9\)<\/text>/);
    expect(svg).toMatch(/<text class="axis-title"[^>]*>run time \(UTC\), 2026-11-01 – 2026-11-15<\/text>/);
  });

  it("labels fourteen runs on one day by their clock time, a few distinct labels", () => {
    const svg = chart({ points: runsOver(14, "2026-11-27T08:10:00Z", 9 * HOUR), dimensions: ["adherence"] });
    const labels = tickLabels(svg);
    expect(labels.length).toBeGreaterThanOrEqual(2);
    expect(labels.length).toBeLessThanOrEqual(MAX_TICKS);
    expect(new Set(labels).size).toBe(labels.length);
    for (const label of labels) expect(label).toMatch(/^\d\d:\d\d$/);
    expect(svg).toContain("run time (UTC), 2026-11-27</text>");
  });

  it.each([
    ["one run", 1, 0, /^\d\d:\d\d$/],
    ["14 runs within a minute", 14, 40_000, /^\d\d:\d\d$/],
    ["14 runs over nine hours across midnight", 14, 9 * HOUR, /^(\d\d:\d\d|03-15)$/],
    ["500 runs on one day", 500, 23 * HOUR, /^(\d\d:\d\d|\d\d-\d\d)$/],
    ["14 runs over forty hours", 14, 40 * HOUR, /^\d\d-\d\d$/],
    ["14 runs over three weeks", 14, 20 * DAY, /^\d\d-\d\d$/],
    ["14 runs over a year", 14, 365 * DAY, /^\d{4}-\d\d$/],
    ["500 runs over a year", 500, 365 * DAY, /^\d{4}-\d\d$/],
    ["500 runs over twelve years", 500, 12 * 365 * DAY, /^\d{4}$/],
  ])("%s: a bounded number of distinct tick labels for the span, in time order", (_, n, span, format) => {
    const svg = chart({ points: runsOver(n, "2026-03-14T22:30:00Z", span), dimensions: ["adherence"] });
    const labels = tickLabels(svg);
    expect(labels.length).toBeGreaterThanOrEqual(1);
    expect(labels.length).toBeLessThanOrEqual(MAX_TICKS);
    expect(new Set(labels).size).toBe(labels.length);
    for (const label of labels) expect(label).toMatch(format);
    const at = [...svg.matchAll(/<text class="axis tick-label" x="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(at).toEqual([...at].sort((a, b) => a - b));
    // Far enough apart that labels ~115 units wide (seven characters at a phone's font) never touch.
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThan(120);
  });

  it("a day's clock ticks name midnight by its date, so a span across midnight repeats no label", () => {
    const ticks = timeTicks(Date.parse("2026-11-27T14:00:00Z"), Date.parse("2026-11-28T10:00:00Z"));
    const labels = ticks.map((t) => t.label);
    expect(labels).toContain("11-28");
    expect(new Set(labels).size).toBe(labels.length);
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
