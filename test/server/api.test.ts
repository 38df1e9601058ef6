// The JSON API's read routes over a seeded store, through `app.request()` (no socket): pages, filters,
// one row by id, and the error shape (400 naming the parameter, 404).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { seedStore } from "./seed-store.ts";

let store: Store;
let app: ReturnType<typeof createServerApp>;
let seeded: Awaited<ReturnType<typeof seedStore>>;

beforeAll(async () => {
  store = await openStore("memory://");
  seeded = await seedStore(store);
  app = createServerApp({ store });
});
afterAll(() => store.close());

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read as plain JSON
const get = async (path: string): Promise<{ status: number; body: any }> => {
  const response = await app.request(path);
  return { status: response.status, body: await response.json() };
};

describe("GET /api/runs", () => {
  it("lists runs newest first, as the store lists them", async () => {
    const { status, body } = await get("/api/runs");
    expect(status).toBe(200);
    expect(body.runs.map((r: { id: string }) => r.id)).toEqual([...seeded.runIds].reverse());
    expect(body.next_cursor).toBeNull();
  });

  it("pages through every run once with the cursor each page gives", async () => {
    const seen: string[] = [];
    let path = "/api/runs?limit=4";
    for (let pages = 0; pages < 10; pages++) {
      const { body } = await get(path);
      seen.push(...body.runs.map((r: { id: string }) => r.id));
      if (body.next_cursor === null) break;
      path = `/api/runs?limit=4&cursor=${body.next_cursor}`;
    }
    expect(seen).toEqual([...seeded.runIds].reverse());
  });

  it("filters by agent and dimension", async () => {
    const { body } = await get("/api/runs?agent=marta&dimension=fluency");
    expect(body.runs).toHaveLength(1);
    expect(body.runs[0]).toMatchObject({ agent_id: "marta", dimensions: ["adherence", "fluency"] });
  });

  it("filters by time: nothing was created before 2000", async () => {
    expect((await get("/api/runs?until=2000-01-01")).body.runs).toEqual([]);
    expect((await get("/api/runs?since=2000-01-01")).body.runs).toHaveLength(seeded.runIds.length);
  });

  it("a limit over 200 is a 400 naming the limit parameter", async () => {
    const { status, body } = await get("/api/runs?limit=500");
    expect(status).toBe(400);
    expect(body.error).toEqual({
      code: "bad_request",
      message: "expected a number of 200 or less, got 500",
      path: "limit",
    });
  });

  it("a time that is not ISO 8601 is a 400 naming its parameter", async () => {
    const { status, body } = await get("/api/runs?since=last-tuesday");
    expect(status).toBe(400);
    expect(body.error.path).toBe("since");
  });

  it("a cursor the server did not give is a 400 naming the cursor", async () => {
    const { status, body } = await get("/api/runs?cursor=bm90LWEtY3Vyc29y");
    expect(status).toBe(400);
    expect(body.error.path).toBe("cursor");
  });
});

describe("GET /api/runs/:id", () => {
  it("gives the run and its verdicts with reasoning", async () => {
    const id = seeded.runIds[0]!;
    const { status, body } = await get(`/api/runs/${id}`);
    expect(status).toBe(200);
    expect(body.run.id).toBe(id);
    expect(body.scores).toHaveLength(1);
    expect(body.scores[0]).toMatchObject({
      proposition_id: "stays-in-role",
      reasoning: "marta keeps to the pilot's voice",
    });
  });

  it("an unknown run is a 404", async () => {
    const { status, body } = await get("/api/runs/00000000-0000-4000-8000-000000000000");
    expect(status).toBe(404);
    expect(body.error.code).toBe("not_found");
  });

  it("an id that is not a uuid is a 400 naming the id", async () => {
    const { status, body } = await get("/api/runs/3f2a91c0");
    expect(status).toBe(400);
    expect(body.error.path).toBe("id");
  });
});

describe("GET /api/agents", () => {
  it("lists every agent with its latest completed run's scores", async () => {
    const { status, body } = await get("/api/agents");
    expect(status).toBe(200);
    expect(body.agents.map((a: { id: string }) => a.id).sort()).toEqual(["bob", "marta"]);
    const marta = body.agents.find((a: { id: string }) => a.id === "marta");
    expect(marta.latest_run).toMatchObject({ id: seeded.runIds.at(-2), overall_score: 8 });
  });

  it("pages through agents with the cursor", async () => {
    const first = await get("/api/agents?limit=1");
    const second = await get(`/api/agents?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.next_cursor).toBeNull();
    expect([first.body.agents[0].id, second.body.agents[0].id].sort()).toEqual(["bob", "marta"]);
  });
});

describe("GET /api/agents/:id/history", () => {
  it("gives the agent's score per completed run, oldest first, as `dramaturg history` does", async () => {
    const { status, body } = await get("/api/agents/marta/history?dimension=adherence");
    expect(status).toBe(200);
    expect(body.agent).toBe("marta");
    expect(body.dimension).toBe("adherence");
    expect(body.points.map((p: { score: number }) => p.score)).toEqual([6, 7, 8]);
  });

  it("pages walk back in time with the cursor, each page oldest first", async () => {
    const first = await get("/api/agents/marta/history?dimension=adherence&limit=2");
    expect(first.body.points.map((p: { score: number }) => p.score)).toEqual([7, 8]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await get(
      `/api/agents/marta/history?dimension=adherence&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(second.body.points.map((p: { score: number }) => p.score)).toEqual([6]);
    expect(second.body.next_cursor).toBeNull();
  });

  it("the first point of a page says what changed since the run before it, on the older page", async () => {
    const all = await get("/api/agents/marta/history?dimension=adherence");
    const page = await get("/api/agents/marta/history?dimension=adherence&limit=1");
    expect(page.body.points).toEqual(all.body.points.slice(-1));
  });

  it("a history cursor the server did not give is a 400 naming the cursor", async () => {
    const { status, body } = await get("/api/agents/marta/history?cursor=nonsense");
    expect(status).toBe(400);
    expect(body.error.path).toBe("cursor");
  });

  it("an unknown agent is a 404", async () => {
    expect((await get("/api/agents/nobody/history")).status).toBe(404);
  });

  it("an unknown dimension is a 400 naming the dimension", async () => {
    const { status, body } = await get("/api/agents/marta/history?dimension=charisma");
    expect(status).toBe(400);
    expect(body.error.path).toBe("dimension");
  });
});

describe("GET /api/conversations", () => {
  it("lists stored conversation runs with each pass's score", async () => {
    const { body } = await get("/api/conversations");
    expect(body.conversations).toEqual([
      expect.objectContaining({
        id: seeded.conversationId,
        job: "refund-desk.yml",
        passes: [{ pass: "first", score: 0.75 }],
      }),
    ]);
  });

  it("filters by the agent under test, the job's target", async () => {
    const mine = await get("/api/conversations?agent=refund-bot");
    expect(mine.body.conversations).toEqual([
      expect.objectContaining({ id: seeded.conversationId, agent: "refund-bot" }),
    ]);
    expect((await get("/api/conversations?agent=marta")).body.conversations).toEqual([]);
  });

  it("gives one conversation's stored result", async () => {
    const { status, body } = await get(`/api/conversations/${seeded.conversationId}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      format: "dramaturg.conversation-result/v1",
      evaluation_id: seeded.conversationId,
    });
  });

  it("an evaluation of another kind is not a conversation: 404", async () => {
    const { body } = await get("/api/runs");
    const persona = body.runs[0].evaluation_id;
    expect((await get(`/api/conversations/${persona}`)).status).toBe(404);
  });
});

describe("GET /api/corrections", () => {
  it("lists the gate's checks newest first", async () => {
    const { body } = await get("/api/corrections");
    expect(body.corrections.map((c: { original_text: string }) => c.original_text)).toEqual([
      "No.",
      "Hm.",
      "Aye.",
    ]);
  });

  it("filters by agent and gate dimension", async () => {
    const { body } = await get("/api/corrections?agent=marta&dimension=fluency");
    expect(body.corrections.map((c: { original_text: string }) => c.original_text)).toEqual(["No."]);
  });

  it("pages through the checks with the cursor", async () => {
    const first = await get("/api/corrections?limit=2");
    const second = await get(`/api/corrections?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.corrections.map((c: { original_text: string }) => c.original_text)).toEqual(["Aye."]);
    expect(second.body.next_cursor).toBeNull();
  });
});

describe("the API as a whole", () => {
  it("an unknown route is a 404 in the error shape", async () => {
    const { status, body } = await get("/api/nothing-here");
    expect(status).toBe(404);
    expect(body.error).toEqual({ code: "not_found", message: "no route GET /api/nothing-here" });
  });

  it("every response carries a strict Content-Security-Policy and no-sniff", async () => {
    const response = await app.request("/api/runs");
    expect(response.headers.get("content-security-policy")).toMatch(/default-src 'self'/);
    expect(response.headers.get("content-security-policy")).not.toMatch(/unsafe-inline/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    // Not no-referrer: under it Chromium posts the dashboard's own forms with `Origin: null`.
    expect(response.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("the OpenAPI document lists every route", async () => {
    const { status, body } = await get("/api/openapi.json");
    expect(status).toBe(200);
    expect(Object.keys(body.paths).sort()).toEqual(
      [
        "/api/agents",
        "/api/agents/{id}/history",
        "/api/calibrations",
        "/api/calibrations/{id}",
        "/api/conversations",
        "/api/conversations/{id}",
        "/api/corrections",
        "/api/drift",
        "/api/drift/{id}",
        "/api/evaluations/{id}/labels",
        "/api/experiments",
        "/api/experiments/{id}",
        "/api/redteam",
        "/api/redteam/{id}",
        "/api/runs",
        "/api/runs/{id}",
        "/api/search",
        "/api/sessions",
        "/api/sessions/analyze",
        "/api/sessions/{id}",
        "/api/simulations",
        "/api/simulations/{id}",
        "/api/traces",
        "/api/validations",
        "/api/validations/{id}",
      ].sort(),
    );
    expect(body.paths["/api/runs"].get.parameters.map((p: { name: string }) => p.name)).toContain("cursor");
  });
});
