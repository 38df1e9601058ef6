// `dramaturg experiment compare` as a user runs it: a hand-made TinyTroupe results file in the Table 1
// layout (table and Markdown) and as the comparison document (JSON); bad input exits 2 naming file and place.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../temp-dir.ts";
import { cli, ROOT } from "./run-cli.ts";

const TINYTROUPE = `${ROOT}test/fixtures/experiments/hand-made-tinytroupe.json`;
const RESULT = `${ROOT}test/fixtures/experiments/hand-made-result.json`;

describe("dramaturg experiment compare", () => {
  it("prints the comparison document as JSON, exactly its fields", async () => {
    const { code, stdout, stderr } = await cli(["experiment", "compare", TINYTROUPE, "--format", "json"]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const document = JSON.parse(stdout);
    expect(Object.keys(document)).toEqual(["format", "comparisons"]);
    expect(document.format).toBe("dramaturg.experiment-comparison/v1");
    const [adherence] = document.comparisons;
    expect(Object.keys(adherence)).toEqual([
      "metric",
      "control",
      "treatment",
      "delta",
      "percent_change",
      "t",
      "df",
      "p",
      "ci95",
      "cohen_d",
      "significant",
    ]);
    // Persona Adherence: C 5.25 (n 8, var 7.5/7), T 8 (n 8, var 4/7); SciPy: t 6.0685, df 12.813, p 4.2326e-05.
    expect(adherence.metric).toBe("Persona Adherence");
    expect(adherence.control).toEqual({ n: 8, mean: 5.25, sd: expect.closeTo(Math.sqrt(7.5 / 7), 12) });
    expect(adherence.treatment.mean).toBe(8);
    expect(adherence.t).toBeCloseTo(2.75 / Math.sqrt((7.5 / 7 + 4 / 7) / 8), 10);
    expect(adherence.significant).toBe(true);
    const task = document.comparisons.find((c: { metric: string }) => c.metric === "Task Completion");
    expect(task).toMatchObject({ t: null, df: null, p: null, ci95: null, cohen_d: null, significant: null });
    expect(task.note).toMatch(/neither arm varies/);
  });

  it("prints the Table 1 layout: a row per metric, mean±sd (n), Δ, p, CI, d and a significance mark", async () => {
    const { code, stdout } = await cli(["experiment", "compare", TINYTROUPE]);
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines[0]).toBe(`treatment "Treatment" vs control "Control" (${TINYTROUPE})`);
    expect(lines[2]).toMatch(/^metric\s+control\s+treatment\s+Δ\s+%\s+t\s+df\s+p\s+95% CI of Δ\s+d\s+sig\.$/);
    const row = lines.find((l) => l.startsWith("Persona Adherence"))!;
    expect(row).toMatch(
      /5\.25±1\.04 \(8\)\s+8\.00±0\.76 \(8\)\s+\+2\.75\s+\+52\.4%\s+\+6\.07\s+12\.8\s+4\.23e-05\s+\[1\.77, 3\.73\]\s+\+3\.03\s+\*$/,
    );
    const fluency = lines.find((l) => l.startsWith("Fluency"))!;
    expect(fluency).not.toMatch(/\*$/);
    expect(lines.find((l) => l.startsWith("Task Completion"))).toMatch(
      /\+?0\.00\s+\+?0\.0%\s+–\s+–\s+–\s+–\s+–\s+–$/,
    );
    expect(stdout).toMatch(/\* p < 0\.05/);
    expect(stdout).toMatch(/Notes:\n {2}Task Completion: neither arm varies/);
  });

  it("prints Markdown, and uses --alpha for the marks", async () => {
    const { code, stdout } = await cli([
      "experiment",
      "compare",
      TINYTROUPE,
      "--format",
      "markdown",
      "--alpha",
      "0.00001",
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\| metric \| control \| treatment \| Δ \|/m);
    expect(stdout).toMatch(/^\| --- \| ---: \|/m);
    expect(stdout).toMatch(/^\| Persona Adherence \| 5\.25±1\.04 \(8\) \| .* \| {2}\|$/m);
    expect(stdout).toMatch(/\* p < 0\.00001/);
    expect(stdout).toMatch(/^- Task Completion: neither arm varies/m);
  });

  it("compares the arms named by --control and --treatment in a Dramaturg result", async () => {
    const { code, stdout } = await cli([
      "experiment",
      "compare",
      RESULT,
      "--control",
      "gate",
      "--treatment",
      "variety",
      "--format",
      "json",
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).comparisons.map((c: { delta: number }) => c.delta)).toEqual([-2, 3.25]);
  });
});

describe("dramaturg experiment compare with bad input", () => {
  it("exits 2 naming the file and the JSON path of a bad value, and prints nothing", async () => {
    const file = join(tempDir(), "results.json");
    writeFileSync(file, JSON.stringify({ experiments: { Control: { results: { Fluency: [1, 2, null] } } } }));
    const { code, stdout, stderr } = await cli(["experiment", "compare", file]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `dramaturg: ${file}:experiments.Control.results.Fluency[2]: expected a number, got an empty value; expected a TinyTroupe experiment results file (experiments.<arm>.results.<metric>: a list of numbers, or of the extracted records)\n`,
    );
  });

  it("exits 2 listing the arms found when the treatment cannot be chosen", async () => {
    const { code, stdout, stderr } = await cli(["experiment", "compare", RESULT]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/arms found: "control", "gate", "variety"; name it with --treatment\n$/);
  });

  it("exits 2 for an alpha outside (0, 1)", async () => {
    const { code, stderr } = await cli(["experiment", "compare", TINYTROUPE, "--alpha", "5"]);
    expect(code).toBe(2);
    expect(stderr).toBe('dramaturg: --alpha: expected a number between 0 and 1, got "5"\n');
  });
});
