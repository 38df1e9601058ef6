// Headless Chromium for the browser tests: Debian's `chromium` package (`.ci/run` installs it; nothing is
// downloaded), driven by playwright-core, with its profile and temp files inside a test temp folder.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

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
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium), as .ci/run does`,
    );
  const temp = mkdtempSync("/tmp/dw-");
  try {
    const context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: CHROMIUM,
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
