// Search of what was evaluated in real Chromium (issue 48, item 8), on the demo store and on a generated run of
// 1,000 messages (both SQL: a PGlite folder, an in-memory PGlite), at 1,280 and 390 px: a word only in a judge's
// reasoning and a word only in an evaluated transcript, typed into the header's box, give hits of their kind,
// marked; a click lands on the verdict's row or on the message on its run's page, in view, and the page fits.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDemoStore } from "../../scripts/demo-store.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { openPgliteStore } from "../../src/store/open-sql-store.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";
import { buildLargeRunStore } from "./large-run-store.ts";

const dir = useTempDir("dramaturg-search-evaluated-browser-");
let chromium: Awaited<ReturnType<typeof launchChromium>>;
const stores: Store[] = [];
const servers: Record<"demo" | "large", RunningServer | undefined> = { demo: undefined, large: undefined };
/** Script errors, CSP refusals and dialogs on any page of the file. */
const incidents: string[] = [];

/**
 * Per store, a word found only in the judge's reasoning and one found only in an evaluated transcript's
 * messages (the demo's: its hand-written verdicts and its ensemble transcript; the generated store's: its
 * HAND-WRITTEN reasonings and Marta's lines). Each test checks the other kinds found nothing.
 */
const WORDS = {
  demo: { reasoning: "colour", transcript: "lightning" },
  large: { reasoning: "desk", transcript: "reef" },
} as const;

beforeAll(async () => {
  if (skipBrowserTests) return;
  chromium = await launchChromium(join(dir(), "chromium"));
  await buildDemoStore(join(dir(), "demo"));
  const demo = await openStore(join(dir(), "demo"));
  const large = await openPgliteStore(undefined);
  stores.push(demo, large);
  await buildLargeRunStore(large, join(dir(), "large"));
  servers.demo = await startServer({ db: demo, port: 0 });
  servers.large = await startServer({ db: large, port: 0 });
}, 240_000);

afterAll(async () => {
  await chromium?.close();
  for (const server of Object.values(servers)) await server?.close();
  for (const store of stores) await store.close();
});

/** Types the query into the header's search box of the agents page and lands on the results. */
async function searchFor(store: "demo" | "large", word: string, width: number): Promise<Page> {
  const page = await openWatched(chromium.context, `${servers[store]!.url}/agents`, {
    width,
    height: 800,
    incidents,
  });
  await page.fill("#site-search", word);
  await Promise.all([
    page.waitForURL(new RegExp(`/search\\?q=${word}$`)),
    page.press("#site-search", "Enter"),
  ]);
  return page;
}

/** Whether an element starts inside the viewport (a sub-pixel above its top allowed), and the page's width against the window's. */
const PLACE = (selector: string) => `(() => {
  const element = document.querySelector(${JSON.stringify(selector)});
  const box = element.getBoundingClientRect();
  return {
    inView: box.top > -2 && box.top < window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  };
})()`;

interface Place {
  inView: boolean;
  scrollWidth: number;
  viewport: number;
}

describe.skipIf(skipBrowserTests)(browserSuite("search of evaluated text in Chromium"), () => {
  for (const store of ["demo", "large"] as const)
    for (const width of [1280, 390]) {
      it(`${store} store at ${width} px: a word of the judge's reasoning lands on its verdict's row`, async () => {
        const word = WORDS[store].reasoning;
        const page = await searchFor(store, word, width);
        // Only a reasoning has the word.
        for (const none of ["agents", "messages", "transcripts"])
          await expect(page.locator(`main .search-${none} li`).count(), none).resolves.toBe(0);
        const hit = page.locator("main .search-reasonings li").first();
        await expect(hit.locator(".hit-kind").textContent()).resolves.toBe("judge's reasoning");
        await expect(hit.locator(".snippet mark").first().textContent()).resolves.toMatch(
          new RegExp(`^${word}$`, "i"),
        );
        const fits = (await page.evaluate(PLACE("main .search-reasonings"))) as Place;
        expect(fits.scrollWidth).toBeLessThanOrEqual(fits.viewport);
        const link = hit.locator("a").first();
        const href = (await link.getAttribute("href"))!;
        expect(href).toMatch(/^\/runs\/[0-9a-f-]{36}\?(message|p)=[^#]+#v-[0-9a-f-]{36}$/);
        await Promise.all([page.waitForURL(/\/runs\/[^#]+#v-/), link.click()]);
        const anchor = href.split("#")[1]!;
        const row = page.locator(`#${anchor}`);
        // The verdict's own row, its reasoning holding the word, scrolled into view.
        await expect(row.locator(".v-reasoning").textContent()).resolves.toMatch(new RegExp(word, "i"));
        const landed = (await page.evaluate(PLACE(`#${anchor}`))) as Place;
        expect(landed.inView, JSON.stringify(landed)).toBe(true);
        expect(landed.scrollWidth).toBeLessThanOrEqual(landed.viewport);
        await page.close();
      });

      it(`${store} store at ${width} px: a word of an evaluated transcript lands on the message on its run's page`, async () => {
        const word = WORDS[store].transcript;
        const page = await searchFor(store, word, width);
        for (const none of ["agents", "messages", "reasonings"])
          await expect(page.locator(`main .search-${none} li`).count(), none).resolves.toBe(0);
        const hit = page.locator("main .search-transcripts li").first();
        await expect(hit.locator(".hit-kind").textContent()).resolves.toBe("evaluated message");
        await expect(hit.locator(".snippet mark").first().textContent()).resolves.toMatch(
          new RegExp(`^${word}$`, "i"),
        );
        const link = hit.locator("a").first();
        const href = (await link.getAttribute("href"))!;
        expect(href).toMatch(/^\/runs\/[0-9a-f-]{36}\?message=[^#]+#message$/);
        const messageId = decodeURIComponent(href.match(/message=([^#&]+)/)![1]!);
        await Promise.all([page.waitForURL(/#message$/), link.click()]);
        const section = page.locator("#message");
        await expect(section.locator("h3 code").textContent()).resolves.toBe(messageId);
        await expect(section.locator(".message-text").textContent()).resolves.toMatch(new RegExp(word, "i"));
        const landed = (await page.evaluate(PLACE("#message"))) as Place;
        expect(landed.inView, JSON.stringify(landed)).toBe(true);
        expect(landed.scrollWidth).toBeLessThanOrEqual(landed.viewport);
        // The verdicts below are this message's only.
        const targets = await page.locator("table.verdicts .v-target code").allTextContents();
        expect(new Set(targets)).toEqual(new Set(targets.length > 0 ? [messageId] : []));
        await page.close();
      });
    }

  it("no page ran a script of the stored text, and the CSP refused nothing", () => {
    expect(incidents).toEqual([]);
  });
});
