// `dramaturg ci --min-agreement K`: each compared proposition's judge held against a calibration of the same
// judge and rubric — none, the store's latest, a committed file, a changed claim — over the bundled ensemble.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { CalibrationResult } from "../../src/calibration/index.ts";
import type { CiReport } from "../../src/regression/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO, ROOT } from "./run-cli.ts";

const folder = useTempDir("dramaturg-ci-agreement-");
const LABELS = [
  `${ROOT}examples/ensemble/labels/rater-a.yaml`,
  `${ROOT}examples/ensemble/labels/rater-b.csv`,
];
const BASELINES = ["--baselines", `${ROOT}examples/ensemble/baselines`];
let db: string;
let calibration: CalibrationResult;
let calibrationFile: string;

const ci = (...extra: string[]) => cli(["ci", ...DEMO, ...BASELINES, "--format", "json", ...extra]);
const reportOf = (stdout: string) => JSON.parse(stdout) as CiReport;

beforeAll(async () => {
  db = join(folder(), "store");
  const evaluated = await cli(["eval", ...DEMO, "--db", db, "--format", "json"]);
  expect(evaluated.code).toBe(0);
  calibrationFile = join(folder(), "calibration.json");
  const calibrated = await cli([
    "calibrate",
    "--labels",
    ...LABELS,
    "--run",
    JSON.parse(evaluated.stdout).evaluation_id,
    "--db",
    db,
    "--resamples",
    "0",
    "--format",
    "json",
    "--out",
    calibrationFile,
  ]);
  expect(calibrated.stderr).not.toMatch(/Error/);
  calibration = JSON.parse(readFileSync(calibrationFile, "utf8"));
}, 60_000);

describe("dramaturg ci --min-agreement", () => {
  it("without any calibration of the judge, reports every compared proposition and fails", async () => {
    const r = await ci("--db", "memory://", "--min-agreement", "0.6");
    expect(r.code).toBe(1);
    const report = reportOf(r.stdout);
    expect(report.passed).toBe(false);
    expect(report.counts.regressions).toBe(0);
    expect(report.agreement!.calibration_id).toBeNull();
    expect(report.agreement!.propositions.length).toBeGreaterThan(0);
    expect(new Set(report.agreement!.propositions.map((p) => p.status))).toEqual(new Set(["no-calibration"]));
    expect(report.agreement!.uncalibrated).toBe(report.agreement!.propositions.length);
  }, 60_000);

  it("against the store's latest calibration of the judge, each proposition as its figures say", async () => {
    const r = await ci("--db", db, "--min-agreement", "0.6");
    const report = reportOf(r.stdout);
    const check = report.agreement!;
    expect(check.calibration_id).toBe(calibration.evaluation_id);
    const figures = new Map(calibration.propositions.map((p) => [`${p.dimension}/${p.proposition_id}`, p]));
    for (const p of check.propositions) {
      const f = figures.get(`${p.dimension}/${p.proposition_id}`);
      if (!f) expect(p.status).toBe("unlabelled");
      else if (f.too_few) expect(p.status).toBe("too-few");
      else expect(p.status).toBe(f.kappa_quadratic! >= 0.6 ? "calibrated" : "below");
    }
    // The example labels cover some propositions well and some not: both kinds are there.
    expect(check.propositions.some((p) => p.status === "calibrated")).toBe(true);
    expect(check.uncalibrated).toBeGreaterThan(0);
    expect(r.code).toBe(1);
    // A bar nobody can miss still fails the propositions that were never labelled.
    const lenient = reportOf((await ci("--db", db, "--min-agreement", "-1")).stdout).agreement!;
    expect(lenient.propositions.filter((p) => p.status !== "calibrated").map((p) => p.status)).not.toContain(
      "below",
    );
  }, 60_000);

  it("reads a committed calibration file on a fresh store, and names what was not calibrated in every report", async () => {
    const markdown = join(folder(), "check.md");
    const junit = join(folder(), "check.xml");
    const r = await ci(
      "--db",
      "memory://",
      "--min-agreement",
      "0.6",
      "--calibration",
      calibrationFile,
      "--markdown",
      markdown,
      "--junit",
      junit,
    );
    const fromFile = reportOf(r.stdout).agreement!;
    const fromStore = reportOf((await ci("--db", db, "--min-agreement", "0.6")).stdout).agreement!;
    expect(fromFile).toEqual(fromStore);
    const first = fromFile.propositions.find((p) => p.status !== "calibrated")!;
    expect(readFileSync(markdown, "utf8")).toContain("Judge not calibrated well enough");
    expect(readFileSync(markdown, "utf8")).toContain(`${first.dimension}/${first.proposition_id}`);
    expect(readFileSync(junit, "utf8")).toMatch(
      new RegExp(`name="${first.dimension}/${first.proposition_id}">\\s*<failure type="uncalibrated"`),
    );
    const table = await cli([
      "ci",
      ...DEMO,
      ...BASELINES,
      "--db",
      "memory://",
      "--min-agreement",
      "0.6",
      "--calibration",
      calibrationFile,
    ]);
    expect(table.stdout).toContain(`not calibrated well enough: ${first.dimension}/${first.proposition_id}`);
    expect(table.stdout).toMatch(/FAILED: .* \d+ not calibrated well enough \(κ ≥ 0.6\)/);
  }, 60_000);

  it("a changed claim reads as uncalibrated while the others keep their figures", async () => {
    const propositions = join(folder(), "propositions");
    cpSync(`${ROOT}examples/ensemble/propositions`, propositions, { recursive: true });
    // A labelled proposition of the example's own files (the rest are built in): its claim reworded.
    const file = join(propositions, "adherence", "priya.yaml");
    const text = readFileSync(file, "utf8");
    expect(calibration.propositions.map((p) => p.proposition_id)).toContain("priya-measured-facts");
    const changed = text.replace(/(- id: priya-measured-facts\s+claim:\s*["']?)/, "$1Plainly, ");
    expect(changed).not.toBe(text);
    writeFileSync(file, changed);
    const args = DEMO.map((a) => (a.endsWith("examples/ensemble/propositions") ? propositions : a));
    // New baselines of the new claims: against the old ones, the changed set would only be stale.
    const baselines = join(folder(), "baselines");
    const made = await cli(["baseline", ...args, "--out", baselines, "--db", "memory://"]);
    expect(made.code).toBe(0);
    const r = await cli([
      "ci",
      ...args,
      "--baselines",
      baselines,
      "--db",
      db,
      "--format",
      "json",
      "--min-agreement",
      "0.6",
    ]);
    const check = reportOf(r.stdout).agreement!;
    const statuses = new Map(check.propositions.map((p) => [`${p.dimension}/${p.proposition_id}`, p.status]));
    expect([...statuses.values()]).toContain("changed");
    const unchanged = reportOf((await ci("--db", db, "--min-agreement", "0.6")).stdout).agreement!;
    const before = new Map(
      unchanged.propositions.map((p) => [`${p.dimension}/${p.proposition_id}`, p.status]),
    );
    const differing = [...statuses].filter(([key, status]) => before.get(key) !== status);
    expect(differing).toEqual([["adherence/priya-measured-facts", "changed"]]);
  }, 60_000);

  it("a bad bar or calibration file exits 2 before anything is judged", async () => {
    const bad = await ci("--db", "memory://", "--min-agreement", "2");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--min-agreement/);
    const notCalibration = join(folder(), "not-a-calibration.json");
    writeFileSync(notCalibration, JSON.stringify({ format: "dramaturg.eval-result/v1" }));
    const wrong = await ci("--db", "memory://", "--min-agreement", "0.6", "--calibration", notCalibration);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/not-a-calibration\.json.*format/s);
  }, 60_000);

  it("without --min-agreement the report has no agreement section and passes as before", async () => {
    const r = await ci("--db", "memory://");
    expect(r.code).toBe(0);
    expect(reportOf(r.stdout).agreement).toBeUndefined();
  }, 60_000);
});
