// search: the dashboard's search over agents, runs, session analyses and messages — full-text on PGlite and
// PostgreSQL (the same SQL), word by word in memory — and the query syntax and snippets both share.
import { beforeAll, describe, expect, test } from "vitest";
import { InputError, type Message } from "../../src/core/index.ts";
import type { RunRow, SearchResults, Store } from "../../src/store/index.ts";
import {
  MESSAGE_SEARCH,
  parseSearchQuery,
  searchQueryProblem,
  snippetOf,
  uuidPrefixRange,
} from "../../src/store/search.ts";
import { describeStore } from "./backends.ts";

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

const MESSAGES: Message[] = [
  { id: "m1", sender: "marta", channel: "kitchen", text: "Garlic. More garlic, always GARLIC.", at: at(0) },
  { id: "m2", sender: "bob", channel: "kitchen", text: "We are out of garlic today.", at: at(1) },
  {
    id: "m3",
    sender: "marta",
    channel: "dm-bob",
    recipient: "bob",
    text: "Buy saffron and basil.",
    at: at(2),
  },
  { id: "m4", sender: "guest", channel: "lobby", text: "Is the kitchen open for garlic lovers?", at: at(3) },
  { id: "m5", sender: "bob", channel: "lobby", text: "The basil is out, the saffron is in.", at: at(4) },
  {
    id: "m6",
    sender: "mallory",
    channel: "lobby",
    text: "Try <b>zucchini</b> <script>alert(1)</script> now",
    at: at(5),
  },
  {
    id: "m7",
    sender: "bob",
    channel: "lobby",
    text: `${"The menu changes with the seasons and the market. ".repeat(8)}Tonight: paprika stew. ${"Reservations are taken at the door only. ".repeat(6)}`,
    at: at(6),
  },
];

/** The ids of a kind's hits. */
const ids = (results: SearchResults, kind: "agents" | "runs" | "sessions" | "messages") =>
  results[kind].hits.map((h) => h.id);

describeStore("search", ({ store }) => {
  let martaRun: RunRow;
  let sessionId: string;

  beforeAll(async () => {
    const s: Store = store();
    await s.agents.upsert([
      { id: "marta", name: "Marta Ruiz", persona: "Head chef who believes in garlic and loud kitchens." },
      {
        id: "bob",
        name: "Bob",
        persona: { role: "sous-chef", style: "Calm, dry humour; counts the basil." },
      },
      { id: "mallory", name: "Mallory <b>", persona: "Pastes markup into chat." },
    ]);
    await s.messages.import("kitchen.json", MESSAGES);
    const evaluation = await s.evaluations.create({ source: "kitchen.json" });
    martaRun = await s.runs.create({
      agent_id: "marta",
      evaluation_id: evaluation.id,
      dimensions: ["adherence"],
      sample_size: 3,
    });
    await s.runs.create({
      agent_id: "bob",
      evaluation_id: evaluation.id,
      dimensions: ["adherence"],
      sample_size: 2,
    });
    sessionId = (
      await s.evaluations.create({
        kind: "session",
        source: "examples/sessions/refund.session.json",
        agents: ["planner", "marta"],
      })
    ).id;
    await s.evaluations.create({ kind: "session", source: "traces/otlp-42.json", agents: ["executor"] });
  });

  const search = (
    q: string,
    more: { limit?: number; kinds?: ("agent" | "run" | "session" | "message")[] } = {},
  ) => store().search.query({ q, ...more });

  test("a word finds the messages that hold it, whatever its case, with it marked in the snippet", async () => {
    const results = await search("Garlic");
    expect(ids(results, "messages").sort()).toEqual(["m1", "m2", "m4"]);
    const first = results.messages.hits.find((h) => h.id === "m2")!;
    expect(first.snippet).toEqual([
      { text: "We are out of ", match: false },
      { text: "garlic", match: true },
      { text: " today.", match: false },
    ]);
    expect(first).toMatchObject({
      source: "kitchen.json",
      sender: "bob",
      channel: "kitchen",
      text: MESSAGES[1]!.text,
    });
  });

  test("the message with the word most often ranks first", async () => {
    expect(ids(await search("garlic"), "messages")[0]).toBe("m1");
  });

  test("every word must occur, -word must not, and or gives alternatives", async () => {
    expect(ids(await search("saffron basil"), "messages").sort()).toEqual(["m3", "m5"]);
    expect(ids(await search("saffron -buy"), "messages")).toEqual(["m5"]);
    expect(ids(await search("paprika or zucchini"), "messages").sort()).toEqual(["m6", "m7"]);
  });

  test("a quoted phrase needs its words side by side", async () => {
    expect(ids(await search('"out of garlic"'), "messages")).toEqual(["m2"]);
    expect(ids(await search('"garlic out"'), "messages")).toEqual([]);
  });

  test("a long message is cut around its match, with an ellipsis where it was cut", async () => {
    const [hit] = (await search("paprika")).messages.hits;
    expect(hit!.id).toBe("m7");
    const text = hit!.snippet.map((p) => p.text).join("");
    expect(text.length).toBeLessThan(hit!.text.length);
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("…")).toBe(true);
    expect(hit!.snippet.filter((p) => p.match)).toEqual([{ text: "paprika", match: true }]);
  });

  test("markup in a message is returned as plain text in its snippet, for the page to escape", async () => {
    const [hit] = (await search("zucchini")).messages.hits;
    expect(hit!.snippet.map((p) => p.text).join("")).toBe(MESSAGES[5]!.text);
    expect(hit!.sender_is_agent).toBe(true);
  });

  test("a message from someone who is no stored agent says so", async () => {
    const hit = (await search("lovers")).messages.hits[0]!;
    expect(hit).toMatchObject({ id: "m4", sender: "guest", sender_is_agent: false });
  });

  test("agents are found by a word of their name or persona, or by the start of their id", async () => {
    expect(ids(await search("ruiz"), "agents")).toEqual(["marta"]);
    expect(ids(await search("humour"), "agents")).toEqual(["bob"]);
    expect(ids(await search("mar"), "agents")).toEqual(["marta"]);
    const [bob] = (await search("basil")).agents.hits;
    expect(bob).toMatchObject({ id: "bob", name: "Bob" });
    expect(bob!.snippet.filter((p) => p.match).map((p) => p.text)).toEqual(["basil"]);
    // A structured persona's snippet is its text, not its JSON.
    expect(bob!.snippet.map((p) => p.text).join("")).toBe("sous-chef · Calm, dry humour; counts the basil.");
  });

  test("an agent named exactly comes before agents that only mention the word", async () => {
    // Marta's persona mentions kitchens; no agent is named kitchens, so the order is by id.
    expect(ids(await search("garlic"), "agents")).toEqual(["marta"]);
    expect(ids(await search("bob"), "agents")[0]).toBe("bob");
  });

  test("runs are found by the start of their id or by their agent's id or name", async () => {
    expect(ids(await search(martaRun.id.slice(0, 8)), "runs")).toEqual([martaRun.id]);
    expect(ids(await search(martaRun.id.slice(0, 13).toUpperCase()), "runs")).toEqual([martaRun.id]);
    expect(ids(await search("MARTA"), "runs")).toEqual([martaRun.id]);
    expect((await search("marta ruiz")).runs.hits).toEqual([
      expect.objectContaining({
        id: martaRun.id,
        agent_id: "marta",
        agent_name: "Marta Ruiz",
        status: "pending",
      }),
    ]);
    // Part of a name is a word search, not an agent's runs.
    expect(ids(await search("ruiz"), "runs")).toEqual([]);
  });

  test("session analyses are found by id prefix, by one of their agents, or by part of their source", async () => {
    expect(ids(await search(sessionId.slice(0, 6)), "sessions")).toEqual([sessionId]);
    expect(ids(await search("planner"), "sessions")).toEqual([sessionId]);
    expect(ids(await search("Marta Ruiz"), "sessions")).toEqual([sessionId]);
    expect(ids(await search("refund"), "sessions")).toEqual([sessionId]);
    expect((await search("otlp-42")).sessions.hits).toEqual([
      expect.objectContaining({ source: "traces/otlp-42.json", agents: ["executor"], status: "pending" }),
    ]);
  });

  test("kinds limits what is searched, and the limit caps each kind and says there is more", async () => {
    const only = await search("garlic", { kinds: ["message"] });
    expect(only.kinds).toEqual(["message"]);
    expect(only.agents.hits).toEqual([]);
    expect(only.messages.hits).toHaveLength(3);
    const capped = await search("garlic", { limit: 2 });
    expect(capped.messages.hits).toHaveLength(2);
    expect(capped.messages.more).toBe(true);
    expect(capped.agents.more).toBe(false);
  });

  test("a query with nothing to look for is bad input naming q", async () => {
    for (const q of ["", "   ", "-garlic", "!!!", "x".repeat(201)]) {
      const error = await search(q).catch((e: unknown) => e);
      expect(InputError.isInstance(error), q).toBe(true);
      expect((error as InputError).place).toBe("q");
    }
  });
});

describeStore(
  "search in SQL",
  ({ db }) => {
    test("the message search reads the full-text index of migration 11", async () => {
      const plan = await db().transaction(async (tx) => {
        // A handful of rows would be read whole; what is checked is that the index serves the query at all.
        await tx.query("SET LOCAL enable_seqscan = off");
        const rows = await tx.query<{ "QUERY PLAN": string }>(`EXPLAIN ${MESSAGE_SEARCH}`, [
          "garlic",
          21,
          1000,
        ]);
        return rows.rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
      expect(plan).toContain("Bitmap Index Scan on run_messages_text_words");
    });

    test("a message's stored words are those of its text, in the simple configuration", async () => {
      await db().query(
        "INSERT INTO run_messages (source, id, sender, channel, text, at) VALUES ('w.json', 'w1', 'x', 'c', $1, now())",
        ["Garlic, GARLIC and Saffron"],
      );
      const { rows } = await db().query<{ words: string }>(
        "SELECT text_words::text AS words FROM run_messages WHERE source = 'w.json'",
      );
      expect(rows).toEqual([{ words: "'and':3 'garlic':1,2 'saffron':4" }]);
    });
  },
  { sqlOnly: "an index plan" },
);

describe("the query syntax and snippets", () => {
  test("a query reads as alternatives of words, phrases and exclusions", () => {
    expect(parseSearchQuery('Garlic "out of" -basil or saffron')).toEqual({
      alternatives: [
        [
          { words: ["garlic"], negated: false },
          { words: ["out", "of"], negated: false },
          { words: ["basil"], negated: true },
        ],
        [{ words: ["saffron"], negated: false }],
      ],
      positive: ["garlic", "out", "of", "saffron"],
    });
  });

  test("a query must look for a word in every alternative", () => {
    expect(searchQueryProblem("garlic")).toBeUndefined();
    expect(searchQueryProblem("garlic or -basil")).toMatch(/a word to look for/);
    expect(searchQueryProblem("")).toMatch(/words to look for/);
    expect(searchQueryProblem("a".repeat(201))).toMatch(/at most 200/);
  });

  test("a snippet marks whole words only", () => {
    expect(snippetOf("garlicky garlic", ["garlic"])).toEqual([
      { text: "garlicky ", match: false },
      { text: "garlic", match: true },
    ]);
  });

  test("an id prefix is a uuid range; a word that is not one is none", () => {
    expect(uuidPrefixRange("3F2a")).toEqual({
      from: "3f2a0000-0000-0000-0000-000000000000",
      to: "3f2affff-ffff-ffff-ffff-ffffffffffff",
    });
    expect(uuidPrefixRange("3f2a09b1-77")).toEqual({
      from: "3f2a09b1-7700-0000-0000-000000000000",
      to: "3f2a09b1-77ff-ffff-ffff-ffffffffffff",
    });
    expect(uuidPrefixRange("abc")).toBeUndefined();
    expect(uuidPrefixRange("3f2a-09")).toBeUndefined();
    expect(uuidPrefixRange("garlic")).toBeUndefined();
  });
});
