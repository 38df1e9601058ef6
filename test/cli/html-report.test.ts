// `--format html` (and `ci --html`): one self-contained HTML file of what a command evaluated — the
// dashboard's pages with the stylesheet inline, one inline script allowed by its hash, nothing fetched, links
// between its pages anchors.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../temp-dir.ts";
import { cli, DEMO, ROOT } from "./run-cli.ts";
import { expectSelfContained } from "./self-contained-report.ts";

const dir = useTempDir("dramaturg-html-report-");

describe("the HTML report", () => {
  it("eval --format html writes every agent's run page into one file, and prints the table", async () => {
    const out = join(dir(), "eval.html");
    const r = await cli(["eval", ...DEMO, "--db", "memory://", "--format", "html", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/wrote .*eval\.html \(\d+ KiB\)/);
    expect(r.stdout).toMatch(/Inés Okafor/);
    const report = readFileSync(out, "utf8");
    expectSelfContained(report);
    expect(report.match(/<section class="report-page" id="page-runs-/g)).toHaveLength(4);
    // The summary links each agent to its run's section.
    expect(report).toMatch(
      /<section class="report-summary">[\s\S]*<a href="#page-runs-[^"]+">Inés Okafor<\/a>/,
    );
    // Small enough to keep as a CI artifact.
    expect(Buffer.byteLength(report)).toBeLessThan(2_000_000);
  });

  it("agent text stays text: a message with markup is escaped in the report", async () => {
    const transcript = JSON.parse(readFileSync(`${ROOT}examples/ensemble/transcript.json`, "utf8"));
    transcript.messages[0].text = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
    const file = join(dir(), "injected.json");
    writeFileSync(file, JSON.stringify(transcript));
    const out = join(dir(), "injected.html");
    const r = await cli([
      "eval",
      file,
      ...DEMO.slice(1),
      "--db",
      "memory://",
      "--format",
      "html",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const report = readFileSync(out, "utf8");
    expectSelfContained(report);
    expect(report).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(report).not.toContain("<img");
  });

  it("show --format html prints the same report of a stored evaluation, byte for byte", async () => {
    const db = join(dir(), "store");
    const first = join(dir(), "first.html");
    const run = await cli(["eval", ...DEMO, "--db", db, "--format", "html", "--out", first]);
    expect(run.code, run.stderr).toBe(0);
    const json = await cli(["show", "--db", db, "--format", "json"]);
    const id = JSON.parse(json.stdout).evaluation_id as string;
    const again = await cli(["show", id.slice(0, 8), "--db", db, "--format", "html"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(readFileSync(first, "utf8"));
  });

  it("ci --html heads the report with the check: each dimension against its baseline", async () => {
    const out = join(dir(), "ci.html");
    const r = await cli([
      "ci",
      ...DEMO,
      "--baselines",
      `${ROOT}examples/ensemble/baselines`,
      "--db",
      "memory://",
      "--html",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/passed: \d+ compared, 0 regressions/);
    const report = readFileSync(out, "utf8");
    expectSelfContained(report);
    expect(report).toMatch(/<h2>Persona check: passed<\/h2>/);
    expect(report).toMatch(/<a href="#page-runs-[^"]+">Inés Okafor<\/a><\/td><td>adherence<\/td>/);
    expect(report.match(/<section class="report-page"/g)).toHaveLength(4);
    // The contents name each page by its agent; counts (ideas) come last in the check's table.
    expect(report).toMatch(
      /<nav class="report-contents"[\s\S]*<a href="#page-runs-[^"]+">Inés Okafor: run [0-9a-f]{8}<\/a>/,
    );
    const check = report.match(/<section class="ci-check">[\s\S]*?<\/section>/)?.[0] ?? "";
    const statuses = [...check.matchAll(/<span class="status (\w[\w-]*)">/g)].map((m) => m[1]);
    expect(statuses).toContain("ok");
    expect(statuses.indexOf("info")).toBeGreaterThan(statuses.lastIndexOf("ok"));
  });

  it("ci reports a regression first, with the propositions that fell", async () => {
    // A baseline far above what the fixtures give: adherence of Inés falls.
    const baselines = join(dir(), "baselines");
    const { cpSync, readdirSync } = await import("node:fs");
    cpSync(`${ROOT}examples/ensemble/baselines`, baselines, { recursive: true });
    const file = readdirSync(baselines).find((f) => f.startsWith("ines"))!;
    const baseline = JSON.parse(readFileSync(join(baselines, file), "utf8"));
    baseline.dimensions.adherence.score = 9;
    writeFileSync(join(baselines, file), JSON.stringify(baseline));
    const out = join(dir(), "regression.html");
    const r = await cli(["ci", ...DEMO, "--baselines", baselines, "--db", "memory://", "--html", out]);
    expect(r.code, r.stderr).toBe(1);
    const report = readFileSync(out, "utf8");
    expect(report).toMatch(/<h2>Persona check: 1 regression<\/h2>/);
    const firstRow = report.match(
      /<tbody>\s*<tr class="([^"]*)">\s*<td><a[^>]*>([^<]+)<\/a><\/td><td>([^<]+)</,
    );
    expect(firstRow?.slice(1)).toEqual(["regression", "Inés Okafor", "adherence"]);
  });

  it("session analyze --format html shows the session's page", async () => {
    const out = join(dir(), "session.html");
    const r = await cli([
      "session",
      "analyze",
      `${ROOT}examples/sessions/refund.session.json`,
      "--judge",
      `fixtures:${ROOT}examples/sessions/refund.judge-fixtures.json`,
      "--db",
      "memory://",
      "--format",
      "html",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const report = readFileSync(out, "utf8");
    expectSelfContained(report);
    expect(report).toMatch(/<section class="report-page" id="page-sessions-[0-9a-f-]{36}">/);
    expect(report).toContain("Session analysis");
    expect(report).toContain("lookup_order");
  });
});
