// The labelling page in real Chromium, on a server started with a token: sign in, name the rater, label three
// items by clicking, export the labels, and check with calibrate that what it reads is what was clicked — with
// no script error, no CSP refusal, and no sideways scroll at a phone's width (390 px).
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrateStoredRun, labelItems, readLabels } from "../../src/calibration/index.ts";
import { parseStoredPersonaInput } from "../../src/personas/index.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { evaluateEnsemble } from "../calibration/ensemble.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";

const _ENSEMBLE = new URL("../../examples/ensemble/", import.meta.url).pathname;
const TOKEN = "labelling-browser-token-0123456789abcdef";
const dir = useTempDir("dramaturg-labelling-browser-");
let store: Store;
let server: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let evaluationId: string;
const incidents: string[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  store = await openStore("memory://");
  evaluationId = await evaluateEnsemble(store);
  server = await startServer({ db: store, port: 0, token: TOKEN });
  chromium = await launchChromium(join(dir(), "chromium"));
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await store?.close();
});

const pageWidth = (page: Page) => page.evaluate("document.documentElement.scrollWidth") as Promise<number>;
const shownKey = (page: Page) => page.locator('input[name="item"]').getAttribute("value");

describe.skipIf(skipBrowserTests)(browserSuite("the labelling page in Chromium"), () => {
  it("signs in, labels three items by clicking, and exports what calibrate reads back", async () => {
    const labelPath = `/evaluations/${evaluationId}/label`;
    const page = await openWatched(
      chromium.context,
      `${server.url}/login?next=${encodeURIComponent(labelPath)}`,
      {
        width: 390,
        height: 800,
        incidents,
      },
    );
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${server.url}${labelPath}`), page.click('button[type="submit"]')]);
    await expect(page.locator("h1").textContent()).resolves.toBe("Who is labelling?");
    await page.fill('input[name="rater"]', "Ana B");
    // Posted to …/label/rater, then back at the page (its URL unchanged): the rater's name shows it is done.
    await page.click("text=Start labelling");
    await expect(page.locator(".labelling-rater strong").textContent()).resolves.toBe("Ana B");
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);

    const clicked: { key: string; score: number; note: string }[] = [];
    for (const [score, note] of [
      [2, "Too polished for her."],
      [7, ""],
      [9, 'Quotes "units", as she does.'],
    ] as const) {
      const key = (await shownKey(page))!;
      await page.locator(`.score-scale label:has(input[value="${score}"])`).click();
      if (note) await page.fill("textarea[name=note]", note);
      const before = page.url();
      await Promise.all([page.waitForURL((url) => url.href !== before), page.click("text=Save and next")]);
      clicked.push({ key, score, note });
      expect(await shownKey(page)).not.toBe(key);
    }
    await expect(page.locator(".labelling-progress span").textContent()).resolves.toMatch(
      /^3 of \d+ labelled by you$/,
    );
    await expect(page.locator("table.labels tbody tr").count()).resolves.toBe(3);
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);

    const [download] = await Promise.all([page.waitForEvent("download"), page.click("text=CSV")]);
    const file = join(dir(), "labels.csv");
    await download.saveAs(file);
    const set = readLabels([file]);
    const kept = parseStoredPersonaInput(await store.evaluations.input(evaluationId))!;
    const items = labelItems(set, kept);
    expect(items.map((i) => i.raters.map((r) => [r.rater, r.score, r.note ?? ""]))).toEqual(
      expect.arrayContaining(clicked.map((c) => [["Ana B", c.score, c.note]])),
    );
    expect(items).toHaveLength(3);
    const result = await calibrateStoredRun({ store, id: evaluationId, labels: set, resamples: 0 });
    expect(result.not_judged).toBe(0);
    expect(result.overall.n).toBe(3);
    // What the store holds is what was clicked, item by item.
    const saved = await store.labels.forEvaluation(evaluationId, { rater: "Ana B" });
    expect(saved.map((l) => l.score).sort()).toEqual(clicked.map((c) => c.score).sort());
    await page.close();
    expect(incidents).toEqual([]);
  }, 60_000);
});
