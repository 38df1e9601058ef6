// Runs a store test suite on embedded PGlite and, when DRAMATURG_TEST_POSTGRES_URL is set, on a real
// PostgreSQL too, each suite in a fresh schema so files and tests never see each other's rows.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";
import { openStore, type Store } from "../../src/store/index.ts";
import { postgresSuite, postgresUrl } from "../postgres.ts";
import { useTempDir } from "../temp-dir.ts";

export interface Backend {
  kind: "pglite" | "postgres";
  /** The suite's shared store (opened before its first test). */
  store(): Store;
  /** A store of its own, empty but migrated (closed after the suite). */
  fresh(): Promise<Store>;
  /** A location for a store of its own, not yet opened, that can be opened again (PGlite: a temp folder). */
  freshLocation(): Promise<string>;
}

export function describeStore(name: string, suite: (backend: Backend) => void): void {
  describe(`${name} (PGlite)`, () => {
    // Before the backend's hooks, so the folder goes after its stores have closed.
    const folder = useTempDir("dramaturg-store-");
    let folders = 0;
    const freshFolder = async () => join(folder(), `db-${++folders}`);
    suite(backend("pglite", async () => "memory://", freshFolder));
  });
  // Needs a PostgreSQL server, which a plain checkout does not have (see test/postgres.ts).
  describe.skipIf(!postgresUrl)(postgresSuite(`${name} (PostgreSQL)`), () =>
    suite(backend("postgres", freshSchema, freshSchema)),
  );
}

const freshSchema = () => freshSchemaUrl(postgresUrl!);

function backend(
  kind: Backend["kind"],
  location: () => Promise<string>,
  reopenable: () => Promise<string>,
): Backend {
  const opened: Store[] = [];
  let shared: Store | undefined;
  const fresh = async () => {
    const store = await openStore(await location());
    opened.push(store);
    return store;
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
    store: () => {
      if (!shared) throw new Error("the store is opened in beforeAll");
      return shared;
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
