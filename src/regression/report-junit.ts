// JUnit XML of `dramaturg ci --junit`: one test case per agent (or channel) × dimension, so any CI shows
// regressions as failures and stale baselines as skipped tests.
import { escapeXml, type JunitSuite, junitDocument, junitSuite } from "../core/index.ts";
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

export function renderCiJunit(
  report: CiReport,
  { suites: more = [] }: { suites?: readonly JunitSuite[] } = {},
): string {
  const suites: JunitSuite[] = [];
  for (const s of [...report.agents, ...report.channels])
    suites.push(
      junitSuite(
        `${s.kind} ${s.name} (${s.id})`,
        {
          failures: s.dimensions.filter((d) => d.status === "regression").length,
          errors: s.dimensions.filter((d) => d.status === "no-score").length,
          skipped: s.dimensions.filter((d) => ["stale", "not-evaluated", "new"].includes(d.status)).length,
        },
        s.dimensions.map((d) => testcase(s, d, report.threshold)),
      ),
    );
  if (report.agreement) {
    const check = report.agreement;
    suites.push(
      junitSuite(
        `judge calibration (κ ≥ ${check.min_kappa})`,
        { failures: check.uncalibrated },
        check.propositions.map((p) => {
          const open = `    <testcase classname="dramaturg.calibration" name="${escapeXml(`${p.dimension}/${p.proposition_id}`)}">`;
          if (p.status === "calibrated") return `${open}</testcase>`;
          const [line] = uncalibratedLines({ ...check, propositions: [p] });
          return `${open}\n      <failure type="uncalibrated" message="${escapeXml(line!)}"/>\n    </testcase>`;
        }),
      ),
    );
  }
  return junitDocument("dramaturg persona check", [...suites, ...more]);
}
