// A persona run page at real size in Chromium (issue 48), on the demo store and on a generated run of 1,000
// messages, at 1,280 and 390 px: the page arrives gzipped and under 500 KB; opening "What the judge read" loads
// the window in place with the judged message highlighted inside the viewport, the page not scrolled; at 390 px
// the verdicts are cards and no verdict table scrolls sideways.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoStore, REGRESSING_AGENT } from "../../scripts/demo-store.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";
import { buildLargeRunStore } from "./large-run-store.ts";

const dir = useTempDir("dramaturg-judge-window-browser-");
let chromium: Awaited<ReturnType<typeof launchChromium>>;
const stores: Store[] = [];
const servers: RunningServer[] = [];
/** The run page of each store: the demo's regressing agent's latest run, and the generated 1,000-message run. */
const pages: Record<"demo" | "large", string> = { demo: "", large: "" };
/** Script errors and CSP violations on any page of the file (the window's fetch must pass the CSP). */
const incidents: string[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  chromium = await launchChromium(join(dir(), "chromium"));
  await buildDemoStore(join(dir(), "demo"));
  const demo = await openStore(join(dir(), "demo"));
  const large = await openStore("memory://");
  stores.push(demo, large);
  const { runId } = await buildLargeRunStore(large, join(dir(), "large"));
  const [latest] = await demo.runs.list({ agent: REGRESSING_AGENT, limit: 1 });
  for (const store of stores) servers.push(await startServer({ db: store, port: 0 }));
  pages.demo = `${servers[0]!.url}/runs/${latest!.id}`;
  pages.large = `${servers[1]!.url}/runs/${runId}`;
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  for (const server of servers) await server.close();
  for (const store of stores) await store.close();
});

const open = (url: string, width: number): Promise<Page> =>
  openWatched(chromium.context, url, { width, incidents });

describe.skipIf(skipBrowserTests)(browserSuite("a run page at real size in Chromium"), () => {
  for (const store of ["demo", "large"] as const)
    for (const width of [1280, 390]) {
      it(`${store} store at ${width} px: the run page arrives gzipped, under 500 KB, and no verdict table scrolls sideways`, async () => {
        const page = await open(pages[store], width);
        const size = (await page.evaluate(
          `(() => { const [e] = performance.getEntriesByType("navigation"); return { decoded: e.decodedBodySize, encoded: e.encodedBodySize }; })()`,
        )) as { decoded: number; encoded: number };
        expect(size.decoded).toBeLessThan(500 * 1024);
        expect(size.encoded).toBeLessThan(size.decoded / 3);
        const overflow = (await page.evaluate(
          `({ page: document.documentElement.scrollWidth, tables: [...document.querySelectorAll("table.verdicts")].filter((t) => t.scrollWidth > t.clientWidth + 1).length })`,
        )) as { page: number; tables: number };
        expect(overflow.page).toBeLessThanOrEqual(width);
        if (width === 390) {
          expect(overflow.tables).toBe(0);
          // A card: the score comes first, above the message.
          const card = page.locator("table.verdicts tbody tr").first();
          const score = await card.locator("td.v-score").boundingBox();
          const message = await card.locator("td.v-message").boundingBox();
          expect(score!.y).toBeLessThan(message!.y);
        }
        await page.close();
      });

      it(`${store} store at ${width} px: "What the judge read" opens in place, the judged message highlighted in view, no scroll jump`, async () => {
        const page = await open(pages[store], width);
        const box = page.locator("details[data-window]").nth(2);
        await box.evaluate((e) => e.scrollIntoView({ block: "center" }));
        const before = (await page.evaluate("window.scrollY")) as number;
        await box.locator("summary").click();
        const judged = box.locator("p.window-judged");
        await judged.waitFor({ state: "visible" });
        expect(await page.evaluate("window.scrollY")).toBe(before);
        const rect = await judged.evaluate((e) => {
          const r = e.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
        });
        const view = page.viewportSize()!;
        expect(rect.top).toBeGreaterThanOrEqual(0);
        expect(rect.bottom).toBeLessThanOrEqual(view.height);
        expect(rect.left).toBeGreaterThanOrEqual(0);
        expect(rect.right).toBeLessThanOrEqual(view.width);
        // What came before, nearest first, and what came after, marked unseen (or said to be none).
        await expect(box.locator("ol.window-lines li").count()).resolves.toBeGreaterThan(0);
        await expect(box.locator("ol.window-after li").count()).resolves.toBeGreaterThan(0);
        // The no-script link is replaced by the window itself.
        await expect(box.getByText("Open the window the judge read").count()).resolves.toBe(0);
        await page.close();
        expect(incidents).toEqual([]);
      });
    }
});
