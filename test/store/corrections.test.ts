// correction_logs: the action gate's checks stored in batches, read back newest first, summarised.
import { expect, test } from "vitest";
import { type CorrectionLogEntry, StoreError } from "../../src/core/index.ts";
import { MIGRATIONS, migrate, openStore } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

/** A gate check of one message; hand-written scores, as the gate would log them. */
function entry(agent_id: string, overrides: Partial<CorrectionLogEntry> = {}): CorrectionLogEntry {
  return {
    agent_id,
    original_text: "We should braise it for three hours.",
    dimension_scores: {
      adherence: { score: 8, reasoning: "in character", passed: true },
      fluency: { score: 7, reasoning: "reads well", passed: true },
    },
    total_score: 15,
    attempt_number: 1,
    outcome: "passed",
    ...overrides,
  };
}

describeStore("correction logs", ({ store, fresh }) => {
  test("an added check comes back with an id, a timestamp and every column", async () => {
    const [row] = await store().corrections.add(
      entry("c-marta", {
        run_id: "world-7",
        corrected_text: "Braise it slowly, three hours.",
        similarity_score: 0.25,
        attempt_number: 2,
        outcome: "passed_after_retry",
        token_usage: { input_tokens: 120, output_tokens: 30 },
      }),
    );
    expect(row).toMatchObject({
      agent_id: "c-marta",
      run_id: "world-7",
      corrected_text: "Braise it slowly, three hours.",
      similarity_score: 0.25,
      total_score: 15,
      attempt_number: 2,
      outcome: "passed_after_retry",
      token_usage: { input_tokens: 120, output_tokens: 30 },
      dimension_scores: { adherence: { score: 8, reasoning: "in character", passed: true } },
    });
    expect(row?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(row?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(await store().corrections.list({ agent_id: "c-marta" })).toEqual([row]);
  });

  test("the optional columns of a check that gave none are null", async () => {
    const [row] = await store().corrections.add(entry("c-bare", { total_score: undefined }));
    expect(row).toMatchObject({
      run_id: null,
      corrected_text: null,
      similarity_score: null,
      total_score: null,
      token_usage: null,
    });
  });

  test("a check may name an agent that was never imported", async () => {
    expect(await store().agents.get("c-app-agent")).toBeUndefined();
    await store().corrections.add(entry("c-app-agent"));
    expect(await store().corrections.list({ agent_id: "c-app-agent" })).toHaveLength(1);
  });

  test("checks added together are listed newest first, the last given first", async () => {
    const texts = ["one", "two", "three", "four"];
    await store().corrections.add(texts.map((t) => entry("c-batch", { original_text: t })));
    const listed = await store().corrections.list({ agent_id: "c-batch" });
    expect(listed.map((l) => l.original_text)).toEqual(["four", "three", "two", "one"]);
  });

  test("a later batch is listed before an earlier one", async () => {
    await store().corrections.add(entry("c-later", { original_text: "earlier" }));
    await store().corrections.add(entry("c-later", { original_text: "later" }));
    const listed = await store().corrections.list({ agent_id: "c-later" });
    expect(listed.map((l) => l.original_text)).toEqual(["later", "earlier"]);
  });

  test("the limit keeps the newest checks", async () => {
    await store().corrections.add(["a", "b", "c"].map((t) => entry("c-limit", { original_text: t })));
    const listed = await store().corrections.list({ agent_id: "c-limit", limit: 2 });
    expect(listed.map((l) => l.original_text)).toEqual(["c", "b"]);
  });

  test("since leaves out the checks logged before it", async () => {
    await store().corrections.add(entry("c-since", { original_text: "old" }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const since = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store().corrections.add(entry("c-since", { original_text: "new" }));
    const listed = await store().corrections.list({ agent_id: "c-since", since });
    expect(listed.map((l) => l.original_text)).toEqual(["new"]);
  });

  test("an outcome outside the five is refused and nothing of its batch is stored", async () => {
    const bad = entry("c-bad", { outcome: "skipped" as CorrectionLogEntry["outcome"] });
    const error = await store()
      .corrections.add([entry("c-bad"), bad])
      .catch((e: unknown) => e);
    expect(StoreError.isInstance(error)).toBe(true);
    expect(await store().corrections.list({ agent_id: "c-bad" })).toEqual([]);
  });

  test("an attempt number below 1 is refused", async () => {
    const error = await store()
      .corrections.add(entry("c-zero", { attempt_number: 0 }))
      .catch((e: unknown) => e);
    expect(StoreError.isInstance(error)).toBe(true);
  });

  test("similarity and total scores are single-precision reals, as the column keeps them", async () => {
    const [row] = await store().corrections.add(
      entry("c-real", { similarity_score: 1 / 3, total_score: 20 / 3 }),
    );
    expect(row?.similarity_score).toBe(0.33333334);
    expect(row?.total_score).toBe(6.6666665);
  });

  test("statistics count the outcomes and the checks whose first attempt failed", async () => {
    const s = await fresh();
    await s.corrections.add([
      entry("s-ana"),
      entry("s-ana", { outcome: "passed_after_retry", attempt_number: 2 }),
      entry("s-ana", { outcome: "forced_through", attempt_number: 1 }),
      entry("s-ben"),
    ]);
    const all = await s.corrections.statistics();
    expect(all).toMatchObject({ checks: 4, original_successes: 2, first_attempt_failures: 2 });
    expect(all.regeneration_failure_rate).toBe(0.5);
    const ana = await s.corrections.statistics({ agent_id: "s-ana" });
    expect(ana).toMatchObject({ checks: 3, original_successes: 1, forced_through: 1 });
    expect(ana.outcomes).toMatchObject({ passed: 1, passed_after_retry: 1, forced_through: 1, corrected: 0 });
  });

  test("a rejected check (continue_on_failure off) is stored, counted apart from forced_through, as a failed first attempt", async () => {
    const s = await fresh();
    await s.corrections.add([
      entry("x-ana", { outcome: "rejected", attempt_number: 3, corrected_text: null }),
      entry("x-ana"),
    ]);
    expect(await s.corrections.statistics({ agent_id: "x-ana" })).toMatchObject({
      checks: 2,
      rejected: 1,
      forced_through: 0,
      original_successes: 1,
      first_attempt_failures: 1,
    });
  });

  test("a run id selects that run's checks, in the list and the statistics", async () => {
    const s = await fresh();
    await s.corrections.add([
      entry("r-ana", { run_id: "run-one" }),
      entry("r-ana", { run_id: "run-two", outcome: "forced_through" }),
      entry("r-ben", { run_id: "run-two" }),
      entry("r-ben"),
    ]);
    const two = await s.corrections.list({ run_id: "run-two" });
    expect(two.map((r) => [r.agent_id, r.outcome])).toEqual([
      ["r-ben", "passed"],
      ["r-ana", "forced_through"],
    ]);
    expect(await s.corrections.statistics({ run_id: "run-two" })).toMatchObject({
      checks: 2,
      forced_through: 1,
    });
    expect((await s.corrections.statistics({ run_id: "run-two", agent_id: "r-ben" })).checks).toBe(1);
  });

  test("a store with no checks has statistics of none, with no rates", async () => {
    const s = await fresh();
    expect(await s.corrections.list()).toEqual([]);
    expect(await s.corrections.statistics()).toMatchObject({
      checks: 0,
      original_success_rate: null,
      regeneration_failure_rate: null,
    });
  });

  test("dimension scores come back as a copy: changing them changes nothing stored", async () => {
    const [row] = await store().corrections.add(entry("c-copy"));
    row!.dimension_scores.adherence!.score = 0;
    const [read] = await store().corrections.list({ agent_id: "c-copy" });
    expect(read?.dimension_scores.adherence?.score).toBe(8);
  });
});

describeStore(
  "correction logs written before migration 5",
  ({ freshLocation }) => {
    test("migration 5 keeps a log with its run, as text, and drops the foreign keys", async () => {
      const old = await openStore(await freshLocation(), { migrate: false });
      try {
        await migrate(old.db!, MIGRATIONS.slice(0, 4));
        await old.db!.query(
          `INSERT INTO agents (id, name, persona, persona_hash) VALUES ('m-ana', 'Ana', '"x"', 'h')`,
        );
        const run = (
          await old.db!.query<{ id: string }>(
            "INSERT INTO evaluation_runs (agent_id, dimensions, sample_size) VALUES ('m-ana', '{adherence}', 1) RETURNING id",
          )
        ).rows[0]!;
        await old.db!.query(
          `INSERT INTO correction_logs (agent_id, run_id, original_text, attempt_number, outcome)
           VALUES ('m-ana', $1, 'hello', 1, 'passed')`,
          [run.id],
        );
        expect(await migrate(old.db!, MIGRATIONS)).toEqual(MIGRATIONS.slice(4).map((m) => m.version));
        expect(await old.corrections.list({ agent_id: "m-ana" })).toMatchObject([{ run_id: run.id }]);
        await old.corrections.add(entry("m-never-imported", { run_id: "not-a-uuid" }));
        await old.agentConfig.set("m-never-imported", { gate_fluency_enabled: true });
      } finally {
        await old.close();
      }
    });
  },
  { sqlOnly: "a migration of the SQL schema" },
);
