// `dramaturg validate`: the worked example end to end, the exit codes (0 consistent, 1 a question failed,
// 2 bad input), the outputs (table, Markdown, JSON, SVG), and bad input that writes nothing.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ValidationSchema } from "../../src/validation/index.ts";
import { cli } from "../cli/run-cli.ts";
import { tempDir } from "../temp-dir.ts";

const FIXTURES = new URL("../fixtures/validation/", import.meta.url).pathname;
const REAL = join(FIXTURES, "tinytroupe-gazpacho-real.csv");
const SIMULATED = join(FIXTURES, "tinytroupe-gazpacho-simulated.csv");
const CORRECTED = join(FIXTURES, "tinytroupe-gazpacho-simulated-corrected.csv");
/** `dramaturg validate` storing nowhere lasting (the store has tests of its own: stored-validation.test.ts). */
const validate = (args: string[]) => cli(["validate", ...args, "--db", "memory://"]);
const VOTE = ["--column", "Vote", "--simulated-column", "response", "--kind", "ordinal", "--scale", "1-5"];

describe("dramaturg validate on the Gazpacho survey", () => {
  it("says collapsed for the simulated votes, with and without the correction, and exits 1", async () => {
    for (const [simulated, welch] of [
      [SIMULATED, 0.849],
      [CORRECTED, 0.269],
    ] as const) {
      const { code, stdout } = await validate([REAL, simulated, ...VOTE, "--format", "json"]);
      expect(code).toBe(1);
      const v = ValidationSchema.parse(JSON.parse(stdout));
      expect(v.questions[0]!.verdict).toBe("collapsed");
      expect(v.questions[0]!.welch!.p).toBeCloseTo(welch, 3);
      expect(v.summary).toMatchObject({ questions: 1, failed: 1 });
    }
  });

  it("prints a table with the verdict and its reasons", async () => {
    const { code, stdout } = await validate([REAL, SIMULATED, ...VOTE]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^Vote +50 \/ 50 +2\.86 \/ 2\.82 +1\.36 \/ 0\.60 .* collapsed$/m);
    expect(stdout).toMatch(/Welch p 0\.85 ≥ 0\.05, the location agrees/);
  });

  it("exits 0 when every question is consistent", async () => {
    const { code, stdout } = await validate([REAL, REAL, "--column", "Vote", "--kind", "ordinal"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Every question is consistent/);
  });

  it("moves the verdict with a threshold flag", async () => {
    const { code, stdout } = await validate([
      REAL,
      SIMULATED,
      ...VOTE,
      "--collapse-sd-ratio",
      "0.3",
      "--collapse-entropy-ratio",
      "0.3",
      "--format",
      "json",
    ]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).questions[0].verdict).toBe("different");
  });

  it("writes Markdown to --out and the chart to --svg: no script, every text escaped", async () => {
    const dir = tempDir();
    const real = join(dir, "real.csv");
    const simulated = join(dir, "sim.jsonl");
    writeFileSync(real, 'id,"<b>Q&A</b>"\n1,yes\n2,no\n3,yes\n');
    writeFileSync(simulated, '{"<b>Q&A</b>": "yes"}\n{"<b>Q&A</b>": "yes"}\n');
    const out = join(dir, "v.md");
    const svg = join(dir, "v.svg");
    const { code } = await validate([
      real,
      simulated,
      "--column",
      "<b>Q&A</b>",
      "--kind",
      "binary",
      "--format",
      "markdown",
      "--out",
      out,
      "--svg",
      svg,
    ]);
    expect(code).toBe(0);
    expect(readFileSync(out, "utf8")).toMatch(/^## Validation: /);
    expect(readFileSync(out, "utf8")).toContain("\\<b\\>Q\\&A\\</b\\>");
    const chart = readFileSync(svg, "utf8");
    expect(chart).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(chart).not.toMatch(/<script|<b>/i);
    expect(chart).toContain("&lt;b&gt;Q&amp;A&lt;/b&gt;");
  });

  it("draws each question's two distributions side by side", async () => {
    const dir = tempDir();
    const svg = join(dir, "g.svg");
    await validate([REAL, SIMULATED, ...VOTE, "--svg", svg]);
    const chart = readFileSync(svg, "utf8");
    // Five scale points, a real bar each (and the legend's square in the real side's colour).
    expect(
      chart.match(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="#4f6d8a"\/>/g),
    ).toHaveLength(6);
    expect(chart.match(/fill="#c0522b"\/>/g)!.length).toBeGreaterThanOrEqual(5);
    expect(chart).toContain(">collapsed</text>");
  });

  it("reads several questions and thresholds from a YAML spec", async () => {
    const dir = tempDir();
    const spec = join(dir, "spec.yaml");
    writeFileSync(
      spec,
      "questions:\n  - column: Vote\n    simulated_column: response\n    kind: ordinal\n    scale: 1-5\n  - column: Vote\n    question: Vote as a number\n    simulated_column: response\n    kind: numeric\nthresholds:\n  alpha: 0.01\n",
    );
    const { code, stdout } = await validate([REAL, SIMULATED, "--spec", spec, "--format", "json"]);
    expect(code).toBe(1);
    const v = JSON.parse(stdout);
    expect(v.questions.map((q: { question: string }) => q.question)).toEqual(["Vote", "Vote as a number"]);
    expect(v.thresholds.alpha).toBe(0.01);
  });

  it("prints the format's JSON Schema and shows examples in its help", async () => {
    const schema = await cli(["schema", "validation"]);
    expect(JSON.parse(schema.stdout).properties.format.const).toBe("dramaturg.validation/v1");
    const help = await validate(["--help"]);
    expect(help.stdout).toMatch(/Examples:\n {2}\$ dramaturg validate survey\.csv/);
  });
});

describe("bad input exits 2, names the file, row and column, and writes nothing", () => {
  async function refused(args: string[], expected: RegExp) {
    const dir = tempDir();
    const { code, stderr, stdout } = await cli([
      "validate",
      ...args,
      "--out",
      join(dir, "out.json"),
      "--svg",
      join(dir, "out.svg"),
      "--db",
      join(dir, "store"),
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(expected);
    expect(stdout).toBe("");
    expect(readdirSync(dir)).toEqual([]);
  }

  it("a column that is not there", async () => {
    await refused(
      [REAL, SIMULATED, "--column", "Votes", "--kind", "ordinal"],
      /tinytroupe-gazpacho-real\.csv:header \(line 1\): no column "Votes" .*did you mean "Vote"\?/,
    );
  });

  it("a vote outside the scale", async () => {
    const dir = tempDir();
    const simulated = join(dir, "simulated.csv");
    writeFileSync(simulated, "name,response\nAna,3\nBo,6\n");
    await refused(
      [REAL, simulated, ...VOTE],
      /simulated\.csv:row 2 \(line 3\), column "response": "6" is outside the scale 1–5/,
    );
  });

  it("a ranking with a repeated option", async () => {
    const dir = tempDir();
    const simulated = join(dir, "rankings.json");
    writeFileSync(simulated, JSON.stringify([{ response: "A-B-C-D-E" }, { response: "A-C-C-D-E" }]));
    await refused(
      [
        join(FIXTURES, "tinytroupe-story-device-real.csv"),
        simulated,
        "--column",
        "Vote",
        "--simulated-column",
        "response",
        "--kind",
        "ranking",
      ],
      /rankings\.json:row 2 \(\[1\]\.response\): option "C" is ranked twice in "A-C-C-D-E"/,
    );
  });

  it("a file with no rows", async () => {
    const dir = tempDir();
    const empty = join(dir, "empty.csv");
    writeFileSync(empty, "name,response\n");
    await refused([REAL, empty, ...VOTE], /empty\.csv: the file has no rows/);
  });

  it("a bad YAML spec, at its line", async () => {
    const dir = tempDir();
    const spec = join(dir, "spec.yaml");
    writeFileSync(spec, "questions:\n  - column: Vote\n    kind: likert\n");
    await refused([REAL, SIMULATED, "--spec", spec], /spec\.yaml:3:\d+: .*kind/);
  });

  it("a file that does not exist", async () => {
    await refused(
      [REAL, join(FIXTURES, "no-such.csv"), ...VOTE],
      /no-such\.csv: cannot read the answers \(ENOENT\)/,
    );
  });

  it("no question given", async () => {
    await refused([REAL, SIMULATED], /--column: which question\?/);
    expect(existsSync(join(FIXTURES, "out.json"))).toBe(false);
  });
});
