// JUnit XML of `dramaturg ci --junit`: one test case per agent (or channel) × dimension, so any CI shows
// regressions as failures and stale baselines as skipped tests.
import { escapeXml } from "../core/index.ts";
import { uncalibratedLines } from "./agreement-check.ts";
import type { CiReport, DimensionCheck, SubjectCheck } from "./compare.ts";
import { formatDelta, formatScore } from "./report-markdown.ts";

function summary(d: DimensionCheck): string {
  const trials = d.trials.length > 1 ? `; trials ${d.trials.map(formatScore).join(", ")}` : "";
  return `baseline ${formatScore(d.baseline)}, now ${formatScore(d.now)}, delta ${formatDelta(d.delta)}${trials}`;
}

function testcase(s: SubjectCheck, d: DimensionCheck, threshold: number): string {
  const name = escapeXml(d.dimension);
  const classname = escapeXml(`dramaturg.persona.${s.kind}.${s.id}`);
  const open = `    <testcase classname="${classname}" name="${name}" file="${escapeXml(s.file)}">`;
  const out = `      <system-out>${escapeXml(`${s.name} · ${d.dimension}: ${summary(d)}${d.reason ? ` (${d.reason})` : ""}`)}</system-out>`;
  switch (d.status) {
    case "regression": {
      const fell = d.propositions
        .filter((p) => p.fell)
        .map(
          (p) =>
            `${p.id}: ${formatScore(p.baseline)} → ${formatScore(p.now)} (${formatDelta(p.delta)})${p.recommendations ? ` — ${p.recommendations}` : ""}`,
        )
        .join("\n");
      const message = `${s.name} ${d.dimension} fell ${formatDelta(d.delta)} (more than ${threshold}) below its baseline`;
      return `${open}\n      <failure type="regression" message="${escapeXml(message)}">${escapeXml(`${summary(d)}\n${fell}`)}</failure>\n${out}\n    </testcase>`;
    }
    case "no-score":
      return `${open}\n      <error type="no-score" message="${escapeXml(`${s.name} ${d.dimension}: every verdict errored`)}"/>\n${out}\n    </testcase>`;
    case "stale":
    case "not-evaluated":
    case "new":
      return `${open}\n      <skipped message="${escapeXml(`${d.status === "stale" ? "stale baseline" : d.status}: ${d.reason ?? ""}`)}"/>\n${out}\n    </testcase>`;
    default:
      return `${open}\n${out}\n    </testcase>`;
  }
}

/** A `<testsuite>` element of another check (ci's red team) and its counts, added to the document's totals. */
export interface JunitSuite {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

export function renderCiJunit(
  report: CiReport,
  { suites: more = [] }: { suites?: readonly JunitSuite[] } = {},
): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  for (const s of [...report.agents, ...report.channels]) {
    const n = s.dimensions.length;
    const f = s.dimensions.filter((d) => d.status === "regression").length;
    const e = s.dimensions.filter((d) => d.status === "no-score").length;
    const k = s.dimensions.filter((d) => ["stale", "not-evaluated", "new"].includes(d.status)).length;
    tests += n;
    failures += f;
    errors += e;
    skipped += k;
    suites.push(
      `  <testsuite name="${escapeXml(`${s.kind} ${s.name} (${s.id})`)}" tests="${n}" failures="${f}" errors="${e}" skipped="${k}">\n${s.dimensions.map((d) => testcase(s, d, report.threshold)).join("\n")}\n  </testsuite>`,
    );
  }
  if (report.agreement) {
    const check = report.agreement;
    const n = check.propositions.length;
    tests += n;
    failures += check.uncalibrated;
    suites.push(
      `  <testsuite name="judge calibration (κ ≥ ${check.min_kappa})" tests="${n}" failures="${check.uncalibrated}" errors="0" skipped="0">\n${check.propositions
        .map((p) => {
          const open = `    <testcase classname="dramaturg.calibration" name="${escapeXml(`${p.dimension}/${p.proposition_id}`)}">`;
          if (p.status === "calibrated") return `${open}</testcase>`;
          const [line] = uncalibratedLines({ ...check, propositions: [p] });
          return `${open}\n      <failure type="uncalibrated" message="${escapeXml(line!)}"/>\n    </testcase>`;
        })
        .join("\n")}\n  </testsuite>`,
    );
  }
  for (const suite of more) {
    tests += suite.tests;
    failures += suite.failures;
    errors += suite.errors;
    skipped += suite.skipped;
    suites.push(suite.xml);
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="dramaturg persona check" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}">\n${suites.join("\n")}\n</testsuites>\n`;
}
