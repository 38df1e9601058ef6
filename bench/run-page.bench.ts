// Issue 48: a persona run page at real size. A run of 1,000 messages (three propositions each, judged by the
// generated hand-written-style fixtures of test/web/large-run-store.ts) in a memory:// store: the bytes of its
// page and of its ?failures=1 view (as sent uncompressed, and gzipped), the p95 server time over 20 requests
// through app.request(), the bytes of a judge window's fragment, a 10,000-message run's page, and the static
// report of the 1,000-message evaluation.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServerApp } from "../src/server/index.ts";
import { openStore } from "../src/store/index.ts";
import { staticReport } from "../src/web/index.ts";
import { buildLargeRunStore } from "../test/web/large-run-store.ts";

export interface RunPageFigures {
  messages: number;
  build_ms: number;
  page_bytes: number;
  page_gzip_bytes: number;
  failures_bytes: number;
  failures_gzip_bytes: number;
  window_fragment_bytes: number;
  p50_ms: number;
  p95_ms: number;
  requests: number;
  static_report_bytes: number;
  large_messages: number;
  large_page_bytes: number;
  large_page_ms: number;
}

const REQUESTS = 20;

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;

async function bytesOf(app: ReturnType<typeof createServerApp>, path: string, gzip = false) {
  const response = await app.request(path, gzip ? { headers: { "accept-encoding": "gzip" } } : {});
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
  return (await response.arrayBuffer()).byteLength;
}

export async function benchRunPage({
  messages = 1_000,
  largeMessages = 10_000,
}: {
  messages?: number;
  largeMessages?: number;
} = {}): Promise<RunPageFigures> {
  const folder = mkdtempSync(join(tmpdir(), "dramaturg-bench-run-page-"));
  try {
    const store = await openStore("memory://");
    const built = performance.now();
    const { runId, evaluationId } = await buildLargeRunStore(store, join(folder, "a"), { messages });
    const build_ms = performance.now() - built;
    const app = createServerApp({ store });
    const path = `/runs/${runId}`;
    const times: number[] = [];
    await bytesOf(app, path); // warm: the first request compiles the page's code
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      await bytesOf(app, path);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const figures = {
      messages,
      build_ms: Math.round(build_ms),
      page_bytes: await bytesOf(app, path),
      page_gzip_bytes: await bytesOf(app, path, true),
      failures_bytes: await bytesOf(app, `${path}?failures=1`),
      failures_gzip_bytes: await bytesOf(app, `${path}?failures=1`, true),
      window_fragment_bytes: await bytesOf(
        app,
        `${path}/window?dimension=adherence&message=m${messages}&fragment=1`,
      ),
      p50_ms: Math.round(percentile(times, 0.5) * 10) / 10,
      p95_ms: Math.round(percentile(times, 0.95) * 10) / 10,
      requests: REQUESTS,
      static_report_bytes: Buffer.byteLength(await staticReport({ store, evaluationIds: [evaluationId] })),
    };
    await store.close();

    const large = await openStore("memory://");
    const { runId: largeRun } = await buildLargeRunStore(large, join(folder, "b"), {
      messages: largeMessages,
    });
    const largeApp = createServerApp({ store: large });
    await bytesOf(largeApp, `/runs/${largeRun}`);
    const started = performance.now();
    const large_page_bytes = await bytesOf(largeApp, `/runs/${largeRun}`);
    const large_page_ms = Math.round(performance.now() - started);
    await large.close();
    return { ...figures, large_messages: largeMessages, large_page_bytes, large_page_ms };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
