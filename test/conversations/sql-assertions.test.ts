// SQL assertions: one value from a read-only transaction, compared with the expected value, against a
// PGlite folder and (when CI gives one) a PostgreSQL server.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Assertion, checkAssertions } from "../../src/conversations/index.ts";
import { openDatabase, openStore } from "../../src/store/index.ts";
import { postgresSuite, postgresUrl } from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";

const dir = useTempDir("dramaturg-sql-");
const conversation = { turns: [], tool_calls: [] };
const sql = (query: string, expected: unknown): Assertion => ({
  kind: "sql",
  sql: query,
  expected,
  weight: 1,
});

/** Makes an agent's table of reminders (`rows` of them) in the database at `location`. */
async function reminders(location: string, rows: number) {
  const db = await openDatabase(location);
  try {
    await db.exec("DROP TABLE IF EXISTS reminders; CREATE TABLE reminders (id serial PRIMARY KEY, at text)");
    for (let i = 0; i < rows; i++) await db.query("INSERT INTO reminders (at) VALUES ($1)", [`day ${i}`]);
  } finally {
    await db.close();
  }
}

describe("sql assertions on a PGlite folder", () => {
  let folder: string;
  beforeAll(async () => {
    folder = join(dir(), "agent-db");
    await (await openStore(folder)).close();
    await reminders(folder, 1);
  });

  it("pass on the expected value (a count is compared as a number) and fail showing the actual one", async () => {
    const out = await checkAssertions(
      [
        sql("SELECT count(*) FROM reminders", 1),
        sql("SELECT at FROM reminders", "day 0"),
        sql("SELECT count(*) FROM reminders", 2),
        // A count as text, as a PostgreSQL server sends a bigint: still the number 1, not 2.
        sql("SELECT count(*)::text FROM reminders", 1),
        sql("SELECT count(*)::text FROM reminders", 2),
      ],
      { conversation, database: folder },
    );
    expect(out.map((o) => [o.passed, o.actual, o.expected])).toEqual([
      [true, 1, 1],
      [true, "day 0", "day 0"],
      [false, 1, 2],
      [true, "1", 1],
      [false, "1", 2],
    ]);
    expect(out[2]!.label).toBe("SELECT count(*) FROM reminders");
  });

  it("run read-only: a query that writes fails, and nothing is written", async () => {
    const out = await checkAssertions(
      [
        sql("INSERT INTO reminders (at) VALUES ('x') RETURNING id", 2),
        sql("SELECT count(*) FROM reminders", 1),
      ],
      {
        conversation,
        database: folder,
      },
    );
    expect(out[0]).toMatchObject({ passed: false, error: expect.stringMatching(/read-only transaction/) });
    expect(out[1]!.passed).toBe(true);
  });

  it("say what is missing: no database named, or a query of several values", async () => {
    const [none] = await checkAssertions([sql("SELECT 1", 1)], { conversation });
    expect(none!.error).toMatch(/no database to query/);
    const [columns, rows] = await checkAssertions(
      [sql("SELECT 1 AS a, 2 AS b", 1), sql("SELECT n FROM generate_series(1, 3) AS n", 1)],
      { conversation, database: folder },
    );
    expect(columns).toMatchObject({
      passed: false,
      error: "the query returned 2 columns; expected one value",
    });
    expect(rows).toMatchObject({ passed: false, error: "the query returned 3 rows; expected one value" });
  });
});

describe.skipIf(!postgresUrl)(postgresSuite("sql assertions on PostgreSQL"), () => {
  afterAll(async () => {
    const db = await openDatabase(postgresUrl!);
    await db.exec("DROP TABLE IF EXISTS reminders").finally(() => db.close());
  });

  it("read the server in a read-only transaction", async () => {
    await reminders(postgresUrl!, 2);
    const out = await checkAssertions(
      [sql("SELECT count(*) FROM reminders", 2), sql("DELETE FROM reminders RETURNING id", 0)],
      {
        conversation,
        database: postgresUrl,
      },
    );
    // PostgreSQL sends a bigint count as text: it still compares as the number it is.
    expect(out[0]!.passed).toBe(true);
    expect(Number(out[0]!.actual)).toBe(2);
    expect(out[1]).toMatchObject({ passed: false, error: expect.stringMatching(/read-only transaction/) });
  });
});
