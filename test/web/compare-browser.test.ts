// Issue 48 (1, 5) in real Chromium over the demo store, at a phone's and a desktop's width (390 and 1,280 px):
// the persona is on the run and agent pages (its first lines, the rest one click away), and the comparison is
// reached from the run picker by agent, reads its changed verdicts by proposition, filters them to the
// regressed ones, takes short ids, and never scrolls the page sideways; no script error or CSP violation.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoStore, REGRESSING_AGENT } from "../../scripts/demo-store.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";

const dir = useTempDir("dramaturg-compare-browser-");
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
  server = await startServer({ db: store, port: 0 });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await store?.close();
});

const open = (path: string, width: number): Promise<Page> =>
  openWatched(chromium.context, `${server.url}${path}`, { width, incidents });

/** The page's width as laid out: wider than the window means a sideways scroll of the whole page. */
const pageWidth = (page: Page) => page.evaluate("document.documentElement.scrollWidth") as Promise<number>;

describe.skipIf(skipBrowserTests)(browserSuite("the persona and the comparison in Chromium"), () => {
  for (const width of [390, 1280]) {
    it(`at ${width} px, the run page shows the persona it was scored against, the rest one click away`, async () => {
      const [run] = await store.runs.list({ agent: REGRESSING_AGENT, limit: 1 });
      const page = await open(`/runs/${run!.id.slice(0, 8)}`, width);
      const persona = page.locator("section#persona");
      await expect(persona.locator("h2").textContent()).resolves.toBe("Persona scored against");
      const first = persona.locator("div.persona-text").first();
      await expect(first.isVisible()).resolves.toBe(true);
      await expect(first.textContent()).resolves.toContain('"age": 34');
      const rest = persona.locator("details.persona-more div.persona-text");
      await expect(rest.isVisible()).resolves.toBe(false);
      await persona.locator("details.persona-more summary").click();
      await expect(rest.isVisible()).resolves.toBe(true);
      await expect(persona.innerText()).resolves.toContain("Breakfast-show host");
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      await page.close();

      const agent = await open(`/agents/${REGRESSING_AGENT}`, width);
      await expect(agent.locator("section#persona").textContent()).resolves.toContain("Breakfast-show host");
      expect(await pageWidth(agent)).toBeLessThanOrEqual(width);
      await agent.close();
      expect(incidents).toEqual([]);
    });

    it(`at ${width} px, the picker leads to a comparison that groups, counts and filters the changed verdicts`, async () => {
      const page = await open("/compare", width);
      // The script submits the filter form when a field changes (here on leaving it); the button is the way
      // without script. Either way the picker reloads once for the agent, then rests.
      await page.locator("form.filters input[name=agent]").fill(REGRESSING_AGENT);
      await Promise.all([
        page.waitForURL(/agent=dov/),
        page.locator("form.filters input[name=agent]").press("Tab"),
      ]);
      await page.waitForLoadState("networkidle");
      const options = await page.locator("form.run-picker select[name=b] option").allTextContents();
      expect(options.length).toBeGreaterThan(1);
      expect(options.every((o) => o.includes(` · ${REGRESSING_AGENT} · `))).toBe(true);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
      // B defaults to the newest run, A to the one before it: one click compares them.
      await Promise.all([page.waitForURL(/\/compare\?a=/), page.locator("form.run-picker button").click()]);
      await expect(page.locator("h1").textContent()).resolves.toBe("Comparing two runs");
      await expect(page.locator("table.change-counts tbody tr").count()).resolves.toBeGreaterThan(0);
      await expect(page.locator("section.changed-group").count()).resolves.toBeGreaterThan(0);
      await expect(page.locator("td.reasoning-diff").first().isVisible()).resolves.toBe(true);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);

      await Promise.all([
        page.waitForURL(/changed=regressed/),
        page.locator("p.change-filter a", { hasText: "regressed only" }).click(),
      ]);
      const deltas = await page.locator("table.changed-verdicts tbody tr td:nth-child(5)").allTextContents();
      expect(deltas.length).toBeGreaterThan(0);
      expect(deltas.every((d) => d.startsWith("−"))).toBe(true);
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);

      // The same comparison by the short ids the pages show.
      const url = new URL(page.url());
      const short = await open(
        `/compare?a=${url.searchParams.get("a")!.slice(0, 8)}&b=${url.searchParams.get("b")!.slice(0, 8)}`,
        width,
      );
      await expect(short.locator("h1").textContent()).resolves.toBe("Comparing two runs");
      await short.close();
      await page.close();
      expect(incidents).toEqual([]);
    });
  }
});
