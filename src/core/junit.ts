// JUnit XML's frame: a `<testsuite>` with its counts, and the `<testsuites>` document that adds them up. The
// checks (ci's persona check, judge calibration, the red team) write their own test cases inside it.
import { escapeXml } from "./escape.ts";

/** One `<testsuite>` element and its counts, to stand beside others in a `<testsuites>` document. */
export interface JunitSuite {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

/** A `<testsuite>` of ready `<testcase>` elements (indented by four spaces), with the counts given. */
export function junitSuite(
  name: string,
  counts: { failures: number; errors?: number; skipped?: number },
  cases: readonly string[],
): JunitSuite {
  const tests = cases.length;
  const { failures, errors = 0, skipped = 0 } = counts;
  const xml = `  <testsuite name="${escapeXml(name)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}">\n${cases.join("\n")}\n  </testsuite>`;
  return { xml, tests, failures, errors, skipped };
}

/** The whole document: its suites, and their counts added up on `<testsuites>`. */
export function junitDocument(name: string, suites: readonly JunitSuite[]): string {
  const sum = (key: "tests" | "failures" | "errors" | "skipped") => suites.reduce((n, s) => n + s[key], 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${escapeXml(name)}" tests="${sum("tests")}" failures="${sum("failures")}" errors="${sum("errors")}" skipped="${sum("skipped")}">\n${suites.map((s) => s.xml).join("\n")}\n</testsuites>\n`;
}
