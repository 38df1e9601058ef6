// The PostgreSQL server the store's second backend is tested on: DRAMATURG_TEST_POSTGRES_URL names it (CI
// starts one; README, "Tests", shows how locally). Without it those tests are skipped, and say why. Here too
// the databases a test file (or a benchmark, bench/postgres-bench.ts) makes there and drops at its end; no
// vitest in this file, so that the benchmarks can share it.
import { randomBytes } from "node:crypto";
import pg from "pg";

/** e.g. postgres://postgres@127.0.0.1:55432/postgres */
export const postgresUrl = process.env.DRAMATURG_TEST_POSTGRES_URL || undefined;

/** Printed once per run when the PostgreSQL tests are skipped. */
export const POSTGRES_SKIPPED =
  "PostgreSQL tests skipped: set DRAMATURG_TEST_POSTGRES_URL=postgres://user@127.0.0.1:PORT/db to run them (README: the tests)";

/** A PostgreSQL suite's name, saying what enables it when it is skipped. */
export function postgresSuite(name: string): string {
  return postgresUrl ? name : `${name} (skipped: set DRAMATURG_TEST_POSTGRES_URL)`;
}

/** The rows of one statement, on a connection of its own that is closed after it. */
export async function queryRows<T = Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** One statement on the server's own database (DRAMATURG_TEST_POSTGRES_URL): CREATE and DROP of others. */
export async function adminQuery(text: string): Promise<void> {
  if (!postgresUrl) throw new Error("adminQuery(): DRAMATURG_TEST_POSTGRES_URL is not set");
  await queryRows(postgresUrl, text);
}

const created: string[] = [];

/**
 * A new, empty database on the server, named `<prefix>_<12 hex digits>`, and its URL. A prefix a file of
 * its own, so that a database left behind says who made it; `dropFreshDatabases` drops it.
 */
export async function freshDatabase(prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  created.push(name);
  const url = new URL(postgresUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Drops every database `freshDatabase` made in this process (a test file's: vitest gives each its own
 * modules), FORCE so that a connection still open (a worker killed late) does not keep it: for `afterAll`.
 */
export async function dropFreshDatabases(): Promise<void> {
  for (const name of created.splice(0)) await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
