// The one database contract every repository uses; PGlite and PostgreSQL each have an adapter.
// Keeping it this small is what lets the same SQL and migrations run on both.

export interface QueryResult<T> {
  rows: T[];
  /** Rows returned by a SELECT or changed by INSERT/UPDATE/DELETE. */
  rowCount: number;
}

/** Something SQL can be sent to: the database, or an open transaction. */
export interface Queryable {
  /** Runs one statement with `$1…` parameters. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
  /** Runs a script of statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  /** `pglite` (embedded) or `postgres` (a server). The SQL is the same; this is for diagnostics. */
  readonly dialect: "pglite" | "postgres";
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
