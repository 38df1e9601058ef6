#!/usr/bin/env node
// `npm run screenshots`: the demo store (scripts/demo-store.ts) served on 127.0.0.1, each dashboard page
// opened in headless Chromium (Debian's package, driven by playwright-core) and saved as a PNG in
// docs/screenshots/, which the README shows. Offline: nothing but the local server is visited.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

register();
const { buildDemoStore, DEMO_BASELINES, INJECTION_AGENT, REGRESSING_AGENT } = await import("./demo-store.ts");
const { checkAgainstBaselines, readBaselineFolder } = await import("../src/regression/index.ts");
const { startServer } = await import("../src/server/index.ts");
const { openStore } = await import("../src/store/index.ts");
const { staticReport } = await import("../src/web/index.ts");
// The browser tests' Chromium: Debian's package, the same flags, its temp files under `temp`.
const { launchChromium } = await import("../test/web/chromium.ts");

const OUT = fileURLToPath(new URL("../docs/screenshots/", import.meta.url));

const temp = mkdtempSync(join(tmpdir(), "dramaturg-screens-"));
const location = join(temp, "store");
await buildDemoStore(location);
const store = await openStore(location);
const baselines = readBaselineFolder(DEMO_BASELINES);
const server = await startServer({ db: store, port: 0, baselines });
const browser = await launchChromium(temp);

/**
 * `dramaturg ci --html` of the evaluation of `run`, as a file: its agents' runs checked against the demo's
 * baselines (the agents; the channels are left out), linking to this server as `--dashboard-url` would.
 */
async function ciReportFile(run) {
  const result = await store.evaluations.result(run.evaluation_id);
  const rows = new Map((await store.runs.list({ limit: 200 })).map((r) => [r.id, r]));
  const { provider, model, mode, prompt_version, temperature, trials } = result.judge;
  const measurement = {
    evaluation_id: result.evaluation_id,
    created_at: run.created_at,
    source: "store",
    judge: { provider, model, mode, prompt_version, ...(temperature === undefined ? {} : { temperature }) },
    trials: trials ?? 1,
    agents: result.runs
      .filter((r) => baselines.agents.has(r.agent_id))
      .map((r) => ({
        ...r,
        propositions_hash: rows.get(r.run_id)?.propositions_hash ?? "",
        persona_hash: rows.get(r.run_id)?.persona_hash ?? "",
      })),
    channels: [],
  };
  const ciReport = checkAgainstBaselines(
    measurement,
    { ...baselines, environments: undefined },
    { threshold: 1, trials: 1 },
  );
  const file = join(temp, "persona-check.html");
  writeFileSync(
    file,
    await staticReport({
      store,
      evaluationIds: [run.evaluation_id],
      title: "Dramaturg persona check",
      ciReport,
      baselines,
      dashboardLinks: { url: server.url, runs: new Map(result.runs.map((r) => [r.agent_id, r.run_id])) },
    }),
  );
  return pathToFileURL(file).href;
}
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
    // ci's HTML report of the latest evaluation, checked against the demo's baselines, on a phone (a file).
    ["phone-ci-report", await ciReportFile(dovRun), 390, ".ci-check"],
  ];
  mkdirSync(OUT, { recursive: true });
  // The labelling page asks for a rater's name first; the screenshot shows the queue of a named one.
  await browser.context.addCookies([{ name: "dramaturg_rater", value: "ana", url: server.url }]);
  const page = await browser.context.newPage();
  for (const [name, path, width = 1200, focus, loaded] of pages) {
    await page.setViewportSize({ width, height: 800 });
    const file = path.startsWith("file:");
    const response = await page.goto(file ? path : `${server.url}${path}`);
    if (!file && response?.status() !== 200) throw new Error(`${path}: ${response?.status()}`);
    if (focus) {
      const target = page.locator(focus).first();
      await target.evaluate((element) => {
        element.querySelector("details")?.setAttribute("open", "");
        element.scrollIntoView({ block: "start" });
      });
      if (loaded) await page.locator(loaded).first().waitFor();
    }
    const png = join(OUT, `${name}.png`);
    // The first screenful: what a visitor sees, and small enough to keep in the repository.
    await page.screenshot({ path: png, fullPage: false });
    process.stdout.write(`${png} (${Math.round(statSync(png).size / 1024)} KB)\n`);
  }
} finally {
  await browser.close();
  await server.close();
  await store.close();
  rmSync(temp, { recursive: true, force: true });
}
