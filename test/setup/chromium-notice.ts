// Says once per run, in the default reporter's output, that the browser tests were skipped and why.
import { BROWSER_TESTS_SKIPPED } from "../web/chromium.ts";

export function setup(): void {
  if (BROWSER_TESTS_SKIPPED) console.warn(`Browser tests skipped: ${BROWSER_TESTS_SKIPPED}`);
}
