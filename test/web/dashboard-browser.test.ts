// The dashboard in a real browser (headless Chromium) over the demo store: the drift chart, the session's
// per-agent cards, injected markup shown as text with no script run, no CSP violation, and the token.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildDemoStore,
  DEMO_BASELINES,
  INJECTION_AGENT,
  REGRESSING_AGENT,
} from "../../scripts/demo-store.ts";
import { readBaselineFolder } from "../../src/regression/index.ts";
import { type RunningServer, startServer } from "../../src/server/index.ts";
import { listSessionAnalyses } from "../../src/sessions/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { browserSuite, launchChromium, openWatched, skipBrowserTests } from "./chromium.ts";

const TOKEN = "browser-test-token-0123456789abcdef";
const dir = useTempDir("dramaturg-web-");

let store: Store;
let server: RunningServer;
let guarded: RunningServer;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
let browser: BrowserContext;
/** What went wrong in any page of the file: dialogs, CSP violations, script errors. */
const incidents: string[] = [];

beforeAll(async () => {
  if (skipBrowserTests) return;
  // The browser first: where one is required and missing, every test fails at once, saying why.
  chromium = await launchChromium(join(dir(), "chromium"));
  browser = chromium.context;
  await buildDemoStore(join(dir(), "store"));
  store = await openStore(join(dir(), "store"));
  const baselines = readBaselineFolder(DEMO_BASELINES);
  server = await startServer({ db: store, port: 0, baselines });
  guarded = await startServer({ db: store, port: 0, token: TOKEN });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await server?.close();
  await guarded?.close();
  await store?.close();
});

/** A new tab that records every dialog (a script ran), console CSP violation and page error. */
async function open(url: string): Promise<Page> {
  return openWatched(browser, url, { incidents });
}

describe.skipIf(skipBrowserTests)(browserSuite("the dashboard in Chromium"), () => {
  it("the agents page lists every agent and links to its drift chart", async () => {
    const page = await open(`${server.url}/`);
    expect(page.url()).toBe(`${server.url}/agents`);
    await expect(page.locator("table.agents tbody tr").count()).resolves.toBe(5);
    await page.click(`a[href="/agents/${REGRESSING_AGENT}"]`);
    await expect(page.locator("svg.drift-chart").count()).resolves.toBe(1);
    await page.close();
  });

  it("an agent's drift chart has one line per dimension, dashed baselines and the regression ringed", async () => {
    const page = await open(`${server.url}/agents/${REGRESSING_AGENT}`);
    const chart = page.locator("svg.drift-chart");
    const lines = await chart
      .locator("g.dimension")
      .evaluateAll((gs) =>
        gs.map((g) => [g.getAttribute("data-dimension"), g.querySelectorAll("polyline").length]),
      );
    expect(lines).toEqual([
      ["adherence", 1],
      ["consistency", 1],
      ["fluency", 1],
    ]);
    const baselines = chart.locator("line.baseline");
    await expect(baselines.count()).resolves.toBe(3);
    // The dash comes from the stylesheet: proof that /assets/dashboard.css loaded under the CSP.
    const dash = page.evaluate(
      "getComputedStyle(document.querySelector('svg.drift-chart line.baseline')).strokeDasharray",
    );
    await expect(dash).resolves.not.toBe("none");
    await expect(chart.locator("circle.regression").count()).resolves.toBe(1);
    await expect(page.locator("table.fallen").textContent()).resolves.toContain("dov-warm-showman");
    await page.close();
  });

  it("the demo's regression reads as one: its failing verdicts say what fell, none repeats the example's praise", async () => {
    const example = JSON.parse(readFileSync("examples/ensemble/judge-fixtures.json", "utf8")) as {
      verdicts: { agent_id?: string; dimension: string; reasoning?: string }[];
    };
    const praise = new Set(
      example.verdicts
        .filter((v) => v.agent_id === REGRESSING_AGENT && v.dimension === "adherence")
        .map((v) => v.reasoning),
    );
    const [latest] = await store.runs.list({ agent: REGRESSING_AGENT, status: "completed", limit: 1 });
    const failing = (await store.scores.forEvaluation(latest!.evaluation_id!, { run: latest!.id })).filter(
      (s) => s.dimension === "adherence" && s.score !== null && s.score < 7,
    );
    expect(failing.length).toBeGreaterThan(3);
    for (const verdict of failing) expect(praise.has(verdict.reasoning ?? "")).toBe(false);
  });

  it("the session page shows one card per agent with its scores and recommendations", async () => {
    const [refund] = (await listSessionAnalyses({ store })).filter((s) => s.source.includes("refund"));
    const page = await open(`${server.url}/sessions/${refund!.id}`);
    const cards = page.locator("article.agent-card");
    await expect(cards.evaluateAll((cs) => cs.map((c) => c.getAttribute("data-agent")))).resolves.toEqual([
      "planner",
      "executor",
    ]);
    await expect(cards.first().locator("ul.recommendations li").allTextContents()).resolves.toEqual([
      "Agent planner's reasoning could be more structured",
    ]);
    await expect(page.locator("table.latency").count()).resolves.toBe(1);
    await page.close();
  });

  it("a transcript carrying script and HTML injection renders as text and runs nothing", async () => {
    const [run] = await store.runs.list({ agent: INJECTION_AGENT });
    const page = await open(`${server.url}/runs/${run!.id}`);
    const text = await page.locator("main").innerText();
    expect(text).toContain("<script>alert(1)</script>");
    expect(text).toContain("<img src=x onerror=alert(1)>");
    expect(text).toContain('<a href="javascript:alert(1)">here</a>');
    expect(text).toContain("[x](javascript:alert(1))");
    await expect(page.locator("main script, main img").count()).resolves.toBe(0);
    await expect(page.locator('[href^="javascript:" i], [src^="javascript:" i]').count()).resolves.toBe(0);
    await page.close();
    const agents = await open(`${server.url}/agents`);
    await expect(agents.locator("main").innerText()).resolves.toContain(
      "Mallory <img src=x onerror=alert(1)>",
    );
    await expect(agents.locator("main img").count()).resolves.toBe(0);
    await agents.close();
    expect(incidents.filter((i) => i.startsWith("dialog"))).toEqual([]);
  });

  it("no page has an inline script or style, and none violates the Content-Security-Policy", async () => {
    const [run] = await store.runs.list({ agent: REGRESSING_AGENT, limit: 1 });
    const [session] = await listSessionAnalyses({ store, limit: 1 });
    const [conversation] = await store.evaluations.list({ kind: "conversation", limit: 1 });
    const paths = [
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
    for (const path of paths) {
      const page = await open(`${server.url}${path}`);
      // A string, run in the page: this project's types have no DOM.
      const inline = await page.evaluate(`document.querySelectorAll("script:not([src]), [style]").length +
        [...document.querySelectorAll("*")].filter((e) => [...e.attributes].some((a) => a.name.startsWith("on"))).length`);
      expect(inline, path).toBe(0);
      await page.close();
    }
    expect(incidents).toEqual([]);
  });
});

describe.skipIf(skipBrowserTests)(browserSuite("the dashboard of a server started with a token"), () => {
  it.each(["/agents", `/agents/${REGRESSING_AGENT}`, "/runs", "/sessions", "/conversations", "/corrections"])(
    "%s without the token is a 401",
    async (path) => {
      const page = await browser.newPage();
      const response = await page.goto(`${guarded.url}${path}`);
      expect(response?.status()).toBe(401);
      await expect(page.content()).resolves.not.toContain(TOKEN);
      await page.close();
    },
  );

  it("signing in with the token at /login opens the pages", async () => {
    const page = await browser.newPage();
    await page.goto(`${guarded.url}/login`);
    await page.fill('input[name="token"]', TOKEN);
    await Promise.all([page.waitForURL(`${guarded.url}/agents`), page.click('button[type="submit"]')]);
    await expect(page.locator("table.agents").count()).resolves.toBe(1);
    await expect(page.content()).resolves.not.toContain(TOKEN);
    await page.close();
  });
});
