// Headless Chromium for the browser tests, driven by playwright-core with its profile and temp files inside a
// test temp folder. The browser is found, never downloaded: DRAMATURG_CHROMIUM, else the usual names on PATH,
// else playwright-core's own. Without one the browser tests are skipped and say why, except where
// DRAMATURG_REQUIRE_CHROMIUM=1 (CI installs Debian's chromium): there a missing browser fails them.
import { accessSync, constants, mkdtempSync, rmSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

/** The names a Chromium goes by on PATH, in the order they are tried: Debian's, Ubuntu's and Fedora's, Google's. */
export const CHROMIUM_NAMES = [
  "chromium",
  "chromium-browser",
  "google-chrome",
  "google-chrome-stable",
] as const;

/** What the finder looks at: the environment, the file system, playwright-core. */
export interface ChromiumLookup {
  env: Readonly<Record<string, string | undefined>>;
  /** Whether an executable file is at this path. */
  isExecutable: (path: string) => boolean;
  /** Where playwright-core keeps its own Chromium (`npx playwright-core install chromium`), installed or not. */
  playwrightExecutable: () => string | undefined;
}

export type ChromiumFound =
  | { path: string; from: "DRAMATURG_CHROMIUM" | "PATH" | "playwright-core" }
  | { path: undefined; reason: string };

const HOW_TO_ENABLE = `set DRAMATURG_CHROMIUM=/path/to/chromium, put ${CHROMIUM_NAMES.join(", ")} on PATH, or run npx playwright-core install chromium`;

/** The Chromium the browser tests drive, or why there is none. */
export function findChromium({ env, isExecutable, playwrightExecutable }: ChromiumLookup): ChromiumFound {
  const chosen = env.DRAMATURG_CHROMIUM;
  // A browser named on purpose is used or reported, never silently replaced by another.
  if (chosen)
    return isExecutable(chosen)
      ? { path: chosen, from: "DRAMATURG_CHROMIUM" }
      : { path: undefined, reason: `DRAMATURG_CHROMIUM=${chosen} is not an executable file` };
  const folders = (env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const name of CHROMIUM_NAMES)
    for (const folder of folders) {
      const path = join(folder, name);
      if (isExecutable(path)) return { path, from: "PATH" };
    }
  let own: string | undefined;
  try {
    own = playwrightExecutable();
  } catch {
    // playwright-core has no Chromium build for this platform.
  }
  if (own && isExecutable(own)) return { path: own, from: "playwright-core" };
  return { path: undefined, reason: `no Chromium found: ${HOW_TO_ENABLE}` };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The Chromium of this machine, or why there is none. */
export const CHROMIUM = findChromium({
  env: process.env,
  isExecutable,
  playwrightExecutable: () => chromium.executablePath(),
});

/**
 * Why the browser tests are skipped, or undefined when they run: they run with a browser, and also without
 * one where DRAMATURG_REQUIRE_CHROMIUM=1 (CI, which installs Chromium), so that there they fail instead.
 */
export function browserTestsSkipped(
  found: ChromiumFound,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  return found.path === undefined && env.DRAMATURG_REQUIRE_CHROMIUM !== "1" ? found.reason : undefined;
}

/** Why the browser tests are skipped on this machine, or undefined when they run. */
export const BROWSER_TESTS_SKIPPED = browserTestsSkipped(CHROMIUM, process.env);

/** Whether the browser tests are skipped on this machine. */
export const skipBrowserTests = BROWSER_TESTS_SKIPPED !== undefined;

/** A browser suite's name, saying why it is skipped and how to run it when it is. */
export function browserSuite(name: string): string {
  return BROWSER_TESTS_SKIPPED === undefined ? name : `${name} (skipped: ${BROWSER_TESTS_SKIPPED})`;
}

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * A fresh browser with its profile under `dir`. Chromium keeps its singleton socket in its temp folder,
 * whose path must stay short (a Unix socket path has ~100 bytes, and the test run's folder can be deep), so
 * it gets a short folder of its own under /tmp, which `close()` removes with the browser.
 */
export async function launchChromium(
  dir: string,
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (CHROMIUM.path === undefined)
    throw new Error(
      `${CHROMIUM.reason}${process.env.DRAMATURG_REQUIRE_CHROMIUM === "1" ? " (DRAMATURG_REQUIRE_CHROMIUM=1: the browser tests must run here)" : ""}`,
    );
  const temp = mkdtempSync("/tmp/dw-");
  try {
    const context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: CHROMIUM.path,
      headless: true,
      args: ARGS,
      env: { ...process.env, TMPDIR: temp, TMP: temp, TEMP: temp },
      viewport: { width: 1280, height: 900 },
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(temp, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
}

/**
 * A new tab at `url` (its answer must be 200) that records in `incidents` what must never happen on a page:
 * a dialog (a script of a message ran), a CSP refusal, a console error or an uncaught script error.
 */
export async function openWatched(
  context: BrowserContext,
  url: string,
  { width = 1280, height = 900, incidents }: { width?: number; height?: number; incidents: string[] },
): Promise<Page> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  page.on("dialog", async (dialog) => {
    incidents.push(`dialog on ${url}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on("console", (message) => {
    if (message.type() === "error" || /Content Security Policy|Refused to/i.test(message.text()))
      incidents.push(`${url} at ${width}px: ${message.text()}`);
  });
  page.on("pageerror", (error) => incidents.push(`${url} at ${width}px: ${error.message}`));
  const response = await page.goto(url);
  expect(response?.status(), url).toBe(200);
  return page;
}
