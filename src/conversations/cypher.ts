// Graphs that Cypher assertions read and Cypher setup writes: a Neo4j server through neo4j-driver (its
// credentials from NEO4J_USERNAME / NEO4J_PASSWORD, never from the job), or an embedded Kùzu database file
// through kuzu-wasm. Both engines load on first use, so a job without Cypher, and the CLI, never pay for them.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type { Driver } from "neo4j-driver";
import { InputError, redactSecrets, redactUrl } from "../core/index.ts";

export type GraphLocation =
  /** A Neo4j server (or cluster) spoken to over Bolt; the URL carries no credentials. */
  | { kind: "neo4j"; url: string }
  /** An embedded Kùzu database: the path of its file, created (with its folder) by a setup step. */
  | { kind: "embedded"; path: string };

/** The accepted forms, for messages and help. */
export const GRAPH_LOCATION_FORMS =
  "a Kùzu database file, or a neo4j://, neo4j+s://, bolt:// or bolt+s:// URL";

/** The kuzu-wasm version the embedded graph is tested with (its storage format is tied to it). */
export const EMBEDDED_GRAPH_PACKAGE = "kuzu-wasm@0.11.3";

const NEO4J = /^(neo4j|bolt)(\+s|\+ssc)?:\/\//i;
/** `scheme://` of two letters or more, so a Windows drive (`C:\…`) is still a path. */
const OTHER_SCHEME = /^[a-z][a-z0-9+.-]+:\/\//i;

/**
 * Parses where a graph is: a `neo4j://`, `neo4j+s://`, `bolt://` or `bolt+s://` URL (`+ssc` too) is a
 * server, anything else the path of an embedded Kùzu database. A URL with a user or password in it is
 * refused (they belong in NEO4J_USERNAME / NEO4J_PASSWORD), and so is any other scheme.
 */
export function parseGraphLocation(text: string): GraphLocation {
  const trimmed = text.trim();
  if (trimmed === "") throw new InputError(`no graph given; expected ${GRAPH_LOCATION_FORMS}`);
  if (NEO4J.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch (error) {
      throw new InputError(`the graph "${redactUrl(trimmed)}" is not a valid URL`, { cause: error });
    }
    // Checked on the text as well as the parsed URL: a password with an unescaped `@` splits oddly.
    if (url.username || url.password || /^[^/]*\/\/[^/]*@/.test(trimmed))
      throw new InputError(
        `the graph URL ${redactUrl(trimmed)} has credentials in it; give them in NEO4J_USERNAME and NEO4J_PASSWORD instead`,
      );
    return { kind: "neo4j", url: trimmed };
  }
  if (OTHER_SCHEME.test(trimmed))
    throw new InputError(`unknown graph "${redactUrl(trimmed)}": expected ${GRAPH_LOCATION_FORMS}`);
  return { kind: "embedded", path: trimmed };
}

/** A graph opened for reading (assertions) or writing (setup). */
export interface Graph {
  /**
   * Runs one query, read-only, and returns its one value: one row of one column. No row, several rows
   * or several columns, several statements, a write or a syntax error reject with the reason.
   */
  readValue(query: string): Promise<unknown>;
  /** Runs a setup script: its statements (separated by `;`) one after another, each committed. */
  run(script: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenGraphOptions {
  /** Open for setup (writes allowed); otherwise read-only. */
  write?: boolean;
  /** Connection and transaction timeout against a server, in milliseconds. Default 10 s. */
  timeoutMs?: number;
  /** Where NEO4J_USERNAME, NEO4J_PASSWORD and NEO4J_DATABASE are read. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** Opens the graph at a location (see {@link parseGraphLocation}). */
export async function openGraph(
  location: string | GraphLocation,
  { write = false, timeoutMs = 10_000, env = process.env }: OpenGraphOptions = {},
): Promise<Graph> {
  const where = typeof location === "string" ? parseGraphLocation(location) : location;
  if (where.kind === "neo4j") return openNeo4jGraph(where.url, { write, timeoutMs, env });
  return openEmbeddedGraph(where.path, write);
}

/**
 * The statements of a Cypher text, split at each `;` outside quotes, backticks and comments; empty
 * ones dropped. Neo4j runs one statement a call, so a setup script runs statement by statement everywhere.
 */
export function cypherStatements(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  /** Whether the statement so far has anything but blanks and comments. */
  let code = false;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\" && quote !== "`") i++;
      else if (c === quote) quote = undefined;
    } else if (c === "/" && text[i + 1] === "/") i = endOf(text, "\n", i);
    else if (c === "/" && text[i + 1] === "*") i = endOf(text, "*/", i) + 1;
    else if (c === ";") {
      if (code) out.push(text.slice(start, i).trim());
      start = i + 1;
      code = false;
    } else if (!/\s/.test(c)) {
      code = true;
      if (c === "'" || c === '"' || c === "`") quote = c;
    }
  }
  if (code) out.push(text.slice(start).trim());
  return out;
}

function endOf(text: string, end: string, from: number): number {
  const at = text.indexOf(end, from + 2);
  return at < 0 ? text.length : at;
}

/** The one statement of an assertion's query, or why there is not exactly one. */
function oneStatement(query: string): string {
  const statements = cypherStatements(query);
  if (statements.length !== 1)
    throw new Error(`the query has ${statements.length} statements; expected one that returns a value`);
  return statements[0]!;
}

/** The one value of a result's rows, or why there is not exactly one. */
function oneValue(rows: readonly (readonly unknown[])[]): unknown {
  if (rows.length === 0) throw new Error("the query returned no rows; expected one value");
  if (rows.length > 1) throw new Error(`the query returned ${rows.length} rows; expected one value`);
  const row = rows[0]!;
  if (row.length !== 1) throw new Error(`the query returned ${row.length} columns; expected one value`);
  return plainValue(row[0]);
}

/**
 * A value from either engine as plain JSON-like data: boxed numbers unboxed (Kùzu), dates as ISO text,
 * a node or relationship as its properties, a temporal or spatial value as its Cypher text (Neo4j).
 */
export function plainValue(value: unknown): unknown {
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return value.valueOf();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plainValue);
  if (value && typeof value === "object") {
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto === Object.prototype || proto === null)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainValue(v)]));
    if ("properties" in value && ("labels" in value || "type" in value)) return plainValue(value.properties);
    if (value.toString !== Object.prototype.toString) return String(value);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainValue(v)]));
  }
  return value;
}

// --- Neo4j ---------------------------------------------------------------------------------------------

async function openNeo4jGraph(
  url: string,
  { write, timeoutMs, env }: Required<OpenGraphOptions>,
): Promise<Graph> {
  const neo4j = (await import("neo4j-driver")).default;
  const username = env.NEO4J_USERNAME || "neo4j";
  const password = env.NEO4J_PASSWORD;
  const database = env.NEO4J_DATABASE || undefined;
  // Whatever the driver says, the password never leaves in a message.
  const safe = (error: unknown): Error =>
    new Error(
      redactSecrets((error as Error).message ?? String(error), { secrets: password ? [password] : [] }),
    );
  let driver: Driver;
  try {
    driver = neo4j.driver(url, password ? neo4j.auth.basic(username, password) : undefined, {
      useBigInt: true,
      connectionTimeout: timeoutMs,
      connectionAcquisitionTimeout: timeoutMs,
      // One attempt: a server that is down fails the check now rather than after 30 s of retries.
      maxTransactionRetryTime: 0,
    });
  } catch (error) {
    throw safe(error);
  }
  const mode = write ? neo4j.session.WRITE : neo4j.session.READ;
  return {
    async readValue(query) {
      const statement = oneStatement(query);
      const session = driver.session({ defaultAccessMode: neo4j.session.READ, database });
      try {
        // A read transaction: the server refuses any write in it ("Writing in read access mode not allowed").
        const result = await session.executeRead((tx) => tx.run(statement), { timeout: timeoutMs });
        return oneValue(result.records.map((r) => r.keys.map((k) => r.get(k))));
      } catch (error) {
        throw safe(error);
      } finally {
        await session.close();
      }
    },
    async run(script) {
      const session = driver.session({ defaultAccessMode: mode, database });
      try {
        for (const statement of cypherStatements(script))
          await session.run(statement, {}, { timeout: timeoutMs });
      } catch (error) {
        throw safe(error);
      } finally {
        await session.close();
      }
    },
    async close() {
      await driver.close();
    },
  };
}

// --- Embedded Kùzu (kuzu-wasm) -----------------------------------------------------------------------------

/** The part of kuzu-wasm's synchronous Node API used here (the package ships no types). */
interface KuzuWasm {
  init(): Promise<void>;
  Database: new (
    path: string,
    bufferPoolSize: number,
    maxNumThreads: number,
    enableCompression: boolean,
    readOnly: boolean,
  ) => { close(): void };
  Connection: new (database: unknown) => { query(statement: string): KuzuResult; close(): void };
}
interface KuzuResult {
  isSuccess(): boolean;
  getErrorMessage(): string;
  getAllRows(): unknown[][];
  close(): void;
}

/** Enough for the small graphs of tests and demos; the buffer pool is virtual until used. */
const BUFFER_POOL_BYTES = 256 * 1024 * 1024;

let engine: Promise<KuzuWasm> | undefined;

/**
 * kuzu-wasm's synchronous Node build, started once per process (≈0.3 s, ≈200 MB). Required rather than
 * imported: its `nodejs/sync` entry is exported for `require` only. It reads and writes real files.
 */
function embeddedEngine(): Promise<KuzuWasm> {
  engine ??= (async () => {
    let kuzu: KuzuWasm;
    try {
      kuzu = createRequire(import.meta.url)("kuzu-wasm/nodejs/sync") as KuzuWasm;
    } catch (error) {
      throw new InputError(
        `an embedded graph needs the optional package kuzu-wasm: npm install ${EMBEDDED_GRAPH_PACKAGE}`,
        { cause: error },
      );
    }
    await kuzu.init();
    return kuzu;
  })();
  engine.catch(() => {
    engine = undefined;
  });
  return engine;
}

async function openEmbeddedGraph(path: string, write: boolean): Promise<Graph> {
  const kuzu = await embeddedEngine();
  // Setup makes the graph; an assertion opens it read-only, so Kùzu itself refuses any write.
  if (write) mkdirSync(dirname(path), { recursive: true });
  const database = new kuzu.Database(path, BUFFER_POOL_BYTES, 1, true, !write);
  let connection: InstanceType<KuzuWasm["Connection"]>;
  try {
    connection = new kuzu.Connection(database);
  } catch (error) {
    database.close();
    throw error;
  }
  /** Runs one statement and returns its rows; a failure rejects with Kùzu's message. */
  const query = (statement: string): unknown[][] => {
    const result = connection.query(statement);
    try {
      if (!result.isSuccess()) throw new Error(result.getErrorMessage());
      return result.getAllRows();
    } finally {
      result.close();
    }
  };
  return {
    async readValue(text) {
      return oneValue(query(oneStatement(text)));
    },
    async run(script) {
      for (const statement of cypherStatements(script)) query(statement);
    },
    async close() {
      connection.close();
      database.close();
    },
  };
}
