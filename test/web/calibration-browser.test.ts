// The calibration pages in real Chromium: reached from the navigation, the list, one calibration (its flagged
// proposition's message holds a script that must not run) and the run page's link, with no script error, no
// CSP refusal, and no sideways page scroll at a phone's width (390 px): wide tables scroll in their own box.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrate } from "../../src/calibration/index.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { ENSEMBLE_LABELS, evaluateEnsemble } from "../calibration/ensemble.ts";
import { useTempDir } from "../temp-dir.ts";
import { handMadeCalibration, storeCalibration } from "./calibration-store.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";

const dir = useTempDir("dramaturg-calibration-browser-");
let store: Store;
let server: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let runId: string;
let realId: string;
let handMadeId: string;
const incidents: string[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  store = await openStore("memory://");
  const evaluationId = await evaluateEnsemble(store);
  runId = (await store.runs.list({ evaluation: evaluationId, limit: 1 }))[0]!.id;
  realId = (
    await calibrate({
      store,
      labels: ENSEMBLE_LABELS,
      run: evaluationId,
      resamples: 50,
    })
  ).evaluation_id!;
  handMadeId = await storeCalibration(store, handMadeCalibration({ calibrated: evaluationId }));
  server = await startServer({ db: store, port: 0 });
  chromium = await launchChromium(join(dir(), "chromium"));
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await store?.close();
});

/** The page's scroll width and, per table, whether it is wider than its box (it then scrolls inside it). */
const measure = (page: Page) =>
  page.evaluate(`({
    scrollWidth: document.documentElement.scrollWidth,
    tables: [...document.querySelectorAll("main table")].map((t) => ({
      cls: t.className,
      scrolls: t.scrollWidth > t.clientWidth,
      right: t.getBoundingClientRect().right,
    })),
  })`) as Promise<{ scrollWidth: number; tables: { cls: string; scrolls: boolean; right: number }[] }>;

describe.skipIf(skipBrowserTests)(browserSuite("the calibration pages in Chromium"), () => {
  it("shows the list, a calibration and the run page's link at 390 px without errors or sideways scroll", async () => {
    const runPage = await openWatched(chromium.context, `${server.url}/runs/${runId}`, {
      width: 390,
      height: 800,
      incidents,
    });
    await Promise.all([
      runPage.waitForURL(`${server.url}/calibrations`),
      runPage.click('header nav a[href="/calibrations"]'),
    ]);
    await expect(runPage.locator("table.calibrations tbody tr").count()).resolves.toBe(2);
    expect((await measure(runPage)).scrollWidth).toBeLessThanOrEqual(390);
    await runPage.close();

    for (const width of [390, 1280]) {
      for (const path of [
        "/calibrations",
        `/calibrations/${handMadeId}`,
        `/calibrations/${realId}`,
        `/runs/${runId}`,
      ]) {
        const page = await openWatched(chromium.context, `${server.url}${path}`, {
          width,
          height: 800,
          incidents,
        });
        const { scrollWidth, tables } = await measure(page);
        expect(scrollWidth, `${path} at ${width}px`).toBeLessThanOrEqual(width);
        for (const t of tables)
          expect(t.right, `${path} table.${t.cls} at ${width}px`).toBeLessThanOrEqual(width);
        if (width === 390 && path === `/calibrations/${handMadeId}`) {
          // The agreement table has ten figure columns: on a phone it scrolls in its own box.
          expect(tables.find((t) => t.cls === "agreement")?.scrolls).toBe(true);
          // The flagged proposition's message is shown as text; its script did not run (no dialog incident).
          await expect(
            page.locator("table.disagreements p.message-text").first().textContent(),
          ).resolves.toBeTruthy();
          await expect(
            page.getByText("<script>alert('calibration')</script> I never rehearse.").count(),
          ).resolves.toBe(1);
          // The propositions' first link goes to the first flagged one's disagreements.
          await page.locator("table.calibration-propositions tbody tr a").first().click();
          await expect(page.evaluate("location.hash")).resolves.toBe("#flagged-1");
        }
        if (path === `/runs/${runId}`)
          await expect(
            page.locator(`p.calibration-links a[href="/calibrations/${realId}"]`).count(),
          ).resolves.toBe(1);
        await page.close();
      }
    }
    expect(incidents).toEqual([]);
  }, 90_000);
});
