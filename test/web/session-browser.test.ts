// A session as a trace in a real browser (headless Chromium), at 1,280 and 390 px: the waterfall's error bar
// red from the stylesheet, a tool result opened in full, no script error or CSP violation, and no horizontal
// page scroll at phone width.
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { analyzeSession } from "../../src/sessions/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";

const TRACE = "test/fixtures/web/session-trace.session.json";
const dir = useTempDir("dramaturg-session-browser-");

let store: Store;
let server: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: BrowserContext;
let sessionId: string;
const incidents: string[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  chromium = await launchChromium(join(dir(), "chromium"));
  browser = chromium.context;
  store = await openStore("memory://");
  await analyzeSession(TRACE, { judge: "none", store });
  sessionId = (await store.evaluations.list({ kind: "session", limit: 1 }))[0]!.id;
  server = await startServer({ db: store, port: 0 });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await store?.close();
});

async function open(path: string, width: number): Promise<Page> {
  return openWatched(browser, `${server.url}${path}`, { width, incidents });
}

describe.skipIf(skipBrowserTests)(browserSuite("a session's timeline in Chromium"), () => {
  it.each([1280, 390])(
    "at %i px it shows a tool result and an error, with no script error",
    async (width) => {
      const page = await open(`/sessions/${sessionId}`, width);
      await expect(page.locator("svg.waterfall").count()).resolves.toBe(3);
      // The failed call's bar: red, from the stylesheet (the CSP allows no inline style).
      const fill = await page.evaluate(
        "getComputedStyle(document.querySelector('svg.waterfall g.row.tool.error rect.bar')).fill",
      );
      expect(fill).toBe("rgb(196, 50, 10)");
      const failure = page.locator("li.step.with-findings .step-error").first();
      await expect(failure.isVisible()).resolves.toBe(true);
      await expect(failure.textContent()).resolves.toContain("payment gateway timeout after 800 ms");
      // A bar links to its row; the row's result opens in full.
      await page.click('svg.waterfall a[href$="-turn-0-1-2"]');
      expect(page.url()).toMatch(/#s1-turn-0-1-2$/);
      const result = page.locator("#s1-turn-0-1-2 pre.tool-result");
      await expect(result.isVisible()).resolves.toBe(false);
      await page.click("#s1-turn-0-1-2 details.tool-io summary");
      await expect(result.isVisible()).resolves.toBe(true);
      const text = (await result.textContent()) ?? "";
      expect(text).toContain('"sku": "BOOK-42"');
      expect(text).toContain("<img src=x onerror=alert(1)>");
      await expect(page.locator("main img, main script").count()).resolves.toBe(0);
      await page.close();
      expect(incidents).toEqual([]);
    },
  );

  it.each([`/sessions/SESSION`, "/sessions", "/sessions?failures=1&sort=findings&order=desc"])(
    "%s at 390 px does not scroll the page sideways",
    async (path) => {
      const page = await open(path.replace("SESSION", sessionId), 390);
      const width = await page.evaluate("document.documentElement.scrollWidth");
      expect(width).toBeLessThanOrEqual(390);
      await page.close();
      expect(incidents).toEqual([]);
    },
  );
});
