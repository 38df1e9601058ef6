import { describe, expect, it } from "vitest";
import { escapeXml } from "../../src/core/index.ts";
import {
  checkAgainstBaselines,
  escapeMarkdown,
  PR_COMMENT_MARKER,
  renderCiJunit,
  renderCiMarkdown,
} from "../../src/regression/index.ts";
import { demoFolder, lower, measurementOf } from "./measurement.ts";
import { findAll, parseXml } from "./xml.ts";

function regressedReport() {
  const folder = demoFolder();
  const m = measurementOf(folder);
  lower(m, "dov", "adherence", [2]);
  m.agents.find((a) => a.agent_id === "ines")!.persona_hash = "0123456789abcdef";
  return checkAgainstBaselines(m, folder, { threshold: 1, trials: 1 });
}

describe("the pull-request comment", () => {
  it("starts with the hidden marker the workflow looks for", () => {
    expect(renderCiMarkdown(regressedReport()).split("\n")[0]).toBe(PR_COMMENT_MARKER);
  });

  it("marks the regressed agent and dimension with ❌ and baseline → now (delta)", () => {
    const md = renderCiMarkdown(regressedReport());
    expect(md).toMatch(/### ❌ Persona check: 1 regression/);
    expect(md).toMatch(/\| Dov Marchetti \| ❌ 7\.54 → 5\.54 \(−2\.00\) \|/);
  });

  it("lists the recommendations of the propositions that fell", () => {
    const md = renderCiMarkdown(regressedReport());
    expect(md).toContain("**Dov Marchetti · adherence**");
    expect(md).toMatch(/`persona-traits` 7\.87 → 5\.87 \(−2\.00\) — Let the persona's traits/);
  });

  it("marks a stale baseline with ⚠ and says it is not a regression", () => {
    const md = renderCiMarkdown(regressedReport());
    expect(md).toMatch(/\| Inés Okafor \| ⚠ stale 6\.79/);
    expect(md).toMatch(/Stale baselines \(not compared, not a regression\)/);
    expect(md).toMatch(/\*\*Inés Okafor\*\*: the persona changed/);
  });

  it("escapes agent text so a name cannot inject HTML, a marker or table cells", () => {
    expect(escapeMarkdown("<!-- dramaturg-persona-check --> | *x*\nnext")).toBe(
      "\\<\\!-- dramaturg-persona-check --\\> \\| \\*x\\* next",
    );
    const report = regressedReport();
    report.agents[0]!.name = "<img src=x onerror=alert(1)> | evil";
    const md = renderCiMarkdown(report);
    expect(md).not.toMatch(/(?<!\\)<img/);
    expect(md.split(PR_COMMENT_MARKER)).toHaveLength(2);
  });
});

describe("the JUnit report", () => {
  it("is well-formed XML with one test case per agent or channel × dimension", () => {
    const root = parseXml(renderCiJunit(regressedReport()));
    expect(root.name).toBe("testsuites");
    expect(findAll(root, "testcase")).toHaveLength(18);
    expect(root.attributes).toMatchObject({ tests: "18", failures: "1" });
  });

  it("fails the regressed agent × dimension and skips the stale ones", () => {
    const root = parseXml(renderCiJunit(regressedReport()));
    const failed = findAll(root, "testcase").filter((t) => t.children.some((c) => c.name === "failure"));
    expect(failed.map((t) => `${t.attributes.classname} ${t.attributes.name}`)).toEqual([
      "dramaturg.persona.agent.dov adherence",
    ]);
    const failure = findAll(failed[0]!, "failure")[0]!;
    expect(failure.attributes.message).toMatch(/Dov Marchetti adherence fell −2\.00/);
    const skipped = findAll(root, "testcase").filter(
      (t) => t.attributes.classname === "dramaturg.persona.agent.ines",
    );
    for (const t of skipped) expect(t.children.map((c) => c.name)).toContain("skipped");
  });

  it("escapes names and text so the XML stays well-formed", () => {
    const report = regressedReport();
    report.agents[0]!.name = `Dov "<&>" O'Neil\u0001`;
    const root = parseXml(renderCiJunit(report));
    expect(findAll(root, "testsuite")[0]!.attributes.name).toBe(`agent Dov "<&>" O'Neil (dov)`);
    expect(escapeXml("a<b&c")).toBe("a&lt;b&amp;c");
  });
});
