// The search page's hits in evaluated transcripts and in the judge's reasoning, as HTML: each says its kind,
// links to its place on the run page, and escapes the stored text; and that place — a verdict's row, a message's
// view of the run (`?message=`) — on the run page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type ScoreRow, type Store } from "../../src/store/index.ts";

const SCRIPT = "<script>alert(1)</script>";

let store: Store;
let app: ReturnType<typeof createServerApp>;
let runId: string;
let verdicts: ScoreRow[];

const page = async (path: string) => {
  const response = await app.request(path);
  return { status: response.status, text: await response.text() };
};

/** The part of a page from `start` to the next `end` after it. */
const section = (text: string, start: string, end: string) => {
  const from = text.indexOf(start);
  expect(from, start).toBeGreaterThanOrEqual(0);
  return text.slice(from, text.indexOf(end, from));
};

beforeAll(async () => {
  store = await openStore("memory://");
  await store.agents.upsert([{ id: "ines", name: "Ines", persona: "A radio host." }]);
  const evaluation = await store.evaluations.create({
    source: "radio.json",
    input: {
      transcript: {
        agents: [{ id: "ines", name: "Ines", persona: "A radio host." }],
        messages: [
          {
            id: "t1",
            sender: "ines",
            channel: "studio",
            text: `The theremin plays at noon ${SCRIPT}`,
            at: "2026-11-21T10:00:00Z",
          },
          {
            id: "t2",
            sender: "caller",
            channel: "phone-in",
            text: "Play the theremin again!",
            at: "2026-11-21T10:01:00Z",
          },
        ],
      },
    },
  });
  runId = (
    await store.runs.create({
      agent_id: "ines",
      evaluation_id: evaluation.id,
      dimensions: ["adherence"],
      sample_size: 1,
    })
  ).id;
  const writer = store.scores.writer();
  const base = {
    evaluation_id: evaluation.id,
    evaluation_run_id: runId,
    dimension: "adherence",
    agent_id: "ines",
    trial: 1,
    status: "ok" as const,
    raw_score: 3,
    score: 3,
  };
  await writer.write([
    {
      ...base,
      proposition_id: "host-voice",
      message_id: "t1",
      reasoning: `A glockenspiel of words, ${SCRIPT}`,
    },
    { ...base, proposition_id: "calm", message_id: "t1", reasoning: "Calm enough." },
    { ...base, proposition_id: "whole-show", reasoning: "Across the show the glockenspiel recurs." },
  ]);
  await writer.close();
  verdicts = await store.scores.forEvaluation(evaluation.id);
  app = createServerApp({ store });
});
afterAll(async () => {
  await store.close();
});

const verdict = (proposition: string) => verdicts.find((v) => v.proposition_id === proposition)!;

describe("the search page's evaluated text", () => {
  it("a transcript's message says its kind, links to it on its run's page, and is escaped", async () => {
    const { status, text } = await page("/search?q=theremin");
    expect(status).toBe(200);
    const hits = section(text, '<section class="search-transcripts">', "</section>");
    expect(hits).toContain('<span class="tag hit-kind">evaluated message</span>');
    expect(hits).toContain(`<a href="/runs/${runId}?message=t1#message">`);
    expect(hits).toContain("<mark>theremin</mark> plays at noon &lt;script&gt;alert(1)&lt;/script&gt;");
    // The caller was not evaluated: the message is read around Ines's verdicts, on her run's page.
    expect(hits).toContain(`<a href="/runs/${runId}?message=t2#message">`);
    expect(hits).toContain("read around the verdicts of");
    expect(text).not.toContain(SCRIPT);
  });

  it("a reasoning says its kind and links to its verdict's row: among its message's, or its proposition's", async () => {
    const { text } = await page("/search?q=glockenspiel");
    const hits = section(text, '<section class="search-reasonings">', "</section>");
    expect(hits).toContain(`<span class="tag hit-kind">judge's reasoning</span>`);
    expect(hits).toContain(`href="/runs/${runId}?message=t1#v-${verdict("host-voice").id}"`);
    expect(hits).toContain(`href="/runs/${runId}?p=adherence%2Fwhole-show#v-${verdict("whole-show").id}"`);
    expect(hits).toContain("A <mark>glockenspiel</mark> of words, &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(text).not.toContain(SCRIPT);
    expect(section(text, '<section class="search-transcripts">', "</section>")).toContain(
      "No message of an evaluated transcript.",
    );
  });
});

describe("the run page's places the search links to", () => {
  it("every verdict's row has its id as its anchor", async () => {
    const { text } = await page(`/runs/${runId}`);
    for (const v of verdicts) expect(text).toContain(`<tr id="v-${v.id}" class=`);
  });

  it("?message= shows the message, escaped, and the run's verdicts of it only", async () => {
    const { status, text } = await page(`/runs/${runId}?message=t1`);
    expect(status).toBe(200);
    const message = section(text, '<section class="judged-message" id="message">', "</section>");
    expect(message).toContain("<h3>Message <code>t1</code></h3>");
    expect(message).toContain("The theremin plays at noon &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(message).toContain("2 verdicts of this message below");
    expect(text).toContain(`<tr id="v-${verdict("host-voice").id}"`);
    expect(text).toContain(`<tr id="v-${verdict("calm").id}"`);
    expect(text).not.toContain(`<tr id="v-${verdict("whole-show").id}"`);
    expect(text).not.toContain(SCRIPT);
  });

  it("?message= of a message another sent says the run judged only its agent's", async () => {
    const { text } = await page(`/runs/${runId}?message=t2`);
    const message = section(text, '<section class="judged-message" id="message">', "</section>");
    expect(message).toContain("Play the theremin again!");
    expect(message).toContain("This run judged Ines's messages; this one is caller's");
    expect(text).not.toContain('<tr id="v-');
  });

  it("a message id over 200 characters is a 400 naming message", async () => {
    const { status, text } = await page(`/runs/${runId}?message=${"m".repeat(201)}`);
    expect(status).toBe(400);
    expect(text).toContain("<code>message</code>");
  });
});
