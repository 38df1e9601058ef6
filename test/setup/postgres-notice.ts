// Says once per run, in the default reporter's output, that the PostgreSQL tests were skipped and why.
import { POSTGRES_SKIPPED, postgresUrl } from "../postgres.ts";

export function setup(): void {
  if (!postgresUrl) console.warn(POSTGRES_SKIPPED);
}
