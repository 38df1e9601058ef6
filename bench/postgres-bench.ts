// The PostgreSQL server a benchmark of the queue runs on: the tests' (DRAMATURG_TEST_POSTGRES_URL, see
// test/postgres.ts), in databases made for the run and dropped after it; without one, the benchmark is skipped
// and says so rather than failing.
import { dropFreshDatabases, freshDatabase, postgresUrl } from "../test/postgres.ts";
import { log, type Outcome } from "./report.ts";

export { postgresUrl as benchPostgresUrl, queryRows } from "../test/postgres.ts";

/** A benchmark's outcome when there is no server to run on; says so on stderr as well. */
export function skippedWithoutPostgres(): Outcome {
  log("  skipped: set DRAMATURG_TEST_POSTGRES_URL=postgres://user@127.0.0.1:PORT/db to run it");
  return {
    checks: [{ metric: "skipped", value: "DRAMATURG_TEST_POSTGRES_URL is not set" }],
    details: { skipped: true },
  };
}

/** A new, empty database on the server named `dramaturg_bench_<name>_<hex>`, and its URL. */
export function benchDatabase(name: string): Promise<string> {
  if (!postgresUrl) throw new Error("benchDatabase(): DRAMATURG_TEST_POSTGRES_URL is not set");
  return freshDatabase(`dramaturg_bench_${name}`);
}

/**
 * Drops every database `benchDatabase` made, for a benchmark's `finally`: a failure to drop is said on stderr,
 * not thrown, so that it does not hide the error that ended the benchmark.
 */
export async function dropBenchDatabases(): Promise<void> {
  await dropFreshDatabases().catch((error: Error) =>
    log(`  could not drop a bench database: ${error.message}`),
  );
}
