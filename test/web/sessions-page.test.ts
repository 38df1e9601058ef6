// The Sessions pages over HTTP (`app.request()`), over sessions analysed here: the trace of a session (its
// waterfall, tool arguments and results in full, handoffs, errors where they happened), turns numbered as the session numbers them
// everywhere, what `--judge none` does not claim, the failures-only views and the sortable columns.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { analyzeSession } from "../../src/sessions/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { filteredPage } from "../../src/web/list-view.ts";

const TRACE = "test/fixtures/web/session-trace.session.json";
const REFUND = "examples/sessions/refund.session.json";
const REFUND_VERDICTS = "fixtures:examples/sessions/refund.judge-fixtures.json";

let store: Store;
let app: ReturnType<typeof createServerApp>;
/** Evaluation ids: the trace (judge none; a tool error and schema failures), the refund judged (a metric below its threshold), the refund unjudged (nothing failed). */
const ids = { trace: "", judged: "", clean: "" };

async function stored(file: string, judge: string): Promise<string> {
  await analyzeSession(file, { judge, store });
  const [row] = await store.evaluations.list({ kind: "session", limit: 1 });
  return row!.id;
}

beforeAll(async () => {
  store = await openStore("memory://");
  ids.clean = await stored(REFUND, "none");
  ids.trace = await stored(TRACE, "none");
  ids.judged = await stored(REFUND, REFUND_VERDICTS);
  app = createServerApp({ store });
});
afterAll(async () => {
  await store.close();
});

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

/** The markup of the turn with this turn_index on a one-analysis page (the session's turns are 0, 1, 2). */
const turn = (text: string, n: number) => {
  const part = text.split('<li class="turn" id="s1-turn-')[n + 1] ?? "";
  expect(part.startsWith(`${n}">`)).toBe(true);
  return part;
};

describe("a session as a trace", () => {
  it("each turn has a waterfall whose bars are placed from the latencies in order, and says so", async () => {
    const { text } = await page(`/sessions/${ids.trace}`);
    expect(text).toContain("Positions are reconstructed from the latencies");
    const first = turn(text, 0);
    expect(first).toContain('aria-label="Turn 0: 5 bars on a time axis of 1,500 ms"');
    // planner 600 ms, then executor 900 ms: the executor starts at 600 / 1,500 of the axis.
    expect(first).toMatch(
      /planner · 600 ms<\/text>\n<a href="#s1-turn-0-1"><rect class="bar" x="0\.000%" y="18" width="40\.000%"/,
    );
    expect(first).toMatch(
      /executor · 900 ms<\/text>\n<a href="#s1-turn-0-2"><rect class="bar" x="40\.000%" y="120" width="60\.000%"/,
    );
    // The executor's failed call starts with its interaction and lasts its own 800 ms.
    expect(first).toMatch(/<a href="#s1-turn-0-2-1"><rect class="bar" x="40\.000%" y="154" width="53\.333%"/);
    expect(first).toContain('<g class="row handoff">');
  });

  it("a tool call shows its arguments and its result in full, pretty-printed and escaped", async () => {
    const { text } = await page(`/sessions/${ids.trace}`);
    const lookup = text.match(/<li class="step" id="s1-turn-0-1-2">([\s\S]*?)<\/li>/)?.[1] ?? "";
    expect(lookup).toContain('<details class="tool-io">');
    expect(lookup).toContain(
      '<pre class="tool-arguments">{\n  &quot;order_id&quot;: &quot;777&quot;\n}</pre>',
    );
    expect(lookup).toContain("&quot;sku&quot;: &quot;BOOK-42&quot;");
    expect(lookup).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(text).not.toContain("<img src=x");
    expect(text).not.toContain("<script>alert(1)");
  });

  it("a handoff shows who takes over and the context passed", async () => {
    const { text } = await page(`/sessions/${ids.trace}`);
    expect(text).toContain(
      'hands off to <strong>executor</strong> with this context:</p><pre class="handoff-context">Order 777 lost in transit; refund 19.90 in full.</pre>',
    );
  });

  it("errors are marked red where they happened: on the bar, and on the step with the message", async () => {
    const { text } = await page(`/sessions/${ids.trace}`);
    // The tool that failed and the call that broke its schema: red bars, each with its mark.
    expect(turn(text, 0)).toMatch(
      /<g class="row tool error"><title>→ issue_refund · 800 ms · ✕ issue_refund failed/,
    );
    expect(turn(text, 1)).toMatch(
      /<g class="row tool error"><title>→ send_email · 90 ms · ✕ send_email: cc not declared/,
    );
    expect(text.match(/<circle class="error-mark"/g)).toHaveLength(2);
    expect(turn(text, 0)).toContain("✕ The tool failed: payment gateway timeout after 800 ms");
    expect(turn(text, 1)).toContain('<li class="step with-findings" id="s1-turn-1-1-1">');
    expect(turn(text, 2)).not.toMatch(/error-mark|step-error|with-findings/);
  });

  it("an analysis without the session's turns (an older version's) shows no timeline and still renders", async () => {
    const old = await openStore("memory://");
    const row = await old.evaluations.create({ kind: "session", source: "old.json", agents: ["planner"] });
    await old.evaluations.start(row.id);
    await old.evaluations.complete(row.id, { result: await store.evaluations.result(ids.trace) });
    const response = await createServerApp({ store: old }).request(`/sessions/${row.id}`);
    const { status, text } = { status: response.status, text: await response.text() };
    await old.close();
    expect(status).toBe(200);
    expect(text).not.toContain('<svg class="waterfall"');
    expect(text).toContain("issue_refund failed: payment gateway timeout");
  });
});

describe("turn numbers", () => {
  it("the Turns table, the timeline, Issues and Recommendations all number turns as the session does", async () => {
    const { text } = await page(`/sessions/${ids.trace}`);
    expect(text).toContain("Tool failure in turn 0 (issue_refund)");
    expect(text).toContain("Tool parameter hallucination in turn 1 (send_email: cc)");
    expect(text).toContain("<li>turn 1: hallucinated_parameter (MEDIUM)");
    expect(text).toContain('<td class="num"><a href="#s1-turn-0">0</a></td>');
    expect(text).toContain("<h4>Turn 2</h4>");
    // No turn is numbered from 1 anywhere: the session's third turn (turn_index 2) is turn 2 everywhere.
    expect(text).not.toMatch(/turn 3\b|Turn 3\b|turn-3\b/);
  });
});

describe("a session analysed with --judge none", () => {
  it("claims no metric at or above its threshold and shows the bad turns as unknown, saying why", async () => {
    const { text } = await page(`/sessions/${ids.clean}`);
    expect(text).not.toContain("every metric is at or above its threshold");
    expect(text).not.toContain("every judged metric");
    expect(text).toContain("None: no metric was judged");
    expect(text).toContain(
      '<span class="label">Bad turns</span><span class="value">—</span><span class="muted">not judged (judge none)</span>',
    );
    expect(text).not.toMatch(/Bad turns<\/span><span class="value">0 \/ 2/);
  });

  it("a judged session still counts its bad turns and names its judged metrics", async () => {
    const { text } = await page(`/sessions/${ids.judged}`);
    expect(text).toContain('<span class="label">Bad turns</span><span class="value">0 / 2</span>');
    expect(text).toContain("Agent planner&#39;s reasoning could be more structured");
  });
});

describe("only the turns with an issue", () => {
  it("?failures=1 on a session keeps the turns with a finding, a bad turn or a low metric", async () => {
    const all = await page(`/sessions/${ids.trace}`);
    expect(all.text).toContain('id="s1-turn-2"');
    const only = await page(`/sessions/${ids.trace}?failures=1`);
    expect(only.text).toContain('id="s1-turn-0"');
    expect(only.text).toContain('id="s1-turn-1"');
    expect(only.text).not.toContain('id="s1-turn-2"');
    expect(only.text).toContain("Only the turns with an issue: 2 of 3.");
    expect(only.text).toMatch(
      /<a href="\/sessions\/[^"?]+\?failures=1" aria-current="true">Only turns with an issue<\/a>/,
    );
  });

  it("a session with no issue says that no turn has one", async () => {
    const { text } = await page(`/sessions/${ids.clean}?failures=1`);
    expect(text).toContain("No turn has an issue.");
  });

  it("a bad failures value is a 400 naming the parameter", async () => {
    const { status, text } = await page(`/sessions/${ids.trace}?failures=yes`);
    expect(status).toBe(400);
    expect(text).toContain("The <code>failures</code> parameter");
  });
});

describe("the sessions list", () => {
  const listed = (text: string) =>
    [...text.matchAll(/<td><a href="\/sessions\/([0-9a-f-]{36})">/g)].map((m) => m[1]);

  it("failures only lists the analyses with a low metric, a tool error or a schema failure, with why", async () => {
    const { text } = await page("/sessions?failures=1");
    expect(listed(text)).toEqual([ids.judged, ids.trace]);
    expect(text).toContain("planner reasoning 0.67 &lt; 0.7");
    expect(text).toContain("2 tool calls breaking the tool&#39;s schema");
    expect(text).toContain("1 tool error");
    expect(listed((await page("/sessions")).text)).toEqual([ids.judged, ids.trace, ids.clean]);
  });

  it("failures only pages correctly: each page after the last row the one before looked at", async () => {
    const first = await page("/sessions?failures=1&limit=1");
    expect(listed(first.text)).toEqual([ids.judged]);
    const next = first.text.match(/<a rel="next" href="([^"]+)"/)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toMatch(/failures=1/);
    const second = await page(next!);
    expect(listed(second.text)).toEqual([ids.trace]);
    // The clean analysis after it is not a failure: the last page says so by having no next link.
    expect(second.text).not.toContain('rel="next"');
  });

  it("a column sorts the page, aria-sort on its header, numeric headers right-aligned like their cells", async () => {
    const { text } = await page("/sessions?sort=findings&order=desc");
    expect(listed(text)).toEqual([ids.trace, ids.judged, ids.clean]);
    expect(text).toContain(
      '<th class="num" aria-sort="descending"><a href="/sessions?sort=findings&amp;order=asc">Tool findings ▼</a></th>',
    );
    expect(text).toContain(
      '<th class="num"><a href="/sessions?sort=overall&amp;order=asc">Overall (lowest)</a></th>',
    );
    expect(text).toContain("Sorted within this page");
    const up = await page("/sessions?sort=source&order=asc");
    // Both refund analyses have one source: a tie keeps the store's order, newest first.
    expect(listed(up.text)).toEqual([ids.judged, ids.clean, ids.trace]);
    expect(up.text).toContain('aria-sort="ascending"');
  });

  it("sorting keeps the filters and the view in its links", async () => {
    const { text } = await page("/sessions?failures=1&agent=planner&sort=created&order=asc");
    expect(listed(text)).toEqual([ids.trace, ids.judged]);
    expect(text).toContain('href="/sessions?agent=planner&amp;failures=1&amp;sort=findings&amp;order=asc"');
  });

  it.each([
    ["sort=bogus", "sort"],
    ["sort=overall&order=up", "order"],
    ["order=asc", "order"],
    ["failures=true", "failures"],
  ])("?%s is a 400 naming %s", async (query, parameter) => {
    const { status, text } = await page(`/sessions?${query}`);
    expect(status).toBe(400);
    expect(text).toContain(`The <code>${parameter}</code> parameter`);
  });
});

describe("a failures-only page filled from the store's pages", () => {
  const rows = Array.from({ length: 30 }, (_, i) => ({
    id: `r${String(i).padStart(2, "0")}`,
    created_at: new Date(Date.UTC(2026, 0, 30 - i)).toISOString(),
    bad: i % 7 === 0,
  }));
  const list = async (after: { id: string } | undefined, n: number) => {
    const from = after ? rows.findIndex((r) => r.id === after.id) + 1 : 0;
    return rows.slice(from, from + n);
  };

  it("a full page's cursor is the last row looked at before the next match: no row repeats or is skipped", async () => {
    const seen: string[] = [];
    let after: { id: string; created_at: string } | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const got = await filteredPage({ limit: 2, after, list, keep: (r) => r.bad });
      seen.push(...got.rows.map((r) => r.id));
      if (!got.next) break;
      after = { id: JSON.parse(Buffer.from(got.next, "base64url").toString("utf8"))[1], created_at: "" };
    }
    expect(seen).toEqual(["r00", "r07", "r14", "r21", "r28"]);
  });

  it("stops at its scan limit with a cursor that continues where it stopped", async () => {
    const first = await filteredPage({ limit: 10, after: undefined, list, keep: (r) => r.bad, maxScan: 12 });
    expect(first.rows.map((r) => r.id)).toEqual(["r00", "r07"]);
    expect(first).toMatchObject({ scanned: 12, stopped: true });
    const after = JSON.parse(Buffer.from(first.next!, "base64url").toString("utf8"))[1];
    expect(after).toBe("r11");
    const rest = await filteredPage({
      limit: 10,
      after: { id: after, created_at: "" },
      list,
      keep: (r) => r.bad,
    });
    expect(rest.rows.map((r) => r.id)).toEqual(["r14", "r21", "r28"]);
    expect(rest.next).toBeUndefined();
  });
});

describe("the filter form keeps the view", () => {
  it("failures only and the sort ride along as hidden fields, so filtering does not reset them", async () => {
    const { text } = await page("/sessions?failures=1&sort=overall&order=asc");
    const form = text.match(/<form class="filters"[\s\S]*?<\/form>/)?.[0] ?? "";
    expect(form).toContain('<input type="hidden" name="failures" value="1">');
    expect(form).toContain('<input type="hidden" name="sort" value="overall">');
    expect(form).toContain('<input type="hidden" name="order" value="asc">');
    const plain = await page("/sessions");
    expect(plain.text).not.toMatch(/type="hidden"/);
  });
});
