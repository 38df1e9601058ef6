// An experiment's report: the comparison document of `experiment compare` plus where it comes from, the
// Table 1 layout under a heading that names the experiment, and the SVG chart — well-formed, every label
// escaped, the same bytes for the same input, each arm's mean interval the t interval of the mean.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compareResultSets,
  EXPERIMENT_COMPARISON_FORMAT,
  type ExperimentChartInput,
  experimentReport,
  meanCi95,
  parseResultSets,
  readExperimentReport,
  renderComparisonTable,
  renderExperimentChart,
  renderExperimentReportMarkdown,
  renderExperimentReportTable,
} from "../../src/experiments/index.ts";

const JUNE = new URL("../fixtures/experiments/tinytroupe-june-2025/", import.meta.url).pathname;
const EXP_1 = join(JUNE, "brainstorming_and_focus_group_quantitative_experimentation_1c.json");

/** A result document as the runner writes one, hand-made here: scenario, seed, labelled arms, two metrics. */
const DOCUMENT = {
  format: "dramaturg.experiment-result/v1",
  scenario: { id: "tea-tasting", title: "Tea <b>tasting</b>", scale: 0.5, environments: 4 },
  seed: 7,
  arms: {
    control: { label: "No gate", metrics: { adherence: [4, 5, 5, 6, 4, 5], ideas_quantity: [3, 4, 3, 5] } },
    treatment: {
      label: "Gate on",
      metrics: { adherence: [6, 7, 7, 8, 6, 7], ideas_quantity: [12, 14, 11, 15] },
    },
  },
};

/**
 * A strict reading of the XML the chart is: every tag closed in order, attributes quoted, no raw `<` or `&`
 * in text or attributes, one root. Returns how many of each element there are; throws where it stops.
 */
function parseXml(xml: string): Record<string, number> {
  const entity = "&(?:amp|lt|gt|quot|apos|#\\d+|#x[0-9a-fA-F]+);";
  const attribute = `\\s+[A-Za-z_:][\\w:.-]*="(?:[^"<&]|${entity})*"`;
  const token = new RegExp(
    `<(/)?([A-Za-z_][\\w:.-]*)((?:${attribute})*)\\s*(/)?>|((?:[^<&]|${entity})+)`,
    "y",
  );
  const counts: Record<string, number> = {};
  const open: string[] = [];
  let roots = 0;
  let i = xml.startsWith("<?xml") ? xml.indexOf("?>") + 2 : 0;
  while (i < xml.length) {
    token.lastIndex = i;
    const m = token.exec(xml);
    if (!m) throw new Error(`not well-formed at ${i}: ${JSON.stringify(xml.slice(i, i + 60))}`);
    const [, closing, name, , selfClosing, text] = m;
    if (text !== undefined) {
      if (open.length === 0 && text.trim() !== "") throw new Error(`text outside the root at ${i}`);
    } else if (closing) {
      if (open.pop() !== name) throw new Error(`</${name}> closes nothing open at ${i}`);
    } else {
      if (open.length === 0) roots++;
      counts[name!] = (counts[name!] ?? 0) + 1;
      if (!selfClosing) open.push(name!);
    }
    i = token.lastIndex;
  }
  if (open.length > 0) throw new Error(`unclosed: ${open.join(", ")}`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
  return counts;
}

describe("an experiment's report", () => {
  it("is the comparison document of experiment compare, plus the experiment it comes from", () => {
    const { report } = experimentReport(DOCUMENT, { file: "tea.json" });
    const { experiment, ...comparison } = report;
    expect(comparison).toEqual(compareResultSets(parseResultSets(DOCUMENT, "tea.json")));
    expect(report.format).toBe(EXPERIMENT_COMPARISON_FORMAT);
    expect(Object.keys(report)).toEqual(["format", "comparisons", "experiment"]);
    expect(experiment).toEqual({
      scenario: "tea-tasting",
      title: "Tea <b>tasting</b>",
      source: "tea.json",
      control: { name: "control", label: "No gate", errored: null, gate_unjudged: null },
      treatment: { name: "treatment", label: "Gate on", errored: null, gate_unjudged: null },
      alpha: 0.05,
      scale: 0.5,
      seed: 7,
    });
  });

  it("names what a document does not say as null: a TinyTroupe file has no scenario, labels, scale or seed", () => {
    const { report } = readExperimentReport(EXP_1, { alpha: 0.01 });
    expect(report.experiment).toEqual({
      scenario: null,
      title: null,
      source: EXP_1,
      control: { name: "Control", label: null, errored: null, gate_unjudged: null },
      treatment: { name: "Treatment", label: null, errored: null, gate_unjudged: null },
      alpha: 0.01,
      scale: null,
      seed: null,
    });
    // Divergence (p 0.0496) is significant at 0.05, not at 0.01.
    expect(report.comparisons.find((c) => c.metric === "Divergence")!.significant).toBe(false);
  });

  it("prints the experiment's name and the arms' labels above the Table 1 layout", () => {
    const { report } = experimentReport(DOCUMENT, { file: "tea.json" });
    const table = renderExperimentReportTable(report);
    const labels = { control: "control", treatment: "treatment", alpha: 0.05, source: "tea.json" };
    expect(table).toBe(
      `experiment tea-tasting: Tea <b>tasting</b> · scale 0.5 · seed 7\n  control: No gate\n  treatment: Gate on\n\n${renderComparisonTable(report, labels)}`,
    );
    const markdown = renderExperimentReportMarkdown(report);
    // The title is the document's text: escaped, so no tag reaches a rendered page.
    expect(markdown.split("\n").slice(0, 5)).toEqual([
      "### experiment tea-tasting: Tea \\<b\\>tasting\\</b\\> · scale 0.5 · seed 7",
      "",
      "- control: No gate",
      "- treatment: Gate on",
      "",
    ]);
    expect(markdown).toMatch(/^\| adherence \| 4\.83±0\.75 \(6\) \| 6\.83±0\.75 \(6\) \| \+2\.00 \|/m);
  });
});

describe("the chart", () => {
  const { chart } = readExperimentReport(EXP_1);

  it("is well-formed SVG: a panel per metric, a dot per value, a mean and an interval per arm", () => {
    const svg = renderExperimentChart(chart);
    const counts = parseXml(svg);
    const values = chart.metrics.reduce((n, m) => n + m.control.length + m.treatment.length, 0);
    expect(values).toBe(200 * 6 + 40 * 5 + 39);
    expect(counts.svg).toBe(1);
    expect(counts.g).toBe(6);
    // The legend's two swatches and a dot per value.
    expect(counts.circle).toBe(values + 2);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toMatch(/NaN|Infinity|undefined/);
    expect(svg).toContain(">Δ +4.43 · p 1.37e-13 *</text>");
    expect(svg).toContain(">Δ -0.15 · p 0.566</text>");
  });

  it("is the same bytes for the same input, and other bytes for other values", () => {
    const again = readExperimentReport(EXP_1).chart;
    expect(renderExperimentChart(again)).toBe(renderExperimentChart(chart));
    const changed: ExperimentChartInput = {
      ...chart,
      metrics: [{ ...chart.metrics[0]!, treatment: [...chart.metrics[0]!.treatment.slice(1), 0] }],
    };
    expect(renderExperimentChart(changed)).not.toBe(
      renderExperimentChart({ ...chart, metrics: [chart.metrics[0]!] }),
    );
  });

  it("escapes every label: a metric named <script> is text, not an element", () => {
    const hostile: ExperimentChartInput = {
      title: 'Run "one" & <two>',
      control: "<b>control</b>",
      treatment: "treat\u0000ment",
      alpha: 0.05,
      metrics: [
        {
          metric: "<script>alert(1)</script>",
          control: [1, 2],
          treatment: [3, 4],
          delta: 2,
          p: 0.1,
          significant: false,
        },
      ],
    };
    const svg = renderExperimentChart(hostile);
    const counts = parseXml(svg);
    expect(counts.script).toBeUndefined();
    expect(counts.b).toBeUndefined();
    expect(svg).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(svg).toContain("<title>Run &quot;one&quot; &amp; &lt;two&gt;</title>");
    expect(svg).toContain("&lt;b&gt;control&lt;/b&gt;");
    // A character XML cannot hold is dropped, so the document stays well-formed.
    expect(svg).toContain(">treatment</text>");
  });

  it("puts the judge's 0–9 scale on a score panel and widens the axis for counts above it", () => {
    const svg = renderExperimentChart(chart);
    const panels = svg.split('<g transform="').slice(1);
    const ticks = (panel: string) =>
      [...panel.matchAll(/text-anchor="end" fill="#6b7280">([^<]+)</g)].map((m) => m[1]);
    expect(ticks(panels[0]!)).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
    // ideas_qty reaches 18.
    expect(ticks(panels.find((p) => p.includes(">ideas_qty<"))!)).toEqual(["0", "5", "10", "15", "20"]);
  });

  it("draws each arm's mean with the 95 % t interval of the mean", () => {
    // [1, 2, 3, 4, 5]: mean 3, standard error √2.5/√5, t(0.975, 4) = 2.7764451; SciPy: (1.03675684, 4.96324316).
    const [low, high] = meanCi95([1, 2, 3, 4, 5])!;
    expect(low).toBeCloseTo(1.03675684, 7);
    expect(high).toBeCloseTo(4.96324316, 7);
    expect(meanCi95([4])).toBeNull();
    expect(meanCi95([4, 4, 4])).toBeNull();
    const svg = renderExperimentChart({
      title: "t",
      control: "c",
      treatment: "t",
      alpha: 0.05,
      metrics: [
        { metric: "m", control: [1, 2, 3, 4, 5], treatment: [4], delta: 1, p: null, significant: null },
      ],
    });
    // Whiskers (3 lines) only for the arm with an interval; a mean bar (stroke-width 3) for both.
    expect(svg.match(/stroke-width="1\.5"/g)).toHaveLength(3);
    expect(svg.match(/stroke-width="3"/g)).toHaveLength(2);
    expect(svg).toContain(">Δ +1.00 · p –</text>");
  });
});
