// `dramaturg ci --dashboard-url`: the Markdown comment and the HTML report's check link each agent's run, each
// regressed dimension and each proposition that fell to the run page's verdicts on the dashboard — the same
// paths the pages link, made absolute — and, without a URL, are the bytes they were before the option.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type CiDashboardLinks,
  checkAgainstBaselines,
  dashboardLink,
  renderCiMarkdown,
} from "../../src/regression/index.ts";
import { ciCheckSection } from "../../src/web/ci-check-section.ts";
import { fallenDimensionHref } from "../../src/web/drift-chart.ts";
import { propositionVerdictsHref } from "../../src/web/run-verdicts.ts";
import { demoFolder, lower, measurementOf } from "./measurement.ts";

const FIXTURES = new URL("../fixtures/ci-report/", import.meta.url);
const DOV_RUN = "0d0a1b2c-3d4e-4f50-8a61-72839405a6b7";

function regressedReport() {
  const folder = demoFolder();
  const m = measurementOf(folder);
  lower(m, "dov", "adherence", [2]);
  m.agents.find((a) => a.agent_id === "ines")!.persona_hash = "0123456789abcdef";
  return checkAgainstBaselines(m, folder, { threshold: 1, trials: 1 });
}

const links = (url = "https://dash.example.com/team/"): CiDashboardLinks => ({
  url,
  runs: new Map([["dov", DOV_RUN]]),
});
const runOf = (agent: string) => `/runs/run-of-${agent}`;

describe("without a dashboard URL", () => {
  // The fixtures were written by the code before --dashboard-url existed.
  it("the Markdown comment is byte-identical to the one before the option", () => {
    expect(renderCiMarkdown(regressedReport())).toBe(readFileSync(new URL("regressed.md", FIXTURES), "utf8"));
  });

  it("the HTML report's check is byte-identical to the one before the option", () => {
    expect(String(ciCheckSection(regressedReport(), runOf))).toBe(
      readFileSync(new URL("regressed-check.html", FIXTURES), "utf8"),
    );
  });
});

describe("with a dashboard URL, the Markdown comment", () => {
  const md = renderCiMarkdown(regressedReport(), links());
  const base = "https://dash.example.com/team";

  it("links each proposition that fell to its verdicts, the pages' own link made absolute", () => {
    const section = md.split("#### What fell")[1]!.split("####")[0]!;
    const fell = section.split("\n").filter((l) => l.startsWith("- "));
    expect(fell.length).toBeGreaterThan(0);
    for (const line of fell) {
      const [, id, url] = line.match(/^- \[`([^`]+)`\]\(([^)]+)\)/) ?? [];
      expect(url, line).toBe(`${base}${propositionVerdictsHref(DOV_RUN, "adherence", id!)}`);
    }
    expect(md).toContain(
      `[\`persona-traits\`](${base}/runs/${DOV_RUN}?p=adherence%2Fpersona-traits#p-adherence-persona-traits)`,
    );
  });

  it("links the regressed dimension, in the table and in what fell, as the chart's ring does", () => {
    const href = `${base}${fallenDimensionHref(DOV_RUN, "adherence")}`;
    expect(md).toContain(`| [❌ 7.54 → 5.54 (−2.00)](${href}) |`);
    expect(md).toContain(`**Dov Marchetti · [adherence](${href})**`);
    // A dimension that did not regress is not a link.
    expect(md).not.toContain(`${fallenDimensionHref(DOV_RUN, "consistency")}`);
  });

  it("shows the agent's run by its short id, linked to its page", () => {
    expect(md).toContain(`| Dov Marchetti · run [\`0d0a1b2c\`](${base}/runs/${DOV_RUN}) |`);
    // An agent without a run in the check (none given here) and channels keep their plain name.
    expect(md).toMatch(/\| Priya Ramaswamy-Holt \| /);
  });

  it("a base URL without its trailing slash gives the same links", () => {
    expect(renderCiMarkdown(regressedReport(), links("https://dash.example.com/team"))).toBe(md);
  });

  it("nothing in a link can end it or break the table", () => {
    const odd = renderCiMarkdown(regressedReport(), links("https://dash.example.com/a(b)|c/"));
    expect(odd).toContain("https://dash.example.com/a%28b%29%7Cc/runs/");
    expect(dashboardLink("https://x.example/", "/runs/1")).toBe("https://x.example/runs/1");
  });
});

describe("with a dashboard URL, the HTML report's check", () => {
  const section = String(ciCheckSection(regressedReport(), runOf, links()));
  const base = "https://dash.example.com/team";

  it("links the regressed dimension and each fallen proposition to the run's verdicts", () => {
    const row = section.match(/<tr class="regression">[\s\S]*?<\/tr>/)?.[0] ?? "";
    expect(row).toContain(`<a href="${base}${fallenDimensionHref(DOV_RUN, "adherence")}">adherence</a>`);
    const hrefs = [...row.matchAll(/<li><a href="([^"]+)"><code>([^<]+)<\/code><\/a>/g)];
    expect(hrefs.length).toBeGreaterThan(0);
    for (const [, href, id] of hrefs)
      expect(href).toBe(
        `${base}${propositionVerdictsHref(DOV_RUN, "adherence", id!)}`.replaceAll("&", "&amp;"),
      );
  });

  it("shows the run's short id beside the agent, linked to its page", () => {
    expect(section).toContain(
      `<a href="/runs/run-of-dov">Dov Marchetti</a> <span class="run-id">run <a href="${base}/runs/${DOV_RUN}">0d0a1b2c</a></span>`,
    );
  });
});
