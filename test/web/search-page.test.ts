// The search page and the header's search box, as HTML (`app.request()`): each kind's hits with links to
// their pages, marked words, untrusted text escaped (messages, personas and the query itself), and bad input.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";

const INJECTION = JSON.parse(readFileSync("test/fixtures/web/injection.transcript.json", "utf8"));
const TOKEN = "search-page-test-token-0123456789abcdef";

let store: Store;
let app: ReturnType<typeof createServerApp>;
let runId: string;
let sessionId: string;

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

beforeAll(async () => {
  store = await openStore("memory://");
  await store.agents.upsert(INJECTION.agents);
  await store.messages.import("injection", INJECTION.messages);
  await store.messages.import("radio.json", [
    {
      id: "r1",
      sender: "ines",
      channel: "studio",
      text: `${"The schedule moves the news to the hour and the music after it. ".repeat(6)}The jingle plays at noon. ${"Volunteers read the weather. ".repeat(6)}`,
      at: "2026-11-21T10:00:00Z",
    },
    {
      id: "r2",
      sender: "listener",
      channel: "phone-in",
      text: "Play the jingle again!",
      at: "2026-11-21T10:05:00Z",
    },
  ]);
  const evaluation = await store.evaluations.create({ source: "injection" });
  runId = (
    await store.runs.create({
      agent_id: "ines",
      evaluation_id: evaluation.id,
      dimensions: ["adherence"],
      sample_size: 1,
    })
  ).id;
  sessionId = (
    await store.evaluations.create({
      kind: "session",
      source: "examples/sessions/studio.session.json",
      agents: ["ines"],
    })
  ).id;
  app = createServerApp({ store });
});
afterAll(async () => {
  await store.close();
});

describe("the header's search box", () => {
  it("is on every page: a labelled GET form to /search with one field q", async () => {
    for (const path of [
      "/agents",
      "/agents/ines",
      "/runs",
      `/runs/${runId}`,
      "/sessions",
      "/conversations",
      "/corrections",
      "/search",
    ]) {
      const { status, text } = await page(path);
      expect(status, path).toBe(200);
      const form =
        /<form class="site-search" method="get" action="\/search" role="search">(.*?)<\/form>/s.exec(text);
      const inner = form?.[1] ?? "";
      expect(form, path).not.toBeNull();
      expect(inner).toContain('<label class="visually-hidden" for="site-search">');
      expect(inner).toContain('<input id="site-search" type="search" name="q"');
      expect(inner.match(/<input/g)).toHaveLength(1);
    }
  });

  it("is not on the sign-in page, whose visitor could not search", async () => {
    const guarded = createServerApp({ store, token: TOKEN });
    const response = await guarded.request("/agents", { headers: { Accept: "text/html" } });
    const text = await response.text();
    expect(text).toContain('action="/login"');
    expect(text).not.toContain("site-search");
  });
});

describe("GET /search", () => {
  it("lists each kind's hits, linked to their pages", async () => {
    const { status, text } = await page("/search?q=ines");
    expect(status).toBe(200);
    expect(text).toContain('<a href="/agents/ines">Inés Okafor</a>');
    expect(text).toContain(`<a href="/runs/${runId}"><code>${runId.slice(0, 8)}</code></a>`);
    expect(text).toContain(`<a href="/sessions/${sessionId}"><code>${sessionId.slice(0, 8)}</code></a>`);
  });

  it("shows a message's snippet with the matched word marked, its sender's page linked when an agent", async () => {
    const { text } = await page("/search?q=Mallory");
    // m2 ("Mallory, what is that?") is Inés's: her page is the message's home.
    expect(text).toContain("<mark>Mallory</mark>, what is that?");
    expect(text).toMatch(/<a href="\/agents\/ines">ines<\/a> in planning/);
  });

  it("links no page for a sender who is no agent", async () => {
    const { text } = await page("/search?q=again");
    expect(text).toContain("<span>listener</span> in phone-in");
    expect(text).not.toContain('href="/agents/listener"');
  });

  it("cuts a long message around its match and keeps the whole of it one click away", async () => {
    const { text } = await page("/search?q=jingle");
    expect(text).toMatch(/<p class="snippet">…[^<]*<mark>jingle<\/mark>[^<]*…<\/p>/);
    expect(text).toContain('<details class="message"><summary>The whole message</summary>');
    expect(text).toContain("Volunteers read the weather. Volunteers");
  });

  it("escapes agent text in snippets, names and personas, and the query it echoes", async () => {
    const { status, text } = await page(
      `/search?q=${encodeURIComponent('picture or "><script>alert(9)</script>')}`,
    );
    expect(status).toBe(200);
    expect(text).not.toMatch(/<script>alert|<img src=x/);
    // Words of either alternative are marked, inside the escaped text.
    expect(text).toContain("Just a <mark>picture</mark>: &lt;img src=x onerror=<mark>alert</mark>(1)&gt;");
    // The query echoed in the field and the title, escaped.
    expect(text).toContain('value="picture or &quot;&gt;&lt;script&gt;alert(9)&lt;/script&gt;"');
    const all = await page("/search?q=prankster");
    expect(all.text).toContain("Mallory &lt;img src=x onerror=alert(1)&gt;</a>");
    expect(all.text).toContain("A <mark>prankster</mark> who pastes markup into chat &lt;script&gt;");
  });

  it("says when nothing matches", async () => {
    const { status, text } = await page("/search?q=zeppelin");
    expect(status).toBe(200);
    expect(text).toContain("Nothing matches <strong>zeppelin</strong>.");
  });

  it("offers more when a kind has more hits than shown", async () => {
    const { text } = await page("/search?q=the&limit=1");
    expect(text).toContain('<a href="/search?q=the&amp;limit=100">show up to 100</a>');
  });

  it("without q shows the form alone", async () => {
    const { status, text } = await page("/search");
    expect(status).toBe(200);
    expect(text).toContain('<form class="search-form" method="get" action="/search" role="search">');
    expect(text).not.toContain("<h2>");
  });

  it("an empty, over-long or exclusions-only q is a 400 page naming q", async () => {
    for (const q of ["", "   ", "x".repeat(201), "-picture"]) {
      const { status, text } = await page(`/search?q=${encodeURIComponent(q)}`);
      expect(status, q).toBe(400);
      expect(text, q).toContain("The <code>q</code> parameter:");
    }
    const limit = await page("/search?q=jingle&limit=101");
    expect(limit.status).toBe(400);
    expect(limit.text).toContain("The <code>limit</code> parameter:");
  });
});
