// Every dashboard page in real Chromium at a desktop's and a phone's width (1,280 and 390 px), over the demo
// store: no horizontal page scroll (wide tables scroll in their own box), the dark header as wide as the
// window with every link on it, and the drift chart's labels readable (≥ 11 px) and apart at both widths.
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoStore, DEMO_BASELINES, REGRESSING_AGENT } from "../../scripts/demo-store.ts";
import { readBaselineFolder } from "../../src/regression/index.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { listSessionAnalyses } from "../../src/sessions/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, skipBrowserTests } from "./chromium.ts";

const TOKEN = "responsive-test-token-0123456789abcdef0123";
const WIDTHS = [1280, 390] as const;
const dir = useTempDir("dramaturg-responsive-");

let store: Store;
let server: RunningServer;
let guarded: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: BrowserContext;
let paths: string[];

beforeAll(async () => {
  if (skipBrowserTests) return;
  chromium = await launchChromium(join(dir(), "chromium"));
  browser = chromium.context;
  await buildDemoStore(join(dir(), "store"));
  store = await openStore(join(dir(), "store"));
  server = await startServer({ db: store, port: 0, baselines: readBaselineFolder(DEMO_BASELINES) });
  guarded = await startServer({ db: store, port: 0, token: TOKEN });
  const [run] = await store.runs.list({ agent: REGRESSING_AGENT, limit: 1 });
  const [session] = await listSessionAnalyses({ store, limit: 1 });
  const [conversation] = await store.evaluations.list({ kind: "conversation", limit: 1 });
  paths = [
    "/agents",
    `/agents/${REGRESSING_AGENT}`,
    "/runs",
    `/runs/${run!.id}`,
    "/sessions",
    `/sessions/${session!.id}`,
    "/conversations",
    `/conversations/${conversation!.id}`,
    "/corrections",
  ];
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await guarded?.close();
  await store?.close();
});

async function open(url: string, width: number): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewportSize({ width, height: 800 });
  const response = await page.goto(url);
  expect(response?.status(), url).toBe(200);
  return page;
}

/** What the layout checks read from a page (a string run in the page: this project's types have no DOM). */
interface Layout {
  viewport: number;
  scrollWidth: number;
  header: { left: number; right: number; top: number; bottom: number; background: string };
  /** Links of the header that fall outside its dark box (white on the light page). */
  linksOutside: string[];
  /** Tables wider than their box: they scroll inside it. */
  scrollingTables: number;
}

const LAYOUT = `(() => {
  const header = document.querySelector("header.top");
  const box = header.getBoundingClientRect();
  const linksOutside = [...header.querySelectorAll("a")].filter((a) => {
    const r = a.getBoundingClientRect();
    return r.left < box.left || r.right > box.right || r.top < box.top || r.bottom > box.bottom;
  }).map((a) => a.textContent);
  return {
    viewport: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    header: { left: box.left, right: box.right, top: box.top, bottom: box.bottom,
      background: getComputedStyle(header).backgroundColor },
    linksOutside,
    scrollingTables: [...document.querySelectorAll("table")].filter((t) => t.scrollWidth > t.clientWidth).length,
  };
})()`;

function expectUsable(layout: Layout, where: string) {
  expect(layout.scrollWidth, `${where}: page width`).toBeLessThanOrEqual(layout.viewport);
  expect(layout.header.left, `${where}: header`).toBe(0);
  expect(layout.header.right, `${where}: header`).toBe(layout.viewport);
  expect(layout.header.background, `${where}: header`).toBe("rgb(29, 35, 48)");
  expect(layout.linksOutside, `${where}: header links`).toEqual([]);
}

describe.skipIf(skipBrowserTests)(browserSuite("every page at 1,280 and 390 px"), () => {
  it.each(WIDTHS)("at %i px no page scrolls sideways and the header spans the window", async (width) => {
    let scrolling = 0;
    for (const path of paths) {
      const page = await open(`${server.url}${path}`, width);
      const layout = (await page.evaluate(LAYOUT)) as Layout;
      expectUsable(layout, `${path} at ${width} px`);
      scrolling += layout.scrollingTables;
      await page.close();
    }
    // At a phone's width some tables are wider than the screen: they scroll in their own box instead.
    if (width === 390) expect(scrolling).toBeGreaterThan(0);
  });

  it("at 1,280 px every list's table fits the page, no column cut off behind a scroll", async () => {
    for (const path of ["/agents", "/runs", "/sessions", "/conversations"]) {
      const page = await open(`${server.url}${path}`, 1280);
      const layout = (await page.evaluate(LAYOUT)) as Layout;
      expect(layout.scrollingTables, `${path} at 1280 px`).toBe(0);
      await page.close();
    }
  });

  it.each(WIDTHS)(
    "at %i px a conversation's composite formula is one readable line above its table",
    async (width) => {
      const page = await open(`${server.url}${paths.find((p) => p.startsWith("/conversations/"))}`, width);
      const formula = page.locator("section.pass p.formula").first();
      await expect(formula.textContent()).resolves.toBe(
        "Composite = (timing + 2·task + 4·assertions) / 7 − penalty",
      );
      const box = await formula.boundingBox();
      // One line of body text (≈ 24 px), not the four a caption squeezed to its table's width took.
      expect(box!.height).toBeLessThan(width === 390 ? 60 : 30);
      await page.close();
    },
  );

  it.each(WIDTHS)("at %i px the sign-in page of a server with a token is styled and fits", async (width) => {
    const page = await browser.newPage();
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${guarded.url}/login`);
    const layout = (await page.evaluate(LAYOUT)) as Layout;
    expectUsable(layout, `/login at ${width} px`);
    await expect(page.locator('input[name="token"]').count()).resolves.toBe(1);
    await page.close();
  });

  // The two widths, and either side of each of the stylesheet's steps of the chart's font size.
  it.each([...WIDTHS, 1001, 1000, 761, 760, 481, 480, 360])(
    "at %i px the drift chart's labels are at least 11 px and never overlap",
    async (width) => {
      const page = await open(`${server.url}/agents/${REGRESSING_AGENT}`, width);
      const chart = (await page.evaluate(`(() => {
      const svg = document.querySelector("svg.drift-chart");
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const texts = [...svg.querySelectorAll("text.axis, text.axis-title")];
      const labels = [...svg.querySelectorAll("text.tick-label")].map((t) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent, left: r.left, right: r.right };
      });
      return {
        smallest: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)),
        labels,
        titles: [...svg.querySelectorAll("text.axis-title")].map((t) => t.textContent),
      };
    })()`)) as {
        smallest: number;
        labels: { text: string; left: number; right: number }[];
        titles: string[];
      };
      expect(chart.smallest).toBeGreaterThanOrEqual(11);
      expect(chart.labels.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < chart.labels.length; i++)
        expect(chart.labels[i]!.left, chart.labels.map((l) => l.text).join(" ")).toBeGreaterThan(
          chart.labels[i - 1]!.right,
        );
      expect(chart.titles).toContain("score (0–9)");
      await page.close();
    },
  );
});

describe.skipIf(skipBrowserTests)(browserSuite("the drift chart's regression"), () => {
  it("is ringed and listed under the chart with links to its run and to its comparison with the run before", async () => {
    const page = await open(`${server.url}/agents/${REGRESSING_AGENT}`, 390);
    const [latest, previous] = await store.runs.list({
      agent: REGRESSING_AGENT,
      status: "completed",
      limit: 2,
    });
    await expect(page.locator("svg.drift-chart circle.regression").count()).resolves.toBe(1);
    const item = page.locator("figure.drift ul.regression-links li");
    await expect(item.count()).resolves.toBe(1);
    await expect(item.locator("a").first().getAttribute("href")).resolves.toBe(
      `/runs/${latest!.id}?dimension=adherence#verdicts-adherence`,
    );
    await expect(item.locator("a.compare").getAttribute("href")).resolves.toBe(
      `/compare?a=${previous!.id}&b=${latest!.id}`,
    );
    await expect(item.textContent()).resolves.toMatch(/adherence \d\.\d — compare with previous run$/);
    // The ring itself opens the run at the dimension that fell: its verdicts, lowest first, in view.
    await page.locator("svg.drift-chart a:has(circle.regression)").click();
    await page.waitForURL(`**/runs/${latest!.id}?dimension=adherence#verdicts-adherence`);
    await expect(page.locator("#verdicts-adherence h3").isVisible()).resolves.toBe(true);
    const top = await page.locator("#verdicts-adherence").evaluate((e) => e.getBoundingClientRect().top);
    expect(top).toBeLessThan(200);
    await page.close();
  });
});
