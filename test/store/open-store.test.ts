// openStore: which backend a location selects, data folders that persist, and errors that never
// show a database password.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import { MIGRATIONS, openStore, redactUrl } from "../../src/store/index.ts";
import { openPgliteStore } from "../../src/store/open-sql-store.ts";
import { postgresSuite, postgresUrl } from "../postgres.ts";
import { tempDir } from "../temp-dir.ts";

/** Every text an error could reach a user or a log through. */
function everythingShown(error: unknown): string {
  const e = error as Error & { cause?: Error };
  return [
    String(e),
    e.message,
    e.stack,
    String(e.cause),
    e.cause?.message,
    e.cause?.stack,
    JSON.stringify(e),
  ].join("\n");
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to fail");
}

describe("openStore", () => {
  test("memory:// opens an empty in-memory store with no database, every migration reported applied", async () => {
    const store = await openStore("memory://");
    try {
      expect(store.dialect).toBe("memory");
      expect(store.db).toBeUndefined();
      const status = await store.migrationStatus();
      expect(status.pending).toEqual([]);
      expect(status).toMatchObject({ current: MIGRATIONS.length, latest: MIGRATIONS.length, changed: [] });
      expect(status.applied.map((m) => [m.version, m.name])).toEqual(
        MIGRATIONS.map((m) => [m.version, m.name]),
      );
      expect(await store.agents.list()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test("two memory:// stores share nothing", async () => {
    const [a, b] = await Promise.all([openStore("memory://"), openStore("memory://")]);
    try {
      await a.agents.upsert({ id: "marta", name: "Marta", persona: "A chef." });
      expect(await b.agents.list()).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("a closed memory:// store refuses every call, as a closed database does", async () => {
    const store = await openStore("memory://");
    await store.close();
    await expect(store.agents.list()).rejects.toSatisfy(StoreError.isInstance);
    await expect(store.migrationStatus()).rejects.toThrow(/closed/);
  });

  test("an in-memory PGlite (for tests) opens empty and migrated", async () => {
    const store = await openPgliteStore(undefined);
    try {
      expect(store.dialect).toBe("pglite");
      expect((await store.migrationStatus()).pending).toEqual([]);
      expect(await store.agents.list()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  test("a data folder is created when missing and keeps its rows after close and reopen", async () => {
    const folder = join(tempDir("dramaturg-open-"), "nested", "db");
    const first = await openStore(folder);
    await first.agents.upsert({ id: "marta", name: "Marta", persona: "A chef who loves garlic." });
    await first.close();

    const second = await openStore(folder);
    try {
      expect((await second.agents.get("marta"))?.persona).toBe("A chef who loves garlic.");
      expect((await second.migrationStatus()).applied).toHaveLength(MIGRATIONS.length);
    } finally {
      await second.close();
    }
  });

  test("a path that cannot be a data folder fails with a StoreError of exit code 3", async () => {
    const file = join(tempDir("dramaturg-open-"), "not-a-folder");
    await writeFile(file, "x");
    const error = await failureOf(openStore(file));
    expect(StoreError.isInstance(error)).toBe(true);
    expect((error as StoreError).exitCode).toBe(3);
  });

  test("an unreachable PostgreSQL server fails with a StoreError of exit code 3", async () => {
    const error = await failureOf(openStore("postgres://dramaturg@127.0.0.1:1/dramaturg"));
    expect(StoreError.isInstance(error)).toBe(true);
    expect((error as StoreError).exitCode).toBe(3);
    expect((error as StoreError).message).toContain("postgres://dramaturg@127.0.0.1:1/dramaturg");
  });

  test("an unreachable PostgreSQL server is one line: where, why, and the way on without one", async () => {
    for (const [url, where] of [
      ["postgres://dramaturg@127.0.0.1:1/dramaturg", "127.0.0.1:1"],
      ["postgres://dramaturg@localhost:1/dramaturg", "localhost:1"],
    ] as const) {
      const error = await failureOf(openStore(url));
      expect((error as StoreError).message).toBe(
        `could not connect to PostgreSQL at ${where}: connection refused. Is it running? Check the host and port of ${url}, or try --db memory:// to run without one`,
      );
    }
  });

  test("the password of a PostgreSQL URL never appears in a connection error", async () => {
    for (const password of ["hunter2-secret", "p%40ss%2Fw0rd-secret"]) {
      const url = `postgresql://alice:${password}@127.0.0.1:1/dramaturg?connect_timeout=2`;
      const error = await failureOf(openStore(url));
      expect(StoreError.isInstance(error)).toBe(true);
      const shown = everythingShown(error);
      expect(shown).not.toContain(password);
      expect(shown).not.toContain(decodeURIComponent(password));
      expect((error as Error).message).toContain("postgresql://alice:***@127.0.0.1:1/dramaturg");
    }
  });

  test.skipIf(!postgresUrl)(
    postgresSuite("a rejected PostgreSQL login names the redacted URL and not the password"),
    async () => {
      // A database that does not exist: the server answers, and refuses, whatever the auth method.
      const u = new URL(postgresUrl!);
      u.password = "do-not-print-me";
      u.pathname = "/dramaturg_no_such_database";
      const error = await failureOf(openStore(u.toString()));
      expect(StoreError.isInstance(error)).toBe(true);
      expect(everythingShown(error)).not.toContain("do-not-print-me");
      expect((error as Error).message).toContain(":***@");
    },
  );

  test.skipIf(!postgresUrl)(
    postgresSuite("an open PostgreSQL store shows its location with the password redacted"),
    async () => {
      // The test server may ignore the password (trust authentication); the location must hide it anyway.
      const u = new URL(postgresUrl!);
      u.password = "not-for-display";
      const store = await openStore(u.toString());
      try {
        expect(store.dialect).toBe("postgres");
        expect(store.location).toContain(":***@");
        expect(store.location).not.toContain("not-for-display");
      } finally {
        await store.close();
      }
    },
  );
});

describe("redactUrl", () => {
  test("replaces the password and keeps user, host, port, database and query", () => {
    expect(redactUrl("postgres://user:s3cret@db.example:5432/evals?sslmode=require")).toBe(
      "postgres://user:***@db.example:5432/evals?sslmode=require",
    );
  });

  test("hides a password that contains unescaped @ and / characters", () => {
    expect(redactUrl("postgres://user:p@ss/word@host/db")).toBe("postgres://user:***@host/db");
  });

  test("leaves a URL without a password unchanged", () => {
    expect(redactUrl("postgres://user@host/db")).toBe("postgres://user@host/db");
    expect(redactUrl("postgres://host/db")).toBe("postgres://host/db");
  });
});
