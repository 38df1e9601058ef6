// POST /api/sessions/analyze and POST /api/traces: the CLI's analysis over HTTP, stored and listed again,
// and what bad or oversize bodies get.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp } from "../../src/server/index.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { cli, ROOT } from "../cli/run-cli.ts";

/** A response's JSON body, read loosely: the tests check its fields. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are plain JSON
const json = (response: Response): Promise<any> => response.json();

const REFUND = "examples/sessions/refund.session.json";
const OTLP = "examples/sessions/ai-sdk-genai.otlp.json";

let store: Store;
let app: ReturnType<typeof createServerApp>;

beforeAll(async () => {
  store = await openStore("memory://");
  app = createServerApp({ store, bodyLimit: 64 * 1024 });
});
afterAll(() => store.close());

const post = (path: string, body: string, type = "application/json") =>
  app.request(path, { method: "POST", body, headers: { "content-type": type } });

describe("POST /api/sessions/analyze", () => {
  it("returns the same JSON as `dramaturg session analyze --format json` on the session example", async () => {
    const printed = await cli([
      "session",
      "analyze",
      `${ROOT}${REFUND}`,
      "--judge",
      "none",
      "--format",
      "json",
      "--db",
      "memory://",
      "--no-progress",
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    const response = await post(
      `/api/sessions/analyze?judge=none&source=${encodeURIComponent(`${ROOT}${REFUND}`)}`,
      readFileSync(`${ROOT}${REFUND}`, "utf8"),
    );
    expect(response.status).toBe(200);
    // Each stored analysis has its own id; everything else is the same document.
    const { evaluation_id: served, ...rest } = await json(response);
    const { evaluation_id: cliId, ...expected } = JSON.parse(printed.stdout);
    expect(served).toMatch(/^[0-9a-f-]{36}$/);
    expect(cliId).toMatch(/^[0-9a-f-]{36}$/);
    expect(rest).toEqual(expected);
  });

  it("stores the analysis: the list and the analysis by id give it back", async () => {
    const posted = await json(
      await post("/api/sessions/analyze?judge=none", readFileSync(`${ROOT}${REFUND}`, "utf8")),
    );
    const list = await json(await app.request("/api/sessions"));
    expect(list.sessions[0]).toMatchObject({
      id: posted.evaluation_id,
      status: "completed",
      source: "request",
    });
    const one = await app.request(`/api/sessions/${posted.evaluation_id}`);
    expect(one.status).toBe(200);
    expect(await json(one)).toEqual(posted);
  });

  it("the list filters by an agent of the session, a page at a time", async () => {
    const body = readFileSync(`${ROOT}${REFUND}`, "utf8");
    const older = await json(await post("/api/sessions/analyze?judge=none", body));
    const newer = await json(await post("/api/sessions/analyze?judge=none", body));
    const first = await json(await app.request("/api/sessions?agent=planner&limit=1"));
    expect(first.sessions.map((s: { id: string }) => s.id)).toEqual([newer.evaluation_id]);
    expect(first.sessions[0].agents).toEqual(["planner", "executor"]);
    const second = await json(
      await app.request(`/api/sessions?agent=planner&limit=1&cursor=${first.next_cursor}`),
    );
    expect(second.sessions.map((s: { id: string }) => s.id)).toEqual([older.evaluation_id]);
    const none = await json(await app.request("/api/sessions?agent=nobody"));
    expect(none.sessions).toEqual([]);
  });

  it("an analysis that has not completed is a 409, one of another kind a 404", async () => {
    const pending = await store.evaluations.create({ kind: "session", source: "request" });
    const response = await app.request(`/api/sessions/${pending.id}`);
    expect(response.status).toBe(409);
    expect((await json(response)).error.code).toBe("not_completed");
    const persona = await store.evaluations.create({ kind: "persona", source: "seed" });
    expect((await app.request(`/api/sessions/${persona.id}`)).status).toBe(404);
  });

  it("a session that breaks its schema is a 400 naming the JSON path", async () => {
    const session = JSON.parse(readFileSync(`${ROOT}${REFUND}`, "utf8"));
    session.turns[0].agent_interactions[0].agent_id = 42;
    const response = await post("/api/sessions/analyze?judge=none", JSON.stringify(session));
    expect(response.status).toBe(400);
    const { error } = await json(response);
    expect(error.code).toBe("bad_request");
    expect(error.path).toBe("turns[0].agent_interactions[0].agent_id");
  });

  it("a body that is not JSON is a 400 naming the line and column", async () => {
    const response = await post("/api/sessions/analyze", '{\n  "turns": [,]\n}');
    expect(response.status).toBe(400);
    expect((await json(response)).error.path).toBe("line 2, column 13");
  });

  it("a JSON string is refused rather than read as a file on the server", async () => {
    const response = await post("/api/sessions/analyze?judge=none", JSON.stringify(`${ROOT}${REFUND}`));
    expect(response.status).toBe(400);
    expect((await json(response)).error.path).toBe("(root)");
  });

  it("a body over the limit is a 413", async () => {
    const response = await post("/api/sessions/analyze", `{"pad": "${"x".repeat(70 * 1024)}"}`);
    expect(response.status).toBe(413);
    expect((await json(response)).error.code).toBe("payload_too_large");
  });

  it("a body that is not JSON by its media type is a 415", async () => {
    const response = await post("/api/sessions/analyze", "turns: []", "application/yaml");
    expect(response.status).toBe(415);
  });

  it("a judge cannot be chosen by the client: only none", async () => {
    const response = await post("/api/sessions/analyze?judge=fixtures:/etc/passwd", "{}");
    expect(response.status).toBe(400);
    expect((await json(response)).error.path).toBe("judge");
  });
});

describe("POST /api/traces", () => {
  it("analyses and stores the sessions in OTLP JSON, and returns their ids", async () => {
    const response = await post("/api/traces", readFileSync(`${ROOT}${OTLP}`, "utf8"));
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.analyses.length).toBeGreaterThan(0);
    const stored = await app.request(`/api/sessions/${body.evaluation_id}`);
    expect(stored.status).toBe(200);
    expect((await json(stored)).sources[0]).toMatchObject({ file: "otlp", from: "otlp" });
  });

  it("a body that is no OTLP trace is a 400", async () => {
    const response = await post("/api/traces", JSON.stringify({ resourceSpans: "none" }));
    expect(response.status).toBe(400);
  });
});
