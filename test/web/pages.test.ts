// The dashboard's pages as HTML, without a browser (`app.request()`): the first-run message of an empty
// store, escaping of untrusted text, filters carried in links and pagination, bad input, and the token.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluatePersonas } from "../../src/personas/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { seedStore } from "../server/seed-store.ts";
import { useTempDir } from "../temp-dir.ts";

const INJECTION = "test/fixtures/web/injection.transcript.json";
const INJECTION_VERDICTS = "fixtures:test/fixtures/web/injection.judge-fixtures.json";
const TOKEN = "pages-test-token-0123456789abcdef";
const FOUR_FAULTS = "test/fixtures/sessions/four-faults.session.json";

const LIST_PAGES = ["/agents", "/runs", "/sessions", "/conversations", "/corrections"];

let empty: Store;
let store: Store;
let app: ReturnType<typeof createServerApp>;
let injectionRun: string;
const dir = useTempDir("dramaturg-pages-");

/** The injection fixtures with persona-style two points lower (hand-written, changed by hand here). */
function lowerStyleVerdicts(): string {
  const fixtures = JSON.parse(readFileSync(INJECTION_VERDICTS.slice("fixtures:".length), "utf8"));
  for (const v of fixtures.verdicts) if (v.proposition_id === "persona-style") v.score -= 2;
  const file = join(dir(), "lower-style.judge-fixtures.json");
  writeFileSync(file, JSON.stringify(fixtures));
  return `fixtures:${file}`;
}

beforeAll(async () => {
  empty = await openStore("memory://");
  store = await openStore("memory://");
  await seedStore(store, { runs: 3 });
  await store.messages.import("injection", JSON.parse(readFileSync(INJECTION, "utf8")).messages);
  const result = await evaluatePersonas({
    transcript: INJECTION,
    dimensions: ["adherence"],
    agents: ["mallory"],
    judge: INJECTION_VERDICTS,
    store,
  });
  injectionRun = result.runs[0]!.run_id;
  // A second, later run of the same agent in which one built-in proposition fell.
  await evaluatePersonas({
    transcript: INJECTION,
    dimensions: ["adherence"],
    agents: ["mallory"],
    judge: lowerStyleVerdicts(),
    store,
  });
  app = createServerApp({ store });
});
afterAll(async () => {
  await empty.close();
  await store.close();
});

const page = async (path: string, server = app) => {
  const response = await server.request(path);
  return { status: response.status, headers: response.headers, text: await response.text() };
};

describe("an empty store", () => {
  it.each([
    ["/agents", "dramaturg eval"],
    ["/runs", "dramaturg eval"],
    ["/sessions", "dramaturg session analyze"],
    ["/conversations", "dramaturg converse"],
    ["/corrections", "dramaturg simulate"],
  ])("%s says what to run to fill it", async (path, command) => {
    const { status, text } = await page(path, createServerApp({ store: empty }));
    expect(status).toBe(200);
    expect(text).toContain("Nothing here yet");
    expect(text).toContain(command);
  });
});

describe("the pages", () => {
  it("/ redirects to the agents page", async () => {
    const response = await app.request("/");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/agents");
  });

  it.each(LIST_PAGES)("%s is HTML under the strict CSP, with no inline script or style", async (path) => {
    const { status, headers, text } = await page(path);
    expect(status).toBe(200);
    expect(headers.get("content-type")).toMatch(/^text\/html/);
    expect(headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(text).not.toMatch(/\sstyle=/);
    expect(text).toContain('<script src="/assets/dashboard.js" defer></script>');
  });

  it("the stylesheet and the script are served from the package", async () => {
    const css = await app.request("/assets/dashboard.css");
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(await css.text()).toContain(".drift-chart");
    const js = await app.request("/assets/dashboard.js");
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
  });

  it("a run's page shows injected markup as escaped text, in messages and reasoning alike", async () => {
    const { text } = await page(`/runs/${injectionRun}`);
    expect(text).toContain("Morning all &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(text).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(text).toContain("&lt;a href=&quot;javascript:alert(1)&quot;&gt;here&lt;/a&gt;");
    expect(text).toContain("pasting markup such as &lt;script&gt;");
    expect(text).not.toContain("<script>alert(1)");
    expect(text).not.toContain("<img src=x");
    expect(text).not.toMatch(/href="javascript:/i);
  });

  it("the agents page escapes an agent's name", async () => {
    const { text } = await page("/agents");
    expect(text).toContain("Mallory &lt;img src=x onerror=alert(1)&gt;");
    expect(text).not.toContain("<img src=x");
  });

  it("the agents page measures an agent without a baseline against its run before", async () => {
    const { text } = await page("/agents");
    const mallory = text.slice(text.indexOf('<a href="/agents/mallory">')).split("</tr>")[0]!;
    expect(mallory).toMatch(/<td class="num[^"]*" title="against the previous run">adherence −\d\.\d/);
  });

  it("an agent's page draws its drift chart, with one line per dimension it was scored on", async () => {
    const { text } = await page("/agents/marta");
    expect(text).toContain('<svg class="drift-chart"');
    expect(text.match(/<polyline /g)).toHaveLength(2);
    expect(text).toContain('data-dimension="adherence"');
    expect(text).toContain('data-dimension="fluency"');
  });

  it("an agent's page lists the propositions that fell since its previous run, with the built-in advice", async () => {
    const { text } = await page("/agents/mallory");
    const fallen = text.slice(text.indexOf('<table class="fallen">'));
    expect(fallen).toContain("adherence / persona-style");
    expect(fallen).not.toContain("persona-traits");
    // Each fallen proposition leads to the latest run's verdicts of it.
    const [latest] = await store.runs.list({ agent: "mallory", status: "completed", limit: 1 });
    expect(fallen).toContain(
      `<a href="/runs/${latest!.id}?p=adherence%2Fpersona-style#p-adherence-persona-style">adherence / persona-style</a>`,
    );
    // The built-in recommendation, with the agent's (escaped) name in it.
    expect(fallen).toContain("Write in the persona&#39;s own voice");
    expect(text).not.toContain("<img src=x");
  });

  it("the runs page keeps its filters in the next page's link, and that page continues the list", async () => {
    const first = await page("/runs?agent=marta&limit=2");
    const next = first.text.match(/<a rel="next" href="([^"]+)"/)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toMatch(/^\/runs\?agent=marta&cursor=/);
    const ids = (text: string) => [...text.matchAll(/<a href="\/runs\/([0-9a-f-]{36})">/g)].map((m) => m[1]);
    expect(ids(first.text)).toHaveLength(2);
    const second = await page(`${next}&limit=2`);
    expect(ids(second.text)).toHaveLength(1);
    expect(ids(first.text)).not.toContain(ids(second.text)[0]);
  });

  it("the filter form shows the filters the URL gave", async () => {
    const { text } = await page("/runs?agent=bob&since=2020-01-01");
    expect(text).toContain('name="agent" value="bob"');
    expect(text).toContain('name="since" value="2020-01-01"');
    expect(text).not.toContain(">marta</a>");
  });

  it("an empty date filter shows the format it takes, not a date that reads as a value set", async () => {
    const { text } = await page("/runs");
    expect(text).toMatch(/name="since" value="" placeholder="YYYY-MM-DD"/);
    expect(text).not.toMatch(/placeholder="\d{4}-\d{2}-\d{2}"/);
  });

  it("a bad filter is a 400 page naming the parameter", async () => {
    const { status, text } = await page("/runs?since=yesterday");
    expect(status).toBe(400);
    expect(text).toContain("<code>since</code>");
    expect(text).toContain("ISO 8601");
  });

  it("an id nobody stored is a 404 page", async () => {
    const { status, text } = await page("/runs/00000000-0000-4000-8000-000000000000");
    expect(status).toBe(404);
    expect(text).toContain("Not found");
  });

  it("the corrections page shows the regeneration failure rate and the feedback of a retry", async () => {
    const { text } = await page("/corrections");
    expect(text).toContain("Regeneration failure rate");
    expect(text).toContain("67 %"); // two of the three seeded checks failed their first attempt
    expect(text).toContain("hand-written");
  });

  it("the conversations page filters by the agent under test, kept in the filter form", async () => {
    const mine = await page("/conversations?agent=refund-bot");
    expect(mine.text).toContain("refund-desk.yml");
    expect(mine.text).toContain('name="agent" value="refund-bot"');
    const other = await page("/conversations?agent=marta");
    expect(other.text).not.toContain("refund-desk.yml");
    expect(other.text).toContain("No conversation matches these filters.");
  });

  it("the sessions page filters by an agent of the session and links each agent to its filter", async () => {
    const analysis = await store.evaluations.create({
      kind: "session",
      source: "filter.json",
      agents: ["triage"],
    });
    const mine = await page("/sessions?agent=triage");
    expect(mine.text).toContain(`/sessions/${analysis.id}`);
    expect(mine.text).toContain('href="/sessions?agent=triage"');
    expect((await page("/sessions?agent=nobody")).text).toContain(
      "No session analysis matches these filters.",
    );
  });

  it("a session's tool findings are shown beside the step whose call they are about", async () => {
    const posted = await app.request("/api/sessions/analyze?judge=none", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: readFileSync(FOUR_FAULTS, "utf8"),
    });
    const { tool_validation: findings } = (await posted.json()) as { tool_validation: { path: string }[] };
    expect(findings.length).toBeGreaterThan(0);
    // A one-session analysis is the seed's document, which has no id: the newest stored analysis is it.
    const [stored] = await store.evaluations.list({ kind: "session", limit: 1 });
    const { text } = await page(`/sessions/${stored!.id}`);
    const steps = [...text.matchAll(/<li class="step with-findings"[^>]*>([\s\S]*?)<\/ul>\n<\/li>/g)].map(
      (m) => m[1]!,
    );
    expect(steps.length).toBeGreaterThan(0);
    // Each finding sits in a step that shows the call it names.
    for (const step of steps) expect(step).toMatch(/<p class="tool-call"><code>/);
    for (const f of findings) expect(steps.join("")).toContain(f.path);
    expect(text).toContain('<ol class="conversation">');
  });

  it("a conversation stored without some of its parts still shows its passes", async () => {
    const [conversation] = await store.evaluations.list({ kind: "conversation" });
    const { status, text } = await page(`/conversations/${conversation!.id}`);
    expect(status).toBe(200);
    expect(text.match(/<section class="pass"/g)).toHaveLength(1);
    expect(text).toContain("refund-desk.yml");
    // A measured latency in whole milliseconds, not the float it was measured as.
    expect(text).toContain("agent · 104 ms");
    expect(text).not.toContain("103.658");
  });
});

describe("a server started with a token", () => {
  it.each([...LIST_PAGES, "/agents/marta", "/"])("%s without the token is a 401", async (path) => {
    const guarded = createServerApp({ store, token: TOKEN });
    const { status, text } = await page(path, guarded);
    expect(status).toBe(401);
    expect(text).not.toContain(TOKEN);
  });

  it("a page with the bearer token is served", async () => {
    const guarded = createServerApp({ store, token: TOKEN });
    const response = await guarded.request("/agents", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
  });
});

describe("issue 38's faults of filters, bad input and first-run hints", () => {
  const agentIds = (text: string) =>
    [...text.matchAll(/<a href="\/agents\/([^"]+)">/g)].map((m) => decodeURIComponent(m[1]!));

  it("/agents?agent= matches part of the id or of the display name, ignoring case", async () => {
    expect(agentIds((await page("/agents?agent=MAR")).text)).toEqual(["marta"]);
    // "onerror" is only in Mallory's display name, not in its id.
    expect(agentIds((await page("/agents?agent=OnError")).text)).toEqual(["mallory"]);
  });

  it("/runs?agent= matches the same way as /agents?agent=", async () => {
    const runAgents = async (path: string) => [
      ...new Set([...(await page(path)).text.matchAll(/<td><a href="\/agents\/([^"]+)">/g)].map((m) => m[1])),
    ];
    await expect(runAgents("/runs?agent=MAR")).resolves.toEqual(["marta"]);
    await expect(runAgents("/runs?agent=do")).resolves.toEqual([]);
    await expect(runAgents("/runs?agent=onerror")).resolves.toEqual(["mallory"]);
    await expect(runAgents("/runs?agent=B")).resolves.toEqual(["bob"]);
  });

  it("a cursor the dashboard did not give is a 400 on an agent's page, as in the API", async () => {
    const { status, text } = await page("/agents/bob?cursor=garbage");
    expect(status).toBe(400);
    expect(text).toContain("<code>cursor</code>");
    expect((await app.request("/api/runs?cursor=garbage")).status).toBe(400);
  });

  it("a bad id in the path links back to the section's list, not to itself", async () => {
    const { status, text } = await page("/runs/not-a-uuid");
    expect(status).toBe(400);
    expect(text).toContain("<code>id</code>");
    expect(text).toContain('<a href="/runs">');
    expect(text).not.toContain('href="/runs/not-a-uuid"');
    // A bad filter still links to the page without its filters.
    expect((await page("/runs?since=yesterday")).text).toContain('<a href="/runs">Without the filters</a>');
  });

  it("an agent without a baseline says so and how to set one, instead of an all-clear", async () => {
    const { text } = await page("/agents/marta");
    const regressions = text.slice(text.indexOf("<h2>Regressions</h2>"));
    expect(regressions).not.toContain("no dimension is more than");
    expect(regressions).toContain("No baseline yet, so nothing can be called a regression");
    expect(regressions).toContain("dramaturg baseline transcript.json --agent marta --judge");
  });

  it("an agent with a baseline and no regression gets the all-clear", async () => {
    const withBaseline = await openStore("memory://");
    try {
      await seedStore(withBaseline, { runs: 2 });
      const [oldest] = (await withBaseline.runs.list({ agent: "bob", status: "completed" })).slice(-1);
      await withBaseline.runs.markBaseline(oldest!.id);
      const { text } = await page("/agents/bob", createServerApp({ store: withBaseline }));
      expect(text).toContain("None: no dimension is more than 1 below its baseline");
      expect(text).not.toContain("No baseline yet");
    } finally {
      await withBaseline.close();
    }
  });

  it("the empty /sessions page's curl names no fixed port and sends JSON", async () => {
    const { text } = await page("/sessions", createServerApp({ store: empty }));
    const curl = text.split("\n").find((line) => line.startsWith("curl "));
    expect(curl).toContain("-H &#39;Content-Type: application/json&#39;");
    expect(curl).toContain("http://HOST:PORT/api/sessions/analyze");
    expect(text).toContain("HOST:PORT: this server&#39;s address");
    expect(text).not.toContain("4477");
  });

  it("numeric columns have right-aligned headers like their numbers", async () => {
    const agents = (await page("/agents")).text;
    expect(agents).toContain('<th class="num">Overall</th>');
    expect(agents).toContain('<th class="num">adherence</th>');
    const agent = (await page("/agents/mallory")).text;
    expect(agent).toContain(
      '<th class="num">Latest</th><th class="num">Previous</th><th class="num">Baseline</th>',
    );
    expect(agent).toContain('<th class="num">Before</th><th class="num">Now</th>');
    const css = await (await app.request("/assets/dashboard.css")).text();
    expect(css).toMatch(/th\.num,\s*td\.num\s*\{\s*text-align: right;/);
  });
});
