// Issue 48 at real size, in Chromium, on the demo store and on a generated 1,000-message store, at 390 and
// 1,280 px: the CI report's fallen proposition and regressed dimension open the run's verdicts on the dashboard
// (item 4); the drift chart's points and rings are tap targets of 24 px or more (item 7); the CI report's
// regression row reads on a phone without the page scrolling sideways (item 7); and the static report, opened
// from disk with every request blocked, filters and sorts in place, colours its regression badge and never says
// "no baseline run" of a run that is the baseline (item 9).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoStore, DEMO_BASELINES, REGRESSING_AGENT } from "../../scripts/demo-store.ts";
import { CI_REPORT_FORMAT, type CiReport, readBaselineFolder } from "../../src/regression/index.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { fallenDimensionHref } from "../../src/web/drift-chart.ts";
import { staticReport } from "../../src/web/index.ts";
import { propositionVerdictsHref } from "../../src/web/run-verdicts.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, skipBrowserTests } from "./chromium.ts";
import { buildLargeRunStore, FOCUS_AGENT } from "./large-run-store.ts";

/** An element as the page's callbacks below read it (they run in Chromium; this project's types have no DOM). */
interface PageElement {
  className: string;
  innerText: string;
  offsetParent: unknown;
  closest(selector: string): PageElement | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  getBoundingClientRect(): { left: number; right: number; top: number; width: number; height: number };
}
declare const document: {
  documentElement: { scrollWidth: number };
  querySelector(selector: string): PageElement | null;
  elementFromPoint(x: number, y: number): PageElement | null;
};
declare const window: { scrollY: number; innerWidth: number; scrollBy(x: number, y: number): void };
declare const location: { hash: string };
declare function getComputedStyle(element: unknown): {
  display: string;
  color: string;
  backgroundColor: string;
};

const WIDTHS = [390, 1280] as const;
const dir = useTempDir("dramaturg-real-size-");

interface Case {
  name: string;
  store: Store;
  server: RunningServer;
  agent: string;
  /** The static report of a persona check with a regression of the agent's latest run. */
  ciReport: string;
  /** The static report of the agent's baseline run, alone. */
  baselineReport: string;
  /** The run the check reports, and a proposition of it that "fell" there. */
  runId: string;
  fallen: string;
}

let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: BrowserContext;
const cases: Case[] = [];
/** Every request a static report made that was not for its own file (all blocked). */
const blocked: string[] = [];

/** A persona check in which the agent's adherence regressed, two of its propositions falling. */
function regressedCheck(agentId: string, name: string, evaluationId: string, fallen: string): CiReport {
  const dimension = (status: "regression" | "ok", baseline: number, now: number) => ({
    baseline,
    now,
    delta: now - baseline,
    trials: [now],
    baseline_trials: [baseline],
    status,
  });
  return {
    format: CI_REPORT_FORMAT,
    passed: false,
    threshold: 1,
    trials: 1,
    rule: "a regression is a 0–9 dimension more than 1 below its baseline",
    judge: { provider: "fixtures", model: "hand-written", mode: "individual", prompt_version: "v1" },
    evaluation_id: evaluationId,
    agents: [
      {
        id: agentId,
        name,
        kind: "agent",
        file: `baselines/${agentId}.json`,
        stale: [],
        dimensions: [
          {
            dimension: "adherence",
            ...dimension("regression", 8.9, 5.2),
            propositions: [
              {
                id: "persona-traits-and-voice-of-the-character",
                baseline: 8.8,
                now: 4.1,
                delta: -4.7,
                fell: true,
                recommendations:
                  "Let the persona's traits, values and beliefs decide the content of the reply, not only its wording.",
              },
              { id: fallen, baseline: 9, now: 6.2, delta: -2.8, fell: true },
            ],
          },
          { dimension: "fluency", ...dimension("ok", 7, 7.1), propositions: [] },
        ],
      },
    ],
    channels: [],
    notes: [],
    counts: { regressions: 1, stale: 0, noise: 0, no_score: 0, compared: 2 },
  };
}

async function addCase(name: string, store: Store, agent: string, baselines?: string): Promise<void> {
  const runs = await store.runs.list({ agent, status: "completed", limit: 200 });
  const latest = runs[0]!;
  const oldest = runs.at(-1)!;
  const server = await startServer({
    db: store,
    port: 0,
    ...(baselines ? { baselines: readBaselineFolder(baselines) } : {}),
  });
  // A real proposition of the run, for the report's link to its verdicts on the dashboard to lead somewhere.
  const [judged] = await store.scores.forEvaluation(latest.evaluation_id!, {
    run: latest.id,
    dimension: "adherence",
  });
  const fallen = judged!.proposition_id;
  const ciReport = join(dir(), `${name}-ci.html`);
  writeFileSync(
    ciReport,
    await staticReport({
      store,
      evaluationIds: [latest.evaluation_id!],
      title: "Dramaturg persona check",
      ciReport: regressedCheck(agent, agent, latest.evaluation_id!, fallen),
      dashboardLinks: { url: server.url, runs: new Map([[agent, latest.id]]) },
      ...(baselines ? { baselines: readBaselineFolder(baselines) } : {}),
    }),
  );
  await store.runs.markBaseline(oldest.id);
  const baselineReport = join(dir(), `${name}-baseline.html`);
  writeFileSync(baselineReport, await staticReport({ store, evaluationIds: [oldest.evaluation_id!] }));
  cases.push({
    name,
    store,
    server,
    agent,
    ciReport: pathToFileURL(ciReport).href,
    baselineReport: pathToFileURL(baselineReport).href,
    runId: latest.id,
    fallen,
  });
}

beforeAll(async () => {
  if (skipBrowserTests) return;
  chromium = await launchChromium(join(dir(), "chromium"));
  browser = chromium.context;
  await browser.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("http://127.0.0.1:")) return route.continue();
    blocked.push(url);
    return route.abort();
  });
  await buildDemoStore(join(dir(), "demo"));
  await addCase("demo", await openStore(join(dir(), "demo")), REGRESSING_AGENT, DEMO_BASELINES);
  const large = await openStore("memory://");
  await buildLargeRunStore(large, join(dir(), "large"));
  // A second run of the same messages, so that the agent's chart has two points and its latest run a previous one.
  await buildLargeRunStore(large, join(dir(), "large-again"));
  await addCase("1,000-message", large, FOCUS_AGENT);
}, 240_000);

afterAll(async () => {
  await chromium?.close();
  for (const c of cases) {
    await c.server.close();
    await c.store.close();
  }
});

/** A page at `width` that records what must never happen: a refused script or style, an error, a dialog. */
async function open(url: string, width: number, incidents: string[]): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  await page.setViewportSize({ width, height: 800 });
  page.on("console", (m) => {
    if (m.type() === "error" || /Content Security Policy|Refused to/i.test(m.text()))
      incidents.push(m.text());
  });
  page.on("pageerror", (e) => incidents.push(e.message));
  page.on("dialog", async (d) => {
    incidents.push(`dialog: ${d.message()}`);
    await d.dismiss();
  });
  await page.goto(url);
  return page;
}

describe.skipIf(skipBrowserTests)(browserSuite("issue 48 at real size, in Chromium"), () => {
  for (const store of ["demo", "1,000-message"])
    for (const width of WIDTHS) {
      const at = () => cases.find((c) => c.name === store)!;

      it(`${store} store, ${width} px: every point and ring of the drift chart is a link at least 24 px square`, async () => {
        const incidents: string[] = [];
        const page = await open(`${at().server.url}/agents/${at().agent}`, width, incidents);
        const targets = await page.$$eval("svg.drift-chart a", (links) =>
          links.map((a) => {
            const box = a.getBoundingClientRect();
            const ring = a.querySelector("circle.regression") !== null;
            const x = box.left + box.width / 2;
            const y = box.top + box.height / 2;
            const hit = document.elementFromPoint(x, y);
            return {
              width: box.width,
              height: box.height,
              ring,
              label: a.getAttribute("aria-label") ?? "",
              href: a.getAttribute("href") ?? "",
              // What a tap at the target's centre reaches: this link, not a neighbour drawn over it.
              reached: hit?.closest("a") === a,
            };
          }),
        );
        expect(targets.length).toBeGreaterThanOrEqual(2);
        for (const t of targets) {
          expect(t.width, t.label).toBeGreaterThanOrEqual(24);
          expect(t.height, t.label).toBeGreaterThanOrEqual(24);
          expect(t.label).toMatch(/^\w+ \d\.\d on \d{4}-\d\d-\d\d \d\d:\d\d/);
          expect(t.href).toMatch(/^\/runs\//);
        }
        const rings = targets.filter((t) => t.ring);
        if (store === "demo") {
          expect(rings).toHaveLength(1);
          expect(rings[0]!.reached).toBe(true);
          expect(rings[0]!.href).toMatch(/\?dimension=\w+#verdicts-\w+$/);
          expect(rings[0]!.label).toMatch(/regression/);
        }
        // The chart's points are tapped, not the page scrolled sideways to reach them.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(incidents).toEqual([]);
        await page.close();
      });

      it(`${store} store, ${width} px: the CI report's fallen proposition and regressed dimension open their verdicts on the dashboard`, async () => {
        const incidents: string[] = [];
        const page = await open(at().ciReport, width, incidents);
        const { server, runId, fallen } = at();
        const row = page.locator(".ci-check tr.regression");
        await expect(row.locator(".run-id").innerText()).resolves.toBe(`run ${runId.slice(0, 8)}`);
        await row.locator("ul.fell a", { hasText: fallen }).click();
        await page.waitForURL(`${server.url}${propositionVerdictsHref(runId, "adherence", fallen)}`);
        const table = page.locator(`[id="p-adherence-${fallen}"]`);
        await expect(table.locator("table.verdicts tbody tr").count()).resolves.toBeGreaterThan(0);
        await expect(table.isVisible()).resolves.toBe(true);
        const top = (await table.boundingBox())!.y;
        expect(top).toBeGreaterThan(-1);
        expect(top).toBeLessThan(800);
        await page.goBack();
        await row.locator("td a", { hasText: /^adherence$/ }).click();
        await page.waitForURL(`${server.url}${fallenDimensionHref(runId, "adherence")}`);
        const verdicts = (await page.locator("#verdicts-adherence").boundingBox())!.y;
        expect(verdicts).toBeGreaterThan(-1);
        expect(verdicts).toBeLessThan(800);
        expect(incidents).toEqual([]);
        await page.close();
      });

      it(`${store} store, ${width} px: the CI report's regression row reads without the page scrolling sideways`, async () => {
        const incidents: string[] = [];
        const page = await open(at().ciReport, width, incidents);
        const layout = await page.evaluate(() => {
          const row = document.querySelector(".ci-check tr.regression")!;
          const cells = [...row.querySelectorAll("td")].map((td) => {
            const box = td.getBoundingClientRect();
            return { left: box.left, right: box.right, width: box.width, text: td.innerText.trim() };
          });
          return {
            scrollWidth: document.documentElement.scrollWidth,
            viewport: window.innerWidth,
            display: getComputedStyle(row).display,
            text: row.innerText,
            cells,
          };
        });
        expect(layout.scrollWidth).toBeLessThanOrEqual(layout.viewport);
        for (const cell of layout.cells) {
          expect(cell.width, cell.text).toBeGreaterThan(0);
          expect(cell.left, cell.text).toBeGreaterThanOrEqual(0);
          expect(cell.right, cell.text).toBeLessThanOrEqual(layout.viewport);
        }
        expect(layout.text).toContain(at().agent);
        expect(layout.text).toContain("adherence");
        expect(layout.text).toContain("persona-traits-and-voice-of-the-character");
        expect(layout.text).toContain(`run ${at().runId.slice(0, 8)}`);
        expect(layout.text).toMatch(/regression/);
        // On a phone the row is a card, its cells wrapping; on a desktop a table row.
        expect(layout.display).toBe(width === 390 ? "flex" : "table-row");
        expect(incidents).toEqual([]);
        await page.close();
      });

      it(`${store} store, ${width} px: the static report's "Failures only" filters in place, offline`, async () => {
        const incidents: string[] = [];
        const page = await open(at().ciReport, width, incidents);
        const section = page.locator("section.report-page").first();
        const failures = section.locator("p.view-switch a", { hasText: "Failures only" });
        await failures.scrollIntoViewIfNeeded();
        await page.evaluate(() => window.scrollBy(0, -200));
        const rows = section.locator("table.verdicts tbody tr");
        const total = await rows.count();
        const failing = await section.locator("table.verdicts tbody tr.failing").count();
        expect(total).toBeGreaterThan(0);
        expect(failing).toBeGreaterThan(0);
        if (store === "demo") expect(failing).toBeLessThan(total);
        const before = await page.evaluate(() => window.scrollY);
        await failures.click();
        expect(await page.evaluate(() => window.scrollY)).toBe(before);
        const visible = await rows.evaluateAll((trs) =>
          trs.filter((tr) => (tr as unknown as PageElement).offsetParent !== null).map((tr) => tr.className),
        );
        expect(visible).toHaveLength(failing);
        for (const c of visible) expect(c).toMatch(/\bfailing\b/);
        expect(await failures.getAttribute("aria-current")).toBe("true");
        await section.locator("p.view-switch a", { hasText: "All" }).click();
        expect(
          await rows.evaluateAll(
            (trs) => trs.filter((tr) => (tr as unknown as PageElement).offsetParent !== null).length,
          ),
        ).toBe(total);
        expect(await page.evaluate(() => window.scrollY)).toBe(before);
        expect(incidents).toEqual([]);
        expect(blocked).toEqual([]);
        await page.close();
      });

      it(`${store} store, ${width} px: a sort link of the static report sorts its table in place`, async () => {
        const incidents: string[] = [];
        const page = await open(at().ciReport, width, incidents);
        const table = page.locator("section.report-page table.verdicts").first();
        const trial = table.locator("th a", { hasText: "Trial" });
        const score = table.locator("th a", { hasText: "Score" });
        await score.scrollIntoViewIfNeeded();
        const scores = () =>
          table
            .locator("tbody td.v-score")
            .evaluateAll((tds) => tds.map((td) => Number.parseFloat(td.textContent ?? "")));
        const ascending = await scores();
        expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
        const before = await page.evaluate(() => window.scrollY);
        await score.click();
        expect(await page.evaluate(() => window.scrollY)).toBe(before);
        expect(await scores()).toEqual([...ascending].sort((a, b) => b - a));
        expect(await score.textContent()).toMatch(/Score ▼$/);
        expect(await score.locator("xpath=..").getAttribute("aria-sort")).toBe("descending");
        // Another column's link takes the sort over, and the score's arrow goes.
        await trial.click();
        expect(await score.textContent()).toBe("Score");
        expect(await trial.locator("xpath=..").getAttribute("aria-sort")).toBe("ascending");
        expect(await page.evaluate(() => window.scrollY)).toBe(before);
        expect(incidents).toEqual([]);
        await page.close();
      });

      it(`${store} store, ${width} px: without script the report is whole and its controls stay at their place`, async () => {
        const incidents: string[] = [];
        const page = await browser.newPage();
        await page.setViewportSize({ width, height: 800 });
        const cdp = await browser.newCDPSession(page);
        await cdp.send("Emulation.setScriptExecutionDisabled", { value: true });
        page.on("console", (m) => {
          if (/Content Security Policy|Refused to/i.test(m.text())) incidents.push(m.text());
        });
        await page.goto(at().ciReport);
        const section = page.locator("section.report-page").first();
        const rows = section.locator("table.verdicts tbody tr");
        expect(
          await rows.evaluateAll(
            (trs) => trs.filter((tr) => (tr as unknown as PageElement).offsetParent !== null).length,
          ),
        ).toBe(await rows.count());
        // A control leads to its own place: the switch, a sort link to its table; never to the page's top.
        const failures = section.locator("p.view-switch a", { hasText: "Failures only" });
        await failures.click();
        const hash = await page.evaluate(() => location.hash);
        expect(hash).toMatch(/-view-switch$/);
        const box = await failures.boundingBox();
        expect(box!.y).toBeGreaterThan(-1); // at the top of the view, to a subpixel
        expect(box!.y).toBeLessThan(800);
        const sortHref = await section.locator("table.verdicts th a").first().getAttribute("href");
        expect(sortHref).toMatch(/^#page-runs-[0-9a-f-]+-p-[a-z_]+-[\w.:-]+$/);
        expect(await page.locator(`[id="${sortHref!.slice(1)}"] table.verdicts`).count()).toBe(1);
        expect(incidents).toEqual([]);
        await page.close();
      });

      it(`${store} store, ${width} px: the regression badge has its colour, and a baseline run is not said to lack one`, async () => {
        const incidents: string[] = [];
        const page = await open(at().ciReport, width, incidents);
        const badge = await page
          .locator(".ci-check .status.regression")
          .first()
          .evaluate((span) => {
            const style = getComputedStyle(span);
            return { color: style.color, background: style.backgroundColor };
          });
        expect(badge.color).toBe("rgb(196, 50, 10)"); // --bad
        expect(badge.background).toBe("rgb(254, 228, 226)");
        const ok = await page
          .locator(".ci-check .status.ok")
          .first()
          .evaluate((s) => getComputedStyle(s).color);
        expect(ok).not.toBe(badge.color);
        // Under the check's table of baselines, no run page says its agent has no baseline.
        expect(await page.locator("body").innerText()).not.toMatch(/no baseline run/);
        await page.close();
        // The report of the baseline run itself: its page says it is the baseline (the other agents' runs of
        // the same evaluation, not baselines, may well have none).
        const baseline = await open(at().baselineReport, width, incidents);
        const own = baseline.locator("section.report-page", {
          hasText: `This run is ${at().agent}'s baseline`,
        });
        expect(await own.count()).toBe(1);
        expect(await own.innerText()).not.toMatch(/no baseline run/);
        expect(incidents).toEqual([]);
        await baseline.close();
      });
    }
});
