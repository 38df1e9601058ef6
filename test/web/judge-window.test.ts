// The window the judge read, served on demand (issue 48): /runs/:id/window?dimension=D&message=M as a page for
// a reader without script and, with fragment=1, as the part the run page loads under a verdict — the judged
// message highlighted first, the lines before it nearest first, the messages after it marked as not seen by the
// judge, and "no earlier messages" where the judge read nothing before it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { buildDrilldownStore } from "./drilldown-store.ts";
import { buildLargeRunStore } from "./large-run-store.ts";

const dir = useTempDir("dramaturg-judge-window-");
let store: Store;
let app: ReturnType<typeof createServerApp>;
let large: Awaited<ReturnType<typeof buildLargeRunStore>>;
let drilldown: Awaited<ReturnType<typeof buildDrilldownStore>>;

beforeAll(async () => {
  store = await openStore("memory://");
  large = await buildLargeRunStore(store, dir(), { messages: 200 });
  drilldown = await buildDrilldownStore(store, dir());
  app = createServerApp({ store });
}, 60_000);
afterAll(async () => {
  await store.close();
});

const get = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};
const windowOf = (run: string, message: string, fragment = true) =>
  get(`/runs/${run}/window?dimension=adherence&message=${message}${fragment ? "&fragment=1" : ""}`);

describe("the window the judge read", () => {
  it("shows the judged message highlighted first, then the lines before it, nearest first", async () => {
    const { status, text } = await windowOf(large.runId, "m90");
    expect(status).toBe(200);
    expect(text.startsWith('<div class="window-view">')).toBe(true);
    expect(text).not.toContain("<html");
    const judged = text.indexOf('class="window-judged"');
    expect(judged).toBeGreaterThan(0);
    expect(text.slice(judged, text.indexOf("</p>", judged))).toContain("<code>m90</code>");
    const lines = [...text.matchAll(/<ol class="window-lines">([\s\S]*?)<\/ol>/g)][0]![1]!;
    const numbers = [...lines.matchAll(/<li>#(\d+) /g)].map((m) => Number(m[1]));
    expect(numbers.length).toBeGreaterThan(5);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    // The nearest line is the message just before m90 in its channel: o90 (Bob, Cleo or Dai).
    expect(lines.slice(0, lines.indexOf("</li>"))).toContain("[CONVERSATION]");
    expect(judged).toBeLessThan(text.indexOf('<ol class="window-lines">'));
  });

  it("shows the messages after it, each marked as not seen by the judge", async () => {
    const { text } = await windowOf(large.runId, "m90");
    const after = text.match(/<ol class="window-after">([\s\S]*?)<\/ol>/)![1]!;
    const ids = [...after.matchAll(/<code>([om]\d+)<\/code>/g)].map((m) => m[1]);
    expect(ids).toEqual(["o91", "m91", "o92", "m92", "o93"]);
    expect(after.match(/not seen by the judge/g)).toHaveLength(5);
  });

  it('says "no earlier messages" where the judge read nothing before the message, never an empty box', async () => {
    // m01 opens the ensemble's transcript: Inés's first message has nothing before it.
    const { status, text } = await windowOf(drilldown.inesA, "m01");
    expect(status).toBe(200);
    expect(text).toContain("No earlier messages");
    expect(text).not.toMatch(/<ol class="window-lines"><\/ol>/);
  });

  it("is a page of its own without the script, which the verdict's link leads to", async () => {
    const run = await get(`/runs/${large.runId}`);
    const link = run.text.match(
      /<div class="window-body"><p><a href="([^"]+)">Open the window the judge read<\/a>/,
    )![1]!;
    const page = await get(link.replaceAll("&amp;", "&"));
    expect(page.status).toBe(200);
    expect(page.text).toContain("<h1>What the judge read");
    expect(page.text).toContain('class="window-judged"');
    expect(page.text).toContain('<script src="/assets/dashboard.js"');
  });

  it("answers an unknown message with 404 and a missing dimension with 400, as fragment and as page", async () => {
    expect((await windowOf(large.runId, "m9999")).status).toBe(404);
    expect((await windowOf(large.runId, "m9999", false)).status).toBe(404);
    expect((await get(`/runs/${large.runId}/window?message=m1&fragment=1`)).status).toBe(400);
    const page = await get(`/runs/${large.runId}/window?message=m1`);
    expect(page.status).toBe(400);
    expect(page.text).toContain("The <code>dimension</code> parameter");
  });
});
