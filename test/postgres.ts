// The PostgreSQL server the store's second backend is tested on: DRAMATURG_TEST_POSTGRES_URL names it (CI
// starts one; README, "Tests", shows how locally). Without it those tests are skipped, and say why.

/** e.g. postgres://postgres@127.0.0.1:55432/postgres */
export const postgresUrl = process.env.DRAMATURG_TEST_POSTGRES_URL || undefined;

/** Printed once per run when the PostgreSQL tests are skipped. */
export const POSTGRES_SKIPPED =
  "PostgreSQL tests skipped: set DRAMATURG_TEST_POSTGRES_URL=postgres://user@127.0.0.1:PORT/db to run them (README: the tests)";

/** A PostgreSQL suite's name, saying what enables it when it is skipped. */
export function postgresSuite(name: string): string {
  return postgresUrl ? name : `${name} (skipped: set DRAMATURG_TEST_POSTGRES_URL)`;
}
