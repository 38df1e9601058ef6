// Runs a store test suite on every backend: the in-memory store (`memory://`, no database), embedded
// PGlite and, when DRAMATURG_TEST_POSTGRES_URL is set, a real PostgreSQL, each suite in a fresh schema so
// files and tests never see each other's rows. One contract, every backend held to it.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";
import { type Db, openStore, type Store } from "../../src/store/index.ts";
import { openPgliteStore } from "../../src/store/open-sql-store.ts";
import { postgresSuite, postgresUrl } from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";

export interface Backend {
  kind: "memory" | "pglite" | "postgres";
  /** The suite's shared store (opened before its first test). */
  store(): Store;
  /** The shared store's raw database, for tests of SQL itself (not on the memory backend, which has none). */
  db(): Db;
  /** A store of its own, empty but migrated (closed after the suite). */
  fresh(): Promise<Store>;
  /** A location for a store of its own, not yet opened, that can be opened again (PGlite: a temp folder). */
  freshLocation(): Promise<string>;
}

export interface DescribeStoreOptions {
  /** Run on the SQL backends only, for this reason (a suite about SQL itself, e.g. migrations). */
  sqlOnly?: string;
}

export function describeStore(
  name: string,
  suite: (backend: Backend) => void,
  { sqlOnly }: DescribeStoreOptions = {},
): void {
  describe.skipIf(sqlOnly !== undefined)(`${name} (memory)`, () => {
    suite(
      backend(
        "memory",
        () => openStore("memory://"),
        async () => {
          throw new Error("a memory:// store cannot be opened again");
        },
      ),
    );
  });
  describe(`${name} (PGlite)`, () => {
    // Before the backend's hooks, so the folder goes after its stores have closed.
    const folder = useTempDir("dramaturg-store-");
    let folders = 0;
    const freshFolder = async () => join(folder(), `db-${++folders}`);
    // An in-memory PGlite (tests only; `memory://` is the memory store): as fast to open as it gets.
    suite(backend("pglite", () => openPgliteStore(undefined), freshFolder));
  });
  // Needs a PostgreSQL server, which a plain checkout does not have (see test/postgres.ts).
  describe.skipIf(!postgresUrl)(postgresSuite(`${name} (PostgreSQL)`), () =>
    suite(backend("postgres", async () => openStore(await freshSchema()), freshSchema)),
  );
}

const freshSchema = () => freshSchemaUrl(postgresUrl!);

function backend(
  kind: Backend["kind"],
  open: () => Promise<Store>,
  reopenable: () => Promise<string>,
): Backend {
  const opened: Store[] = [];
  let shared: Store | undefined;
  const fresh = async () => {
    const store = await open();
    opened.push(store);
    return store;
  };
  const store = () => {
    if (!shared) throw new Error("the store is opened in beforeAll");
    return shared;
  };
  beforeAll(async () => {
    shared = await fresh();
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await dropSchemas();
  });
  return {
    kind,
    store,
    db: () => {
      const { db } = store();
      if (!db) throw new Error(`the ${kind} store has no SQL database: skip this test on it`);
      return db;
    },
    fresh,
    freshLocation: reopenable,
  };
}

const schemas: string[] = [];

/** A URL whose connections use a new, empty schema of the test database. */
async function freshSchemaUrl(url: string): Promise<string> {
  const schema = `dramaturg_test_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await client.end();
  }
  schemas.push(schema);
  const u = new URL(url);
  u.searchParams.set("options", `-c search_path=${schema}`);
  return u.toString();
}

async function dropSchemas(): Promise<void> {
  if (!postgresUrl || schemas.length === 0) return;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    for (const schema of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
