// GET /api/search over a PGlite store (the full-text SQL): each kind's hits in the API's JSON, snippets as
// plain text parts, `kinds` and `limit`, and bad input as a 400 naming the parameter.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import type { Store } from "../../src/store/index.ts";
import { openPgliteStore } from "../../src/store/open-sql-store.ts";

let store: Store;
let app: ReturnType<typeof createServerApp>;
let runId: string;
let sessionId: string;
let judgedRun: string;

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field.
const get = async (path: string): Promise<{ status: number; body: any }> => {
  const response = await app.request(path);
  return { status: response.status, body: await response.json() };
};

beforeAll(async () => {
  store = await openPgliteStore(undefined);
  await store.agents.upsert([
    { id: "marta", name: "Marta Ruiz", persona: "Head chef; garlic in everything." },
    { id: "bob", name: "Bob", persona: "Sous-chef." },
  ]);
  await store.messages.import("kitchen.json", [
    {
      id: "m1",
      sender: "marta",
      channel: "kitchen",
      text: "Garlic <b>now</b>, more garlic.",
      at: "2026-03-01T09:00:00Z",
    },
    { id: "m2", sender: "guest", channel: "lobby", text: "Any garlic bread?", at: "2026-03-01T09:01:00Z" },
    { id: "m3", sender: "bob", channel: "kitchen", text: "Saffron is in.", at: "2026-03-01T09:02:00Z" },
  ]);
  const evaluation = await store.evaluations.create({ source: "kitchen.json" });
  runId = (
    await store.runs.create({
      agent_id: "marta",
      evaluation_id: evaluation.id,
      dimensions: ["adherence"],
      sample_size: 1,
    })
  ).id;
  // A persona evaluation that kept its transcript, and a verdict of it with the judge's reasoning.
  const judged = await store.evaluations.create({
    source: "harbour.json",
    input: {
      transcript: {
        agents: [{ id: "marta", name: "Marta Ruiz" }],
        messages: [
          {
            id: "t1",
            sender: "marta",
            channel: "pier",
            text: "Moor the <i>skiff</i> here.",
            at: "2026-03-01T09:00:00Z",
          },
        ],
      },
    },
  });
  judgedRun = (
    await store.runs.create({
      agent_id: "marta",
      evaluation_id: judged.id,
      dimensions: ["adherence"],
      sample_size: 1,
    })
  ).id;
  const writer = store.scores.writer();
  await writer.write({
    evaluation_id: judged.id,
    evaluation_run_id: judgedRun,
    dimension: "adherence",
    proposition_id: "terse",
    agent_id: "marta",
    message_id: "t1",
    trial: 1,
    status: "ok",
    raw_score: 8,
    score: 8,
    reasoning: "Terse and nautical: a <b>skiff</b> order.",
  });
  await writer.close();
  sessionId = (
    await store.evaluations.create({ kind: "session", source: "refund.session.json", agents: ["marta"] })
  ).id;
  app = createServerApp({ store });
});
afterAll(async () => {
  await store.close();
});

describe("GET /api/search", () => {
  it("answers each kind's hits, the messages ranked and their matched words marked", async () => {
    const { status, body } = await get("/api/search?q=garlic");
    expect(status).toBe(200);
    expect(body.q).toBe("garlic");
    expect(body.kinds).toEqual(["agent", "run", "session", "message", "transcript", "reasoning"]);
    expect(body.agents.hits.map((a: { id: string }) => a.id)).toEqual(["marta"]);
    expect(body.messages.hits.map((m: { id: string }) => m.id)).toEqual(["m1", "m2"]);
    expect(body.messages.hits[1]).toEqual({
      source: "kitchen.json",
      id: "m2",
      sender: "guest",
      channel: "lobby",
      at: "2026-03-01T09:01:00.000Z",
      text: "Any garlic bread?",
      snippet: [
        { text: "Any ", match: false },
        { text: "garlic", match: true },
        { text: " bread?", match: false },
      ],
      sender_is_agent: false,
    });
    // Markup in a message stays text in the JSON: the snippet is parts, never HTML made by the server.
    expect(body.messages.hits[0].snippet.map((p: { text: string }) => p.text).join("")).toBe(
      "Garlic <b>now</b>, more garlic.",
    );
    expect(body.messages.more).toBe(false);
  });

  it("finds a run and a session analysis by the start of their ids, and both by their agent", async () => {
    const byRun = await get(`/api/search?q=${runId.slice(0, 8)}&kinds=run`);
    expect(byRun.body.runs.hits).toEqual([
      expect.objectContaining({ id: runId, agent_id: "marta", agent_name: "Marta Ruiz" }),
    ]);
    const bySession = await get(`/api/search?q=${sessionId.slice(0, 8)}&kinds=session`);
    expect(bySession.body.sessions.hits.map((s: { id: string }) => s.id)).toEqual([sessionId]);
    const byAgent = await get("/api/search?q=Marta%20Ruiz&kinds=run,session");
    expect(byAgent.body.runs.hits.map((r: { id: string }) => r.id)).toEqual([judgedRun, runId]);
    expect(byAgent.body.sessions.hits.map((s: { id: string }) => s.id)).toEqual([sessionId]);
  });

  it("finds a word of an evaluated transcript and of the judge's reasoning, with where each lands", async () => {
    const { status, body } = await get("/api/search?q=skiff&kinds=transcript,reasoning");
    expect(status).toBe(200);
    expect(body.messages.hits).toEqual([]);
    expect(body.transcripts.hits).toEqual([
      expect.objectContaining({
        id: "t1",
        run_id: judgedRun,
        judged: true,
        text: "Moor the <i>skiff</i> here.",
      }),
    ]);
    expect(body.transcripts.hits[0].snippet).toContainEqual({ text: "skiff", match: true });
    expect(body.reasonings.hits).toEqual([
      expect.objectContaining({
        run_id: judgedRun,
        dimension: "adherence",
        proposition_id: "terse",
        message_id: "t1",
        score: 8,
        reasoning: "Terse and nautical: a <b>skiff</b> order.",
      }),
    ]);
    const [verdict] = await store.scores.forEvaluation(body.reasonings.hits[0].evaluation_id);
    expect(body.reasonings.hits[0].id).toBe(verdict!.id);
  });

  it("searches only the kinds asked for, and caps each at the limit", async () => {
    const { body } = await get("/api/search?q=garlic&kinds=message&limit=1");
    expect(body.kinds).toEqual(["message"]);
    expect(body.agents.hits).toEqual([]);
    expect(body.messages.hits).toHaveLength(1);
    expect(body.messages.more).toBe(true);
  });

  it("an empty, missing, over-long or exclusions-only q is a 400 naming q", async () => {
    for (const query of ["q=", "", `q=${"a".repeat(201)}`, "q=-garlic", "q=%22%22"]) {
      const { status, body } = await get(`/api/search?${query}`);
      expect(status, query).toBe(400);
      expect(body.error, query).toMatchObject({ code: "bad_request", path: "q" });
    }
  });

  it("an unknown kind or a limit out of range is a 400 naming it", async () => {
    const kinds = await get("/api/search?q=garlic&kinds=message,verdict");
    expect(kinds.status).toBe(400);
    expect(kinds.body.error).toMatchObject({ path: "kinds" });
    expect(kinds.body.error.message).toMatch(/"verdict"/);
    const limit = await get("/api/search?q=garlic&limit=101");
    expect(limit.status).toBe(400);
    expect(limit.body.error.path).toBe("limit");
  });

  it("is described in the OpenAPI document", async () => {
    const { body } = await get("/api/openapi.json");
    const parameters = body.paths["/api/search"].get.parameters.map((p: { name: string }) => p.name);
    expect(parameters.sort()).toEqual(["kinds", "limit", "q"]);
    expect(body.components.schemas.SearchResults).toBeDefined();
  });
});
