// A new stored kind registers in one line and is read back everywhere: `show` in each format, `runs --kind`,
// the API's list and document (and its OpenAPI document), the dashboard's list and page, the static report.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerStoredKind, storedKinds } from "../../src/kinds/index.ts";
import { createServerApp } from "../../src/server/index.ts";
import { type EvaluationKind, openStore, type Store } from "../../src/store/index.ts";
import { staticReport } from "../../src/web/index.ts";
import { cli } from "../cli/run-cli.ts";
import { NOTE_FORMAT, noteKind } from "../fixtures/kinds/note-kind.ts";
import { useTempDir } from "../temp-dir.ts";

const dir = useTempDir("dramaturg-kinds-");
let db: string;
let store: Store;
let id: string;

beforeAll(async () => {
  registerStoredKind(noteKind);
  db = join(dir(), "store");
  const seeding = await openStore(db);
  const row = await seeding.evaluations.create({ kind: "note" as EvaluationKind, source: "harbour.txt" });
  await seeding.evaluations.start(row.id);
  await seeding.evaluations.complete(row.id, {
    result: { format: NOTE_FORMAT, text: "The <b>tide</b> turns at six." },
  });
  await seeding.close();
  id = row.id;
}, 60_000);
afterAll(async () => {
  await store?.close();
});

describe("a stored kind registered in one line", () => {
  it("is tried by show before the default kind, which stays last", () => {
    expect(storedKinds().map((k) => k.kind)).toEqual([
      "session",
      "conversation",
      "calibration",
      "simulation",
      "experiment",
      "validation",
      "drift",
      "redteam",
      "note",
      "persona",
    ]);
  });

  it("show prints its text, Markdown and JSON by id or prefix", async () => {
    expect(await cli(["show", id.slice(0, 8), "--db", db])).toMatchObject({
      code: 0,
      stdout: `note ${id.slice(0, 8)}: The <b>tide</b> turns at six.\n`,
    });
    expect((await cli(["show", id, "--format", "markdown", "--db", db])).stdout).toBe(
      "> The <b>tide</b> turns at six.\n",
    );
    expect(JSON.parse((await cli(["show", id, "--format", "json", "--db", db])).stdout)).toEqual({
      format: NOTE_FORMAT,
      evaluation_id: id,
      text: "The <b>tide</b> turns at six.",
    });
  });

  it("runs --kind lists it as a table and as JSON", async () => {
    const table = await cli(["runs", "--kind", "note", "--db", db]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(`^id +created +status +source\\n${id.slice(0, 8)} .* completed +harbour.txt\\n$`),
    );
    const json = JSON.parse((await cli(["runs", "--kind", "note", "--format", "json", "--db", db])).stdout);
    expect(json.notes.map((n: { id: string }) => n.id)).toEqual([id]);
  });

  it("the API lists it, answers its document, and documents both routes", async () => {
    store = await openStore(db);
    const app = createServerApp({ store });
    const list = (await (await app.request("/api/notes")).json()) as { notes: { id: string }[] };
    expect(list.notes.map((n) => n.id)).toEqual([id]);
    expect(await (await app.request(`/api/notes/${id}`)).json()).toMatchObject({
      format: NOTE_FORMAT,
      evaluation_id: id,
    });
    expect((await app.request("/api/notes/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    const doc = (await (await app.request("/api/openapi.json")).json()) as { paths: object };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/notes", "/api/notes/{id}"]));
  });

  it("the dashboard lists it and shows its page, its text escaped, and the static report takes it", async () => {
    const app = createServerApp({ store });
    const listPage = await (await app.request("/notes")).text();
    expect(listPage).toContain(`href="/notes/${id}"`);
    const page = await app.request(`/notes/${id}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain("The &lt;b&gt;tide&lt;/b&gt; turns at six.");
    expect(text).not.toContain("<b>tide</b>");
    const report = await staticReport({ store, evaluationIds: [id] });
    expect(report).toContain(`id="page-notes-${id}"`);
  });
});
