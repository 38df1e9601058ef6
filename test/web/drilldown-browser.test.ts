// The drill-down in real Chromium over the demo store, at a desktop's and a phone's width (1,280 and 390 px):
// from the regressing agent's drift chart, a ringed regression leads to the run (through the comparison when the
// chart links there), and the lowest proposition's first verdict shows its whole message — at most three
// clicks; the run and comparison pages never scroll the page sideways.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoStore, DEMO_BASELINES, REGRESSING_AGENT } from "../../scripts/demo-store.ts";
import { readBaselineFolder } from "../../src/regression/index.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";

const dir = useTempDir("dramaturg-drilldown-browser-");
let store: Store;
let server: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
/** Script errors and CSP violations on any page of the file. */
const incidents: string[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  chromium = await launchChromium(join(dir(), "chromium"));
  await buildDemoStore(join(dir(), "store"));
  store = await openStore(join(dir(), "store"));
  server = await startServer({ db: store, port: 0, baselines: readBaselineFolder(DEMO_BASELINES) });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await store?.close();
});

async function open(path: string, width: number): Promise<Page> {
  return openWatched(chromium.context, `${server.url}${path}`, { width, incidents });
}

/** The page's width as laid out: wider than the window means a sideways scroll of the whole page. */
const pageWidth = (page: Page) => page.evaluate("document.documentElement.scrollWidth") as Promise<number>;

describe.skipIf(skipBrowserTests)(browserSuite("the drill-down in Chromium"), () => {
  for (const width of [1280, 390]) {
    it(`at ${width} px, a ringed regression leads to the lowest verdict's whole message in at most three clicks`, async () => {
      const page = await open(`/agents/${REGRESSING_AGENT}`, width);
      let clicks = 0;
      const ring = page.locator("a:has(circle.regression)").last();
      await expect(ring.count()).resolves.toBe(1);
      await Promise.all([page.waitForURL(/\/(runs|compare)/), ring.click()]);
      clicks++;
      if (new URL(page.url()).pathname === "/compare") {
        // The chart links a regression to its comparison: the regressed run is B.
        const b = page.locator("dl.facts dd").nth(1).locator("a").first();
        await Promise.all([page.waitForURL(/\/runs\//), b.click()]);
        clicks++;
      }
      expect(new URL(page.url()).pathname).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);

      const lowest = page.locator("section.verdicts section.proposition").first();
      const scores = await page
        .locator("section.verdicts")
        .first()
        .locator("p.proposition-facts strong")
        .allTextContents();
      expect(scores.map(Number)).toEqual(scores.map(Number).sort((a, b) => a - b));
      const firstVerdict = lowest.locator("tbody tr").first();
      const message = firstVerdict.locator("td").nth(1);
      const details = message.locator("details.message");
      if ((await details.count()) > 0) {
        const full = firstVerdict.locator("details.message > p.message-text");
        await expect(full.isVisible()).resolves.toBe(false);
        await details.locator("summary").click();
        clicks++;
        await expect(full.isVisible()).resolves.toBe(true);
      } else {
        await expect(message.locator("p.message-text").isVisible()).resolves.toBe(true);
      }
      expect(clicks).toBeLessThanOrEqual(3);
      await page.close();
    });

    it(`at ${width} px, a long message opens in full from its summary, and the comparison fits the page`, async () => {
      const [run, previous] = await store.runs.list({ agent: REGRESSING_AGENT, limit: 2 });
      const page = await open(`/runs/${run!.id}`, width);
      const details = page.locator("details.message").first();
      const full = details.locator("p.message-text");
      const text = (await full.textContent())!;
      expect(text.length).toBeGreaterThan(160);
      await expect(full.isVisible()).resolves.toBe(false);
      await details.locator("summary").click();
      await expect(full.isVisible()).resolves.toBe(true);
      await expect(full.innerText()).resolves.toBe(text);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await page.close();

      const compare = await open(`/compare?a=${previous!.id}&b=${run!.id}`, width);
      await expect(compare.locator("table.changed-verdicts tbody tr").count()).resolves.toBeGreaterThan(0);
      expect(await pageWidth(compare)).toBeLessThanOrEqual(width);
      // B, the later run, is one click away (the way from a chart that links its regressions here).
      await Promise.all([
        compare.waitForURL(/\/runs\//),
        compare.locator("dl.facts dd").nth(1).locator("a").first().click(),
      ]);
      expect(new URL(compare.url()).pathname).toBe(`/runs/${run!.id}`);
      await compare.close();
      expect(incidents).toEqual([]);
    });
  }
});
