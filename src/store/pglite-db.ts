// The embedded adapter: PGlite (PostgreSQL in WebAssembly) in memory or in a data folder.
import { mkdir } from "node:fs/promises";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { DramaturgError, StoreError } from "../core/index.ts";
import type { Db, Queryable, QueryResult } from "./db.ts";

/** Opens PGlite in memory (no folder) or in `folder`, creating the folder if it is missing. */
export async function openPgliteDb(folder?: string): Promise<Db> {
  let pg: PGlite;
  try {
    if (folder !== undefined) await mkdir(folder, { recursive: true });
    pg = await PGlite.create(folder);
    // A new 16 MB WAL segment is created by writing its last byte, not by filling it with zeros page by
    // page: in memory, a file filled that way is copied each time it outgrows its buffer (a pause of tens
    // of milliseconds per segment); on disk, PostgreSQL documents this setting as safe.
    await pg.exec("SET wal_init_zero = off");
  } catch (error) {
    throw new StoreError(`could not open the store at ${folder ?? "memory://"}: ${describe(error)}`, {
      cause: error,
    });
  }
  return {
    dialect: "pglite",
    query: (sql, params) => run(pg, sql, params),
    exec: (sql) => guard(async () => void (await pg.exec(sql))),
    transaction: (fn) => guard(() => pg.transaction((tx) => fn(queryable(tx)))),
    close: () => guard(() => pg.close()),
  };
}

function queryable(tx: Transaction): Queryable {
  return {
    query: (sql, params) => run(tx, sql, params),
    exec: (sql) => guard(async () => void (await tx.exec(sql))),
  };
}

async function run<T>(
  target: PGlite | Transaction,
  sql: string,
  params: readonly unknown[] | undefined,
): Promise<QueryResult<T>> {
  const result = await guard(() => target.query<T>(sql, params as unknown[] | undefined));
  return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
}

async function guard<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (error) {
    if (DramaturgError.isInstance(error)) throw error;
    throw new StoreError(`database error: ${describe(error)}`, { cause: error });
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}
