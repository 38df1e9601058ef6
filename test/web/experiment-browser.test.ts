// The demo experiment's pages in real Chromium at a desktop's and a phone's width (1,280 and 390 px): reached
// from the navigation, its Table 1 read whole, each metric's dot strip readable, the pairs side by side, no
// sideways page scroll, and nothing the CSP refuses; from a run of it, the link back to its environment.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { experimentReport, loadExperimentResult } from "../../src/experiments/index.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";
import { buildExperimentStore } from "./experiment-page-store.ts";

const WIDTHS = [1280, 390] as const;
const dir = useTempDir("dramaturg-experiment-browser-");

let store: Store;
let server: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let experimentId: string;

beforeAll(async () => {
  if (skipBrowserTests) return;
  chromium = await launchChromium(join(dir(), "chromium"));
  store = await openStore("memory://");
  ({ experimentId } = await buildExperimentStore(store));
  server = await startServer({ db: store, port: 0 });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await store?.close();
});

interface ExperimentLayout {
  viewport: number;
  scrollWidth: number;
  table1: string[][];
  /** Whether Table 1 is wider than its box (it would scroll in it). */
  table1Scrolls: boolean;
  /** Each strip's drawn width and its tick labels' size on screen, in px. */
  strips: { width: number; tick: number }[];
  /** Per pair table: whether its control and treatment cells of the first agent stand side by side. */
  sideBySide: boolean[];
  headerLinksOutside: string[];
}

const LAYOUT = `(() => {
  const header = document.querySelector("header.top").getBoundingClientRect();
  return {
    viewport: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    table1: [...document.querySelectorAll("table.table1 tbody tr")].map((tr) =>
      [...tr.querySelectorAll("td")].map((td) => td.innerText.replace(/\\s+/g, " ").trim())),
    table1Scrolls: (() => { const t = document.querySelector("table.table1"); return t.scrollWidth > t.clientWidth; })(),
    strips: [...document.querySelectorAll("svg.strip")].map((svg) => {
      const width = svg.getBoundingClientRect().width;
      const tick = svg.querySelector("text.tick");
      return { width, tick: parseFloat(getComputedStyle(tick).fontSize) * (width / svg.viewBox.baseVal.width) };
    }),
    sideBySide: [...document.querySelectorAll("table.pair tbody tr:first-child")].map((tr) => {
      const [, control, treatment] = [...tr.querySelectorAll("td")].map((td) => td.getBoundingClientRect());
      return Math.abs(control.top - treatment.top) < 1 && treatment.left >= control.right - 1;
    }),
    headerLinksOutside: [...document.querySelectorAll("header.top a")].filter((a) => {
      const r = a.getBoundingClientRect();
      return r.left < header.left || r.right > header.right || r.top < header.top || r.bottom > header.bottom;
    }).map((a) => a.textContent),
  };
})()`;

describe.skipIf(skipBrowserTests)(browserSuite("the experiment page in Chromium"), () => {
  it.each(WIDTHS)(
    "at %i px it is reached from the navigation and shows the demo experiment's Table 1",
    async (width) => {
      const incidents: string[] = [];
      const page = await openWatched(chromium.context, `${server.url}/agents`, { width, incidents });
      await page.locator('header.top nav a[href="/experiments"]').click();
      await page.waitForURL(`${server.url}/experiments`);
      await page.locator(`a[href="/experiments/${experimentId}"]`).click();
      await page.waitForURL(`${server.url}/experiments/${experimentId}`);
      const layout = (await page.evaluate(LAYOUT)) as ExperimentLayout;
      const { document } = await loadExperimentResult({ store, id: experimentId });
      const { report } = experimentReport(document);
      expect(layout.table1.map((r) => r[0])).toEqual(report.comparisons.map((c) => c.metric));
      for (const [row, c] of layout.table1.map((r, i) => [r, report.comparisons[i]!] as const)) {
        expect(row[1]!.startsWith(`${c.control.mean!.toFixed(2)} (${c.control.n})`), c.metric).toBe(true);
        expect(row[2]!.startsWith(`${c.treatment.mean!.toFixed(2)} (${c.treatment.n})`), c.metric).toBe(true);
      }
      expect(layout.table1[0]!.slice(3, 5)).toEqual(["+3.73", "2.23e-07 *"]);
      expect(layout.table1Scrolls, "Table 1 read whole, without scrolling").toBe(false);
      expect(layout.scrollWidth, "page width").toBeLessThanOrEqual(layout.viewport);
      expect(layout.headerLinksOutside).toEqual([]);
      expect(layout.strips).toHaveLength(6);
      for (const strip of layout.strips) {
        expect(strip.width).toBeLessThanOrEqual(layout.viewport);
        expect(strip.tick, "tick labels on screen").toBeGreaterThanOrEqual(11);
      }
      expect(layout.sideBySide).toEqual([true, true, true, true]);
      expect(incidents).toEqual([]);
      await page.close();
    },
  );

  it("links a run of the experiment back to its environment on the experiment page", async () => {
    const [run] = await store.runs.list({ agent: "ana-a", limit: 1 });
    const incidents: string[] = [];
    const page = await openWatched(chromium.context, `${server.url}/runs/${run!.id}`, {
      width: 390,
      incidents,
    });
    await page.locator(`p.experiment-arm a[href^="/experiments/${experimentId}#environment-"]`).click();
    await page.waitForURL(new RegExp(`/experiments/${experimentId}#environment-\\d$`));
    const target = page.locator(`table.pair${new URL(page.url()).hash}`);
    await expect(target.locator(`a[href="/runs/${run!.id}"]`).count()).resolves.toBe(1);
    expect(incidents).toEqual([]);
    await page.close();
  });
});
