// The server adapter: a pg connection pool. Every message it raises is scrubbed of the URL's
// password, because connection errors end up in logs and terminal output.
import type pg from "pg";
import { DramaturgError, redactSecrets, redactUrl, StoreError } from "../core/index.ts";
import type { Db, Queryable, QueryResult } from "./db.ts";

export interface PostgresOptions {
  /** Most connections the pool opens. */
  maxConnections?: number;
  /** How long to wait for a connection before failing. */
  connectTimeoutMs?: number;
}

/** Opens a pool and checks that the server answers; fails with a StoreError (exit code 3). */
export async function openPostgresDb(
  url: string,
  { maxConnections = 10, connectTimeoutMs = 10_000 }: PostgresOptions = {},
): Promise<Db> {
  // Loaded here, not at the top: importing dramaturg, or using PGlite, does not load pg.
  const { default: Pg } = await import("pg");
  let pool: pg.Pool;
  try {
    pool = new Pg.Pool({
      connectionString: url,
      max: maxConnections,
      connectionTimeoutMillis: connectTimeoutMs,
      application_name: "dramaturg",
    });
  } catch (error) {
    throw storeError(`could not connect to ${redactUrl(url)}`, error, url);
  }
  // An idle connection that drops emits here; without a listener Node would crash. The next query
  // gets a fresh connection or fails with a StoreError.
  pool.on("error", () => {});
  const guard = async <T>(op: () => Promise<T>, what: string): Promise<T> => {
    try {
      return await op();
    } catch (error) {
      if (DramaturgError.isInstance(error)) throw error;
      throw storeError(what, error, url);
    }
  };
  const db: Db = {
    dialect: "postgres",
    query: (sql, params) => guard(() => run(pool, sql, params), "database error"),
    exec: (sql) => guard(async () => void (await pool.query(sql)), "database error"),
    async transaction(fn) {
      const client = await guard(() => pool.connect(), `could not connect to ${redactUrl(url)}`).catch(
        (error: unknown) => {
          throw StoreError.isInstance(error) ? (unreachable(error, url, connectTimeoutMs) ?? error) : error;
        },
      );
      let broken: Error | undefined;
      try {
        await guard(() => client.query("BEGIN"), "database error");
        const result = await fn(queryableClient(client, guard));
        await guard(() => client.query("COMMIT"), "database error");
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch (rollbackError) {
          broken = rollbackError as Error;
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    close: () => guard(() => pool.end(), "could not close the connection pool"),
  };
  await db.query("SELECT 1").catch(async (error: unknown) => {
    await pool.end().catch(() => {});
    throw StoreError.isInstance(error)
      ? (unreachable(error, url, connectTimeoutMs) ?? reword(error, `could not connect to ${redactUrl(url)}`))
      : error;
  });
  return db;
}

function queryableClient(
  client: pg.PoolClient,
  guard: <T>(op: () => Promise<T>, what: string) => Promise<T>,
): Queryable {
  return {
    query: (sql, params) => guard(() => run(client, sql, params), "database error"),
    exec: (sql) => guard(async () => void (await client.query(sql)), "database error"),
  };
}

async function run<T>(
  target: pg.Pool | pg.PoolClient,
  sql: string,
  params: readonly unknown[] | undefined,
): Promise<QueryResult<T>> {
  const result = await target.query(sql, params as unknown[] | undefined);
  return { rows: result.rows as T[], rowCount: result.rowCount ?? result.rows.length };
}

/**
 * A StoreError whose message and cause carry no trace of the password. The driver's own error is not
 * kept as the cause (it may hold connection details); a scrubbed copy with its code stands in for it.
 */
function storeError(what: string, error: unknown, url: string): StoreError {
  const original = error instanceof Error ? error : new Error(String(error));
  const code = (original as { code?: unknown }).code;
  // Node reports a refused connection to `localhost` (IPv4 and IPv6) as an AggregateError with no message.
  const text =
    original.message ||
    (original instanceof AggregateError
      ? original.errors.map((e: unknown) => String((e as Error)?.message ?? e)).join("; ")
      : "") ||
    original.name;
  const message = redactSecrets(text, { urls: [url] });
  const cause = Object.assign(new Error(message), typeof code === "string" ? { code } : {});
  cause.stack = redactSecrets(original.stack ?? "", { urls: [url] });
  const coded = typeof code === "string" && !message.includes(code) ? ` (${code})` : "";
  return new StoreError(`${what}: ${message}${coded}`, { cause });
}

/** Why a server could not be reached, by the network error's code; anything else is not ours to explain. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "no such host",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ECONNRESET: "the connection was closed",
  ETIMEDOUT: "no answer (timed out)",
};

/**
 * A connection that never reached a server, as one line with a way forward: where it looked (the host and
 * port, the URL without its password), whether it runs, and how to go on without one. A server that
 * answered and refused (a login, a missing database) keeps the driver's own words.
 */
function unreachable(error: StoreError, url: string, timeoutMs: number): StoreError | undefined {
  const cause = error.cause as { code?: unknown; message?: string } | undefined;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  // pg gives a connection timeout, or a socket its `connect_timeout` closed, no code: only its words.
  const words = cause?.message ?? "";
  const reason =
    (code && UNREACHABLE[code]) ??
    (/timeout|timed out/i.test(words)
      ? `no answer within ${timeoutMs / 1000} s`
      : /terminated unexpectedly/i.test(words)
        ? "the connection closed before the server answered"
        : undefined);
  if (reason === undefined) return undefined;
  return new StoreError(
    `could not connect to PostgreSQL at ${hostAndPort(url)}: ${reason}. Is it running? Check the host and port of ${redactUrl(url)}, or try --db memory:// to run without one`,
    { cause: error.cause },
  );
}

/** `host:port` of a PostgreSQL URL, with the defaults the driver uses. */
function hostAndPort(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || u.searchParams.get("host") || "localhost";
    return `${host}:${u.port || u.searchParams.get("port") || "5432"}`;
  } catch {
    return redactUrl(url);
  }
}

function reword(error: StoreError, what: string): StoreError {
  return new StoreError(error.message.replace(/^database error/, what), { cause: error.cause });
}
