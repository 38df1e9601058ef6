// What every one-file HTML report must be (`--format html`, `ci --html`, `show --format html`): one document, the
// policy that forbids requests and every script but its one inline script (by that script's hash), no remote
// resource, links between its pages anchors, ids unique.
import { createHash } from "node:crypto";
import { expect } from "vitest";

/**
 * What every report must be: one document, the policy that forbids requests and every script but its one
 * inline script (by that script's hash), no remote resource.
 */
export function expectSelfContained(report: string): void {
  expect(report.startsWith("<!doctype html>")).toBe(true);
  const policy = report.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/)?.[1] ?? "";
  expect(policy).toMatch(/^default-src 'none';/);
  const scripts = [...report.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
  expect(scripts).toHaveLength(1);
  expect(scripts[0]![1]).toBe("");
  const hash = createHash("sha256").update(scripts[0]![2]!).digest("base64");
  // Its script-src is that hash and nothing else: no 'unsafe-inline', no source to load a script from.
  expect(policy.split(";").map((d) => d.trim())).toContain(`script-src 'sha256-${hash}'`);
  expect(report).not.toMatch(/<link\b/i);
  expect(report).not.toMatch(/\ssrc="/i);
  expect(report).toMatch(/<style>[\s\S]*\.top[\s\S]*<\/style>/);
  // Every link is an anchor of the document (or an outside http link a page printed): none to a dashboard path.
  expect(report).not.toMatch(/\shref="\//);
  for (const [, anchor] of report.matchAll(/\shref="#([^"]+)"/g))
    expect(report, `anchor #${anchor}`).toContain(`id="${anchor}"`);
  expect(report).not.toMatch(/<form\b/i);
  // Ids are unique across the pages of the document (each run page has its own "window-1").
  const ids = [...report.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
  expect(ids.length).toBe(new Set(ids).size);
}
