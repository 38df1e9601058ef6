// PGlite on its own thread: what crosses the thread boundary (parameters, rows, errors, transactions)
// must come back as it would from PGlite on the caller's thread.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import type { Db } from "../../src/store/db.ts";
import { openPgliteDb } from "../../src/store/pglite-db.ts";
import { pristineDataDir } from "../../src/store/pristine-data-dir.ts";

// From the pristine data directory, as a store opens: initdb would cost seconds per database here.
const open = () => openPgliteDb(undefined, { dataDir: pristineDataDir });

let db: Db;
beforeAll(async () => {
  db = await open();
});
afterAll(async () => {
  await db.close();
});

describe("PGlite on a worker thread", () => {
  it("sends bulk text, integer, real, boolean and uuid arrays exactly, whatever their characters and NULLs", async () => {
    const texts = [
      "plain",
      'quote " and backslash \\',
      "comma, {braces}",
      "NULL",
      "",
      "ação 🎭 日本",
      null,
      "x".repeat(5000),
    ];
    const ints = [0, -1, 2147483647, -2147483648, null, 42];
    const bools = [true, false, null];
    const { rows } = await db.query<{ t: (string | null)[]; i: (number | null)[]; b: (boolean | null)[] }>(
      "SELECT $1::text[] AS t, $2::integer[] AS i, $3::boolean[] AS b",
      [texts, ints, bools],
    );
    expect(rows[0]).toEqual({ t: texts, i: ints, b: bools });
    const reals = [0, 7, 0.1, -2.5, 1e30, null];
    const ids = ["00000000-0000-4000-8000-00000000000A", null, "123e4567-e89b-42d3-a456-426614174000"];
    const more = await db.query<{ r: (number | null)[]; u: (string | null)[] }>(
      "SELECT $1::real[] AS r, $2::uuid[] AS u",
      [reals, ids],
    );
    expect(more.rows[0]).toEqual({
      r: [0, 7, 0.1, -2.5, 1e30, null],
      u: ids.map((id) => id?.toLowerCase() ?? null),
    });
    await expect(db.query("SELECT $1::uuid[]", [["not-a-uuid"]])).rejects.toThrow(
      /invalid input syntax for type uuid/,
    );
    const empty = await db.query<{ n: number | null }>("SELECT cardinality($1::text[]) AS n", [[]]);
    expect(empty.rows[0]!.n).toBe(0);
  });

  it("sends what binary arrays cannot hold the default way: numbers as text, non-integers, nested arrays", async () => {
    const { rows } = await db.query<{ t: string[]; i: number[] | null; n: number[][] }>(
      "SELECT $1::text[] AS t, $2::real[]::integer[] AS i, $3::integer[] AS n",
      [
        [1, 2.5],
        [1.4, 2.6],
        [
          [1, 2],
          [3, 4],
        ],
      ],
    );
    expect(rows[0]).toEqual({
      t: ["1", "2.5"],
      i: [1, 3],
      n: [
        [1, 2],
        [3, 4],
      ],
    });
  });

  it("brings rows back with their types: timestamps as dates, JSON as values, bytes as bytes", async () => {
    const { rows } = await db.query<{ at: Date; doc: unknown; bytes: Uint8Array }>(
      `SELECT '2026-01-02T03:04:05Z'::timestamptz AS at, '{"a":[1,"b",null]}'::jsonb AS doc, '\\x0102ff'::bytea AS bytes`,
    );
    expect(rows[0]!.at).toBeInstanceOf(Date);
    expect(rows[0]!.at.toISOString()).toBe("2026-01-02T03:04:05.000Z");
    expect(rows[0]!.doc).toEqual({ a: [1, "b", null] });
    expect([...rows[0]!.bytes]).toEqual([1, 2, 255]);
  });

  it("reports a database error as a StoreError with PostgreSQL's code, and keeps working", async () => {
    await db.exec("CREATE TABLE thread_unique (k text PRIMARY KEY)");
    await db.query("INSERT INTO thread_unique VALUES ($1)", ["a"]);
    const failure = await db.query("INSERT INTO thread_unique VALUES ($1)", ["a"]).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as Error).message).toMatch(/duplicate key.*\(23505\)/);
    expect((await db.query("SELECT count(*)::integer AS n FROM thread_unique")).rows).toEqual([{ n: 1 }]);
  });

  it("commits a transaction that resolves and rolls back one that throws, holding other statements back meanwhile", async () => {
    await db.exec("CREATE TABLE thread_tx (n integer)");
    const order: string[] = [];
    const committed = db.transaction(async (tx) => {
      await tx.query("INSERT INTO thread_tx VALUES (1)");
      order.push("inside");
      await new Promise((resolve) => setTimeout(resolve, 50));
      await tx.query("INSERT INTO thread_tx VALUES (2)");
      return "done";
    });
    // Sent while the transaction is open: it runs after the commit, and sees both rows.
    const outside = db.query<{ n: number }>("SELECT count(*)::integer AS n FROM thread_tx").then((r) => {
      order.push("outside");
      return r.rows[0]!.n;
    });
    expect(await committed).toBe("done");
    expect(await outside).toBe(2);
    expect(order).toEqual(["inside", "outside"]);
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO thread_tx VALUES (3)");
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    const failed = db.transaction((tx) => tx.query("INSERT INTO thread_tx VALUES ('not a number')"));
    await expect(failed).rejects.toThrow(StoreError);
    expect((await db.query("SELECT array_agg(n ORDER BY n) AS n FROM thread_tx")).rows).toEqual([
      { n: [1, 2] },
    ]);
  });

  it("refuses every call once closed, with a clear error", async () => {
    const other = await open();
    await other.close();
    await expect(other.query("SELECT 1")).rejects.toThrow(/database thread stopped/);
  });
});
