// The search box in real Chromium over the demo store (a PGlite folder: the full-text SQL), at a desktop's and
// a phone's width: typed into the header of any page, it lands on the results with the matched word marked,
// the page fits the window, and the injected markup of the demo's messages and personas stays text.
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoStore, INJECTION_AGENT } from "../../scripts/demo-store.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";

const dir = useTempDir("dramaturg-search-browser-");

let store: Store;
let server: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: BrowserContext;
/** Dialogs opened by any page: a script of a message ran. */
const dialogs: string[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  chromium = await launchChromium(join(dir(), "chromium"));
  browser = chromium.context;
  await buildDemoStore(join(dir(), "store"));
  store = await openStore(join(dir(), "store"));
  server = await startServer({ db: store, port: 0 });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await store?.close();
});

async function open(path: string, width: number): Promise<Page> {
  return openWatched(browser, `${server.url}${path}`, { width, height: 800, incidents: dialogs });
}

/** The page's width against the window's, and whether the search box sits inside the dark header. */
const FIT = `(() => {
  const header = document.querySelector("header.top").getBoundingClientRect();
  const box = document.querySelector("form.site-search").getBoundingClientRect();
  return {
    scrollWidth: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
    boxInHeader: box.left >= header.left && box.right <= header.right && box.top >= header.top && box.bottom <= header.bottom,
  };
})()`;

describe.skipIf(skipBrowserTests)(browserSuite("the search box in Chromium"), () => {
  it.each([1280, 390])("at %i px the header's box takes a query to the marked results", async (width) => {
    const page = await open("/agents", width);
    await page.fill("#site-search", "picture");
    await Promise.all([page.waitForURL(/\/search\?q=picture$/), page.press("#site-search", "Enter")]);
    await expect(page.locator("main mark").first().textContent()).resolves.toBe("picture");
    // The message's markup is text: no image element was made from it.
    await expect(page.locator("main .search-messages .snippet").first().textContent()).resolves.toBe(
      "Just a picture: <img src=x onerror=alert(1)>",
    );
    await expect(page.locator("main img").count()).resolves.toBe(0);
    const fit = (await page.evaluate(FIT)) as { scrollWidth: number; viewport: number; boxInHeader: boolean };
    expect(fit.scrollWidth).toBeLessThanOrEqual(fit.viewport);
    expect(fit.boxInHeader).toBe(true);
    await page.close();
  });

  it("finds the agent whose name carries markup, shown as text, and links its page", async () => {
    const page = await open(`/search?q=${INJECTION_AGENT}`, 390);
    const link = page.locator(`main .search-agents a[href="/agents/${INJECTION_AGENT}"]`);
    await expect(link.textContent()).resolves.toBe("Mallory <img src=x onerror=alert(1)>");
    await Promise.all([page.waitForURL(new RegExp(`/agents/${INJECTION_AGENT}$`)), link.click()]);
    await page.close();
    expect(dialogs).toEqual([]);
  });
});
