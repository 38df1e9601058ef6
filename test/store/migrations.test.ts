// Migrations: applied once, in order, in one transaction; idempotent; safe under concurrent opens;
// and reported by migrationStatus for `doctor`.
import { expect, test } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import { MIGRATIONS, type Migration, migrate, migrationStatus, openStore } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

describeStore(
  "migrations",
  ({ kind, store, db, freshLocation }) => {
    test("migrating an up-to-date database applies nothing", async () => {
      expect(await migrate(db())).toEqual([]);
      const status = await store().migrationStatus();
      expect(status).toMatchObject({
        current: MIGRATIONS.length,
        latest: MIGRATIONS.length,
        pending: [],
        changed: [],
      });
    });

    test("opening the same database twice applies each migration once", async () => {
      const location = await freshLocation();
      const first = await openStore(location);
      await first.agents.upsert({ id: "bob", name: "Bob", persona: "A baker." });
      await first.close();
      const second = await openStore(location);
      try {
        const status = await second.migrationStatus();
        expect(status.applied.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
        expect(await second.agents.get("bob")).toBeDefined();
      } finally {
        await second.close();
      }
    });

    test("a database opened without migrating reports every migration as pending", async () => {
      const unmigrated = await openStore(await freshLocation(), { migrate: false });
      try {
        const status = await unmigrated.migrationStatus();
        expect(status.current).toBe(0);
        expect(status.latest).toBe(MIGRATIONS.length);
        expect(status.pending.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
      } finally {
        await unmigrated.close();
      }
    });

    test("migrations are applied in order and only the missing ones run", async () => {
      const unmigrated = await openStore(await freshLocation(), { migrate: false });
      const list: Migration[] = [
        { version: 1, name: "one", sql: "CREATE TABLE m_one (x integer)" },
        {
          version: 2,
          name: "two",
          sql: "ALTER TABLE m_one ADD COLUMN y integer; CREATE TABLE m_two (z integer)",
        },
      ];
      try {
        expect(await migrate(unmigrated.db!, list.slice(0, 1))).toEqual([1]);
        const between = await migrationStatus(unmigrated.db!, list);
        expect(between).toMatchObject({ current: 1, latest: 2, pending: [{ version: 2, name: "two" }] });
        expect(await migrate(unmigrated.db!, list)).toEqual([2]);
        expect((await migrationStatus(unmigrated.db!, list)).pending).toEqual([]);
      } finally {
        await unmigrated.close();
      }
    });

    test("a migration that fails leaves the database as it was", async () => {
      const unmigrated = await openStore(await freshLocation(), { migrate: false });
      const list: Migration[] = [
        { version: 1, name: "good", sql: "CREATE TABLE m_good (x integer)" },
        { version: 2, name: "bad", sql: "CREATE TABLE m_bad (x integer); SELECT no_such_function()" },
      ];
      try {
        await expect(migrate(unmigrated.db!, list)).rejects.toSatisfy(StoreError.isInstance);
        expect((await migrationStatus(unmigrated.db!, list)).current).toBe(0);
        const tables = await unmigrated.db!.query("SELECT to_regclass('m_good') AS t");
        expect(tables.rows[0]).toEqual({ t: null });
      } finally {
        await unmigrated.close();
      }
    });

    test("migration 2 keeps the hits counted per entry and the scores written under migration 1", async () => {
      const old = await openStore(await freshLocation(), { migrate: false });
      try {
        expect(await migrate(old.db!, MIGRATIONS.slice(0, 1))).toEqual([1]);
        await old.db!.query(
          `INSERT INTO verdict_cache (key, provider, model, value, usage, hits) VALUES
           ('k1', 'openai', 'fake-model', '{"score": 7, "reasoning": "r"}', '{"input_tokens": 100, "output_tokens": 10}', 3),
           ('k2', 'openai', 'fake-model', '{"score": 5, "reasoning": "r"}', NULL, 0)`,
        );
        // Written as migration 1's schema has it (the repository writes columns of later migrations).
        const evaluation = (
          await old.db!.query<{ id: string }>(
            "INSERT INTO evaluations (source) VALUES ('t.json') RETURNING id",
          )
        ).rows[0]!;
        await old.db!.query(
          `INSERT INTO evaluation_scores (evaluation_id, dimension, proposition_id, reasoning, verdict_key, channel)
         VALUES ($1, 'environment', 'calm', 'Calm.', 'environment/calm', '#kitchen')`,
          [evaluation.id],
        );
        expect(await migrate(old.db!, MIGRATIONS.slice(0, 2))).toEqual([2]);
        expect(await old.verdictCache.stats()).toMatchObject({
          entries: 2,
          hits: 3,
          saved_usage: { input_tokens: 300, output_tokens: 30 },
        });
        expect((await old.scores.forEvaluation(evaluation.id)).map((r) => r.channel)).toEqual(["#kitchen"]);
      } finally {
        await old.close();
      }
    });

    test("the evaluation agents migration finds the agents of session analyses and conversations stored before it", async () => {
      const old = await openStore(await freshLocation(), { migrate: false });
      try {
        const at = MIGRATIONS.findIndex((m) => m.name === "evaluation_agents");
        await migrate(old.db!, MIGRATIONS.slice(0, at));
        const session = {
          sessions: [{ agents: [{ id: "planner" }, { id: "coder" }] }, { agents: [{ id: "coder" }] }],
        };
        const conversation = { job: { target: { user: "u1", chatbot: "shop-bot" } }, passes: [] };
        await old.db!.query(
          `INSERT INTO evaluations (kind, source, input) VALUES
           ('session', 's.json', $1), ('conversation', 'job.yml', $2), ('persona', 't.json', '{"agents": []}')`,
          [JSON.stringify(session), JSON.stringify(conversation)],
        );
        await migrate(old.db!, MIGRATIONS.slice(0, at + 1));
        const rows = await old.db!.query<{ kind: string; agents: string[] }>(
          "SELECT kind, agents FROM evaluations ORDER BY kind",
        );
        expect(rows.rows.map((r) => [r.kind, [...r.agents].sort()])).toEqual([
          ["conversation", ["shop-bot"]],
          ["persona", []],
          ["session", ["coder", "planner"]],
        ]);
      } finally {
        await old.close();
      }
    });

    test("an edited migration is reported as changed", async () => {
      const edited = MIGRATIONS.map((m) => ({ ...m, sql: `${m.sql}\n-- edited` }));
      expect((await migrationStatus(db(), edited)).changed).toEqual(MIGRATIONS.map((m) => m.version));
    });

    test("a database migrated by a newer Dramaturg is refused", async () => {
      const location = await freshLocation();
      const newer = await openStore(location);
      await newer.db!.query(
        "INSERT INTO schema_migrations (version, name, checksum) VALUES (999, 'future', 'x')",
      );
      await newer.close();
      await expect(openStore(location)).rejects.toThrow(/version 999, newer than this Dramaturg knows/);
    });

    test.skipIf(kind === "pglite")(
      "two processes migrating the same database at once apply each migration once",
      async () => {
        // PGlite is single-process by nature; on PostgreSQL the advisory lock serialises the two.
        const location = await freshLocation();
        const a = await openStore(location, { migrate: false });
        const b = await openStore(location, { migrate: false });
        const slow: Migration[] = [
          { version: 1, name: "slow", sql: "SELECT pg_sleep(0.3); CREATE TABLE m_slow (x integer)" },
        ];
        try {
          const [ranA, ranB] = await Promise.all([migrate(a.db!, slow), migrate(b.db!, slow)]);
          expect([...ranA, ...ranB]).toEqual([1]);
          // The same with the real migrations, on a database of its own.
          const fresh = await freshLocation();
          const both = await Promise.all([openStore(fresh), openStore(fresh)]);
          const applied = await both[0]!.migrationStatus();
          await Promise.all(both.map((s) => s.close()));
          expect(applied.applied.map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      },
    );
  },
  // Migrations are SQL: the memory store has none (it reports every migration applied; see open-store.test.ts).
  { sqlOnly: "migrations are SQL scripts" },
);
