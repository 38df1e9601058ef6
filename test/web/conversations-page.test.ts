// The Conversations list over HTTP (`app.request()`): failures only (a failed run, a low composite or task,
// a failed assertion) with the reasons shown, sortable columns with aria-sort, and bad view parameters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";

let store: Store;
let app: ReturnType<typeof createServerApp>;
const ids = { good: "", low: "", assertion: "", failed: "" };

/** A stored result as the engine keeps it (hand-written: its numbers are chosen, not measured). */
function result(
  job: string,
  { score, task, assertionPassed }: { score: number; task: number; assertionPassed: boolean },
) {
  return {
    format: "dramaturg.conversation-result/v1",
    job,
    difference: null,
    judge: { spec: "fixtures:hand-written", requests: 1, calls: 1, errored: 0 },
    passes: [
      {
        pass: "with_facts",
        tone: 0.9,
        tasks: [{ task: "refund the order", type: "task", score: task, reasoning: "hand-written" }],
        assertions: [{ label: "refund.created", weight: 1, passed: assertionPassed }],
        composite: {
          timing: 1,
          task,
          assertions: assertionPassed ? 1 : 0,
          penalty: 0,
          score,
          formula: "full",
        },
        transcript: {
          with_facts: true,
          turns: [],
          latencies: [],
          tool_calls: [],
          failures: 0,
          ended: "signoff",
        },
      },
    ],
  };
}

async function stored(
  job: string,
  agent: string,
  outcome: ReturnType<typeof result> | "failed",
): Promise<string> {
  const row = await store.evaluations.create({ kind: "conversation", source: job, agents: [agent] });
  await store.evaluations.start(row.id);
  if (outcome === "failed") await store.evaluations.fail(row.id, "the agent did not answer");
  else await store.evaluations.complete(row.id, { result: outcome });
  return row.id;
}

beforeAll(async () => {
  store = await openStore("memory://");
  ids.good = await stored(
    "a-good.yml",
    "desk",
    result("a-good.yml", { score: 0.92, task: 0.9, assertionPassed: true }),
  );
  ids.low = await stored(
    "b-low.yml",
    "desk",
    result("b-low.yml", { score: 0.55, task: 0.4, assertionPassed: true }),
  );
  ids.assertion = await stored(
    "c-assert.yml",
    "bot",
    result("c-assert.yml", { score: 0.8, task: 0.9, assertionPassed: false }),
  );
  ids.failed = await stored("d-failed.yml", "bot", "failed");
  app = createServerApp({ store });
});
afterAll(async () => {
  await store.close();
});

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};
const listed = (text: string) =>
  [...text.matchAll(/<td><a href="\/conversations\/([0-9a-f-]{36})">/g)].map((m) => m[1]);

describe("the conversations list", () => {
  it("failures only lists failed runs, low scores and failed assertions, each with why", async () => {
    expect(listed((await page("/conversations")).text)).toEqual([
      ids.failed,
      ids.assertion,
      ids.low,
      ids.good,
    ]);
    const { text } = await page("/conversations?failures=1");
    expect(listed(text)).toEqual([ids.failed, ids.assertion, ids.low]);
    expect(text).toContain("the run failed");
    expect(text).toContain("With the facts: 1 assertion failed");
    expect(text).toContain("With the facts: composite 0.55 &lt; 0.7");
    expect(text).toContain("With the facts: task refund the order 0.40 &lt; 0.7");
    expect(text).toContain('aria-current="true">Failures only</a>');
  });

  it("failures only keeps the agent filter, and pages on it", async () => {
    const first = await page("/conversations?failures=1&agent=desk&limit=1");
    expect(listed(first.text)).toEqual([ids.low]);
    // The good run of the same agent is past the last failure: no next page.
    expect(first.text).not.toContain('rel="next"');
    const bots = await page("/conversations?failures=1&agent=bot&limit=1");
    expect(listed(bots.text)).toEqual([ids.failed]);
    const next = bots.text.match(/<a rel="next" href="([^"]+)"/)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toMatch(/^\/conversations\?agent=bot&failures=1&cursor=/);
    expect(listed((await page(next!)).text)).toEqual([ids.assertion]);
  });

  it("the lowest composite sorts the page, unscored runs last, aria-sort on the header", async () => {
    const up = await page("/conversations?sort=score&order=asc");
    expect(listed(up.text)).toEqual([ids.low, ids.assertion, ids.good, ids.failed]);
    expect(up.text).toContain(
      '<th class="num" aria-sort="ascending"><a href="/conversations?sort=score&amp;order=desc">Lowest composite ▲</a></th>',
    );
    const down = await page("/conversations?sort=score&order=desc");
    expect(listed(down.text)).toEqual([ids.good, ids.assertion, ids.low, ids.failed]);
    expect(down.text).toContain("Sorted within this page");
    const byJob = await page("/conversations?sort=job&order=asc");
    expect(listed(byJob.text)).toEqual([ids.good, ids.low, ids.assertion, ids.failed]);
  });

  it.each([
    ["sort=latency", "sort"],
    ["sort=job&order=sideways", "order"],
    ["failures=all", "failures"],
  ])("?%s is a 400 naming %s", async (query, parameter) => {
    const { status, text } = await page(`/conversations?${query}`);
    expect(status).toBe(400);
    expect(text).toContain(`The <code>${parameter}</code> parameter`);
  });
});
