// A persona run page at real size (issue 48): a run of 1,000 messages × 3 propositions stays under 500 KB
// (its failures view too) by showing each proposition's lowest verdicts with a link to all of them, page by page;
// sorting and paging links come back to their table; responses are gzipped with the security headers kept; the
// static report of the evaluation stays one file under 2 MB.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { staticReport } from "../../src/web/index.ts";
import { useTempDir } from "../temp-dir.ts";
import { buildLargeRunStore } from "./large-run-store.ts";

const dir = useTempDir("dramaturg-run-page-size-");
let store: Store;
let app: ReturnType<typeof createServerApp>;
let run: Awaited<ReturnType<typeof buildLargeRunStore>>;

beforeAll(async () => {
  store = await openStore("memory://");
  run = await buildLargeRunStore(store, dir());
  app = createServerApp({ store });
}, 60_000);
afterAll(async () => {
  await store.close();
});

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

/** Each proposition table's anchor and body rows (each a verdict's, anchored by its id). */
function tables(text: string): { id: string; rows: number; html: string }[] {
  return [...text.matchAll(/<section class="proposition" id="([^"]+)">([\s\S]*?)<\/section>/g)].map((m) => ({
    id: m[1]!,
    rows: (m[2]!.match(/<tr id="v-[^"]*" class="/g) ?? []).length,
    html: m[2]!,
  }));
}

describe("a run of 1,000 messages", () => {
  it("has a page under 500 KB, each proposition's 20 lowest verdicts shown and a link to all 1,000", async () => {
    const { status, text } = await page(`/runs/${run.runId}`);
    expect(status).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThan(500 * 1024);
    const shown = tables(text);
    expect(shown.map((t) => t.rows)).toEqual([20, 20, 20]);
    for (const t of shown) expect(t.html).toMatch(/All 1000 verdicts of [a-z-]+ →/);
    // The lowest first: the assistant-voice slips score lowest on the dispatcher claim.
    const dispatcher = shown.find((t) => t.id === "p-adherence-terse-dispatcher")!;
    expect(dispatcher.html).toContain("Reads like a help-desk answer");
  });

  it("has a failures view under 500 KB", async () => {
    const { status, text } = await page(`/runs/${run.runId}?failures=1`);
    expect(status).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThan(500 * 1024);
    expect(text).toMatch(/All \d+ failing verdicts of terse-dispatcher →/);
  });

  it("lists all of a proposition's verdicts 50 a page, the page links coming back to its table", async () => {
    const first = await page(`/runs/${run.runId}?p=adherence/terse-dispatcher`);
    expect(first.status).toBe(200);
    const [only] = tables(first.text);
    expect(tables(first.text)).toHaveLength(1);
    expect(only!.rows).toBe(50);
    expect(only!.html).toContain("Page 1 of 20");
    expect(only!.html).toMatch(
      /<a href="[^"]*p=adherence%2Fterse-dispatcher&amp;page=2#p-adherence-terse-dispatcher" rel="next">/,
    );
    const last = await page(`/runs/${run.runId}?p=adherence/terse-dispatcher&page=20`);
    const [end] = tables(last.text);
    expect(end!.rows).toBe(50);
    expect(end!.html).toContain("Page 20 of 20");
    expect(end!.html).not.toContain('rel="next"');
    expect(end!.html).toContain('rel="prev"');
    // Together the pages hold every verdict once.
    const targets = new Set<string>();
    for (let n = 1; n <= 20; n++) {
      const { text } = await page(`/runs/${run.runId}?p=adherence/terse-dispatcher&page=${n}`);
      for (const m of tables(text)[0]!.html.matchAll(/<code>(m\d+)<\/code> · #/g)) targets.add(m[1]!);
    }
    expect(targets.size).toBe(1000);
  });

  it("sorts a table with links that come back to that table, not to the top of the page", async () => {
    const { text } = await page(`/runs/${run.runId}?p=adherence/concrete-orders&sort=target&order=desc`);
    const [table] = tables(text);
    expect(table!.html).toMatch(
      /<th aria-sort="descending"><a href="[^"]*p=adherence%2Fconcrete-orders&amp;sort=target&amp;order=asc#p-adherence-concrete-orders">Target ▼/,
    );
    const targets = [...table!.html.matchAll(/<code>(m\d+)<\/code> · #/g)].map((m) => m[1]!);
    expect(targets).toHaveLength(50);
    expect(targets).toEqual([...targets].sort((a, b) => b.localeCompare(a)));
  });

  it("answers a bad page or proposition with a 400 page naming the parameter", async () => {
    const bad = await page(`/runs/${run.runId}?p=adherence/terse-dispatcher&page=0`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("The <code>page</code> parameter");
    const p = await page(`/runs/${run.runId}?p=terse-dispatcher`);
    expect(p.status).toBe(400);
    expect(p.text).toContain("The <code>p</code> parameter");
  });

  it("is sent gzipped to a browser that accepts it, with the strict CSP and no-store kept", async () => {
    const plain = await app.request(`/runs/${run.runId}`);
    const zipped = await app.request(`/runs/${run.runId}`, {
      headers: { "accept-encoding": "gzip, deflate" },
    });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toContain("Accept-Encoding");
    for (const response of [plain, zipped]) {
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
    const body = Buffer.from(await zipped.arrayBuffer());
    expect(body.byteLength).toBeLessThan(50 * 1024);
    expect(gunzipSync(body).toString("utf8")).toBe(await plain.text());
  });

  it("makes a static report of one file under 2 MB, with the windows of the verdicts it shows written in", async () => {
    const report = await staticReport({ store, evaluationIds: [run.evaluationId] });
    expect(Buffer.byteLength(report)).toBeLessThan(2 * 1024 * 1024);
    expect(report).toMatch(/All 1000 verdicts of terse-dispatcher/);
    expect(report).not.toContain("data-window=");
    const links = [...report.matchAll(/<a href="#([^"]+)">What the judge read ↓<\/a>/g)].map((m) => m[1]!);
    expect(links).toHaveLength(60);
    for (const id of new Set(links)) expect(report).toContain(`id="${id}"`);
    expect(report.match(/class="window-judged"/g)?.length).toBe(new Set(links).size);
  });
});
