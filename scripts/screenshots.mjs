#!/usr/bin/env node
// `npm run screenshots`: the demo store (scripts/demo-store.ts) served on 127.0.0.1, each dashboard page
// opened in headless Chromium (Debian's package, driven by playwright-core) and saved as a PNG in
// docs/screenshots/, which the README shows. Offline: nothing but the local server is visited.
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

register();
const { buildDemoStore, DEMO_BASELINES, INJECTION_AGENT, REGRESSING_AGENT } = await import("./demo-store.ts");
const { readBaselineFolder } = await import("../src/regression/index.ts");
const { startServer } = await import("../src/server/index.ts");
const { openStore } = await import("../src/store/index.ts");
// The browser tests' Chromium: Debian's package, the same flags, its temp files under `temp`.
const { launchChromium } = await import("../test/web/chromium.ts");

const OUT = fileURLToPath(new URL("../docs/screenshots/", import.meta.url));

const temp = mkdtempSync(join(tmpdir(), "dramaturg-screens-"));
const location = join(temp, "store");
await buildDemoStore(location);
const store = await openStore(location);
const server = await startServer({ db: store, port: 0, baselines: readBaselineFolder(DEMO_BASELINES) });
const browser = await launchChromium(temp);
try {
  const [dovRun] = await store.runs.list({ agent: REGRESSING_AGENT, limit: 1 });
  const [injectionRun] = await store.runs.list({ agent: INJECTION_AGENT, limit: 1 });
  const sessions = await store.evaluations.list({ kind: "session" });
  const refund = sessions.find((s) => s.source.includes("refund"));
  const [conversation] = await store.evaluations.list({ kind: "conversation", limit: 1 });
  const [calibration] = await store.evaluations.list({ kind: "calibration", limit: 1 });
  const [previous] = await store.runs
    .list({ agent: REGRESSING_AGENT, limit: 2 })
    .then((runs) => runs.slice(1));
  // Each: the file name, the path, the window's width, what to bring into view first (a selector, scrolled
  // to the top; a <details> in it opened), and what to wait for after (what the page's script loads).
  const pages = [
    ["agents", "/agents"],
    ["agent-drift", `/agents/${REGRESSING_AGENT}`],
    ["runs", "/runs"],
    ["run", `/runs/${dovRun.id}`],
    ["drilldown", `/runs/${dovRun.id}`, 1200, "section.proposition"],
    ["compare", `/compare?a=${previous.id}&b=${dovRun.id}`],
    ["compare-picker", "/compare"],
    // A verdict's "What the judge read", opened in place (the page's script loads it).
    [
      "judge-window",
      `/runs/${dovRun.id}`,
      1200,
      "tr:has(details[data-window])",
      "details[data-loaded='yes']",
    ],
    ["phone-run", `/runs/${dovRun.id}`, 390, "section.proposition"],
    ["run-injection", `/runs/${injectionRun.id}#messages`],
    ["session", `/sessions/${refund.id}`],
    ["session-timeline", `/sessions/${refund.id}`, 1200, "svg.waterfall"],
    ["conversation", `/conversations/${conversation.id}`],
    ["corrections", "/corrections"],
    ["phone-agent", `/agents/${REGRESSING_AGENT}`, 390],
    ["calibration", `/calibrations/${calibration.id}`],
    ["labelling", `/evaluations/${calibration.config.run}/label`],
  ];
  mkdirSync(OUT, { recursive: true });
  // The labelling page asks for a rater's name first; the screenshot shows the queue of a named one.
  await browser.context.addCookies([{ name: "dramaturg_rater", value: "ana", url: server.url }]);
  const page = await browser.context.newPage();
  for (const [name, path, width = 1200, focus, loaded] of pages) {
    await page.setViewportSize({ width, height: 800 });
    const response = await page.goto(`${server.url}${path}`);
    if (response?.status() !== 200) throw new Error(`${path}: ${response?.status()}`);
    if (focus) {
      const target = page.locator(focus).first();
      await target.evaluate((element) => {
        element.querySelector("details")?.setAttribute("open", "");
        element.scrollIntoView({ block: "start" });
      });
      if (loaded) await page.locator(loaded).first().waitFor();
    }
    const file = join(OUT, `${name}.png`);
    // The first screenful: what a visitor sees, and small enough to keep in the repository.
    await page.screenshot({ path: file, fullPage: false });
    process.stdout.write(`${file} (${Math.round(statSync(file).size / 1024)} KB)\n`);
  }
} finally {
  await browser.close();
  await server.close();
  await store.close();
  rmSync(temp, { recursive: true, force: true });
}
