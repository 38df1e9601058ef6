// evaluations: one row per invocation, pending → running → completed | failed, found again for resume.
import { expect, test } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import { describeStore } from "./backends.ts";

const config = {
  judge: {
    provider: "openai",
    model: "fake-model-b",
    temperature: 0,
    mode: "batch",
    double_check: false,
    prompt_version: "p1",
  },
  dimensions: ["adherence", "convergence"],
  trials: 3,
  window: { first_n: 10, last_n: 100 },
};

describeStore("evaluations", ({ store, fresh }) => {
  test("a new evaluation is pending, of kind persona, with its configuration", async () => {
    const e = await store().evaluations.create({
      source: "transcript.json",
      config,
      propositions_hash: "ph1",
    });
    expect(e).toMatchObject({
      kind: "persona",
      status: "pending",
      source: "transcript.json",
      config,
      propositions_hash: "ph1",
    });
    expect(e.errored).toBe(0);
    expect(e.started_at).toBeNull();
    expect(Date.parse(e.created_at)).not.toBeNaN();
    expect(await store().evaluations.get(e.id)).toEqual(e);
  });

  test("an evaluation that starts and completes records its times, usage, cache and errored count", async () => {
    const e = await store().evaluations.create({ source: "store" });
    const running = await store().evaluations.start(e.id);
    expect(running.status).toBe("running");
    expect(running.started_at).not.toBeNull();
    const done = await store().evaluations.complete(e.id, {
      errored: 2,
      token_usage: { input_tokens: 1200, output_tokens: 300 },
      cache: { hits: 5, misses: 7 },
    });
    expect(done).toMatchObject({
      status: "completed",
      errored: 2,
      token_usage: { input_tokens: 1200, output_tokens: 300 },
      cache: { hits: 5, misses: 7 },
    });
    expect(done.completed_at).not.toBeNull();
  });

  test("a failed evaluation keeps its error", async () => {
    const e = await store().evaluations.create({ source: "t.json" });
    await store().evaluations.start(e.id);
    const failed = await store().evaluations.fail(e.id, "judge unreachable", { errored: 40 });
    expect(failed).toMatchObject({ status: "failed", error: "judge unreachable", errored: 40 });
  });

  test("an evaluation cannot complete before it starts", async () => {
    const e = await store().evaluations.create({ source: "t.json" });
    await expect(store().evaluations.complete(e.id)).rejects.toSatisfy(StoreError.isInstance);
    await expect(store().evaluations.complete(e.id)).rejects.toThrow(
      /is pending; it cannot become completed/,
    );
  });

  test("a completed evaluation cannot be started again", async () => {
    const e = await store().evaluations.create({ source: "t.json" });
    await store().evaluations.start(e.id);
    await store().evaluations.complete(e.id);
    await expect(store().evaluations.start(e.id)).rejects.toThrow(/is completed/);
  });

  test("a failed evaluation can be started again to resume it", async () => {
    const e = await store().evaluations.create({ source: "t.json" });
    await store().evaluations.start(e.id);
    await store().evaluations.fail(e.id, "crash");
    const resumed = await store().evaluations.start(e.id);
    expect(resumed).toMatchObject({ status: "running", error: null, completed_at: null });
  });

  test("the latest incomplete evaluation of a kind is the newest that did not complete", async () => {
    const kind = "session" as const;
    const older = await store().evaluations.create({ kind, source: "s1.json" });
    await store().evaluations.start(older.id);
    await tick();
    const newer = await store().evaluations.create({ kind, source: "s2.json" });
    await store().evaluations.start(newer.id);
    const done = await store().evaluations.create({ kind, source: "s3.json" });
    await store().evaluations.start(done.id);
    await store().evaluations.complete(done.id);
    expect((await store().evaluations.latestIncomplete(kind))?.id).toBe(newer.id);
    expect(await store().evaluations.latestIncomplete("conversation")).toBeUndefined();
  });

  test("evaluations are listed newest first and filtered by kind and status", async () => {
    const kind = "conversation" as const;
    const a = await store().evaluations.create({ kind, source: "job-a.yaml" });
    await tick(); // "newest" is by creation time: give the second a later timestamp than the first
    const b = await store().evaluations.create({ kind, source: "job-b.yaml" });
    await store().evaluations.start(b.id);
    expect((await store().evaluations.list({ kind })).map((e) => e.id)).toEqual([b.id, a.id]);
    expect((await store().evaluations.list({ kind, status: "running" })).map((e) => e.id)).toEqual([b.id]);
    expect(await store().evaluations.list({ kind, limit: 1 })).toHaveLength(1);
  });

  test("an evaluation keeps the agents it evaluated, each once", async () => {
    const e = await store().evaluations.create({
      kind: "session",
      source: "s.json",
      agents: ["planner", "coder", "planner"],
    });
    expect(e.agents).toEqual(["planner", "coder"]);
    expect((await store().evaluations.get(e.id))?.agents).toEqual(["planner", "coder"]);
    expect((await store().evaluations.create({ source: "t.json" })).agents).toEqual([]);
  });

  test("evaluations are filtered by one of their agents, and pages of the filter follow each other", async () => {
    const kind = "session" as const;
    const agent = `agent-${Math.random().toString(36).slice(2, 10)}`;
    const a = await store().evaluations.create({ kind, source: "a.json", agents: [agent, "critic"] });
    await tick();
    await store().evaluations.create({ kind, source: "b.json", agents: ["critic"] });
    await tick();
    const c = await store().evaluations.create({ kind, source: "c.json", agents: ["writer", agent] });
    const first = await store().evaluations.list({ kind, agent, limit: 1 });
    expect(first.map((e) => e.id)).toEqual([c.id]);
    const second = await store().evaluations.list({ kind, agent, after: first[0] });
    expect(second.map((e) => e.id)).toEqual([a.id]);
    expect(await store().evaluations.list({ agent: `${agent}-nobody` })).toEqual([]);
  });

  test("an unknown or malformed evaluation id is undefined rather than an error", async () => {
    expect(await store().evaluations.get("00000000-0000-4000-8000-000000000000")).toBeUndefined();
    expect(await store().evaluations.get("not-a-uuid")).toBeUndefined();
    await expect(store().evaluations.start("not-a-uuid")).rejects.toThrow(/does not exist/);
  });

  test("the input and result documents come back as given, key order kept, each read a fresh copy", async () => {
    const input = { zeta: 1, alpha: { b: [1, 2], a: "x" } };
    const e = await store().evaluations.create({ source: "t.json", input });
    expect(await store().evaluations.result(e.id)).toBeUndefined();
    const read = (await store().evaluations.input(e.id)) as typeof input;
    expect(Object.keys(read)).toEqual(["zeta", "alpha"]);
    read.alpha.b.push(3);
    expect(await store().evaluations.input(e.id)).toEqual(input);
    await store().evaluations.start(e.id);
    await store().evaluations.complete(e.id, { result: { verdicts: 3, ok: true } });
    expect(await store().evaluations.result(e.id)).toEqual({ verdicts: 3, ok: true });
    expect(await store().evaluations.input("not-a-uuid")).toBeUndefined();
  });

  test("a large input and result come back as given, and a SQL store keeps them compressed", async () => {
    const messages = Array.from({ length: 2_000 }, (_, i) => ({
      id: `m${i}`,
      text: `message ${i} `.repeat(8),
    }));
    const input = { format: "x", messages };
    const e = await store().evaluations.create({ source: "t.json", input });
    await store().evaluations.start(e.id);
    await store().evaluations.complete(e.id, { result: { messages } });
    expect(await store().evaluations.input(e.id)).toEqual(input);
    expect(await store().evaluations.result(e.id)).toEqual({ messages });
    const db = store().db;
    if (!db) return; // memory:// keeps documents in this process: nothing to compress
    const raw = await db.query<{ input: string; result: string }>(
      "SELECT input, result FROM evaluations WHERE id = $1",
      [e.id],
    );
    const stored = raw.rows[0]!;
    expect(stored.input.startsWith("gzip:")).toBe(true);
    expect(stored.input.length).toBeLessThan(JSON.stringify(input).length / 4);
    expect(stored.result.startsWith("gzip:")).toBe(true);
    // A small document stays plain JSON, as older versions stored every one.
    const small = await store().evaluations.create({ source: "t.json", input: { a: 1 } });
    const plain = await db.query<{ input: string }>("SELECT input FROM evaluations WHERE id = $1", [
      small.id,
    ]);
    expect(plain.rows[0]!.input).toBe('{"a":1}');
  });

  test("the configuration read back is a copy, with jsonb's key order", async () => {
    const e = await store().evaluations.create({
      source: "t.json",
      config: { window: 1, dimensions: ["a"] },
    });
    expect(Object.keys(e.config)).toEqual(["window", "dimensions"]);
    (e.config.dimensions as string[]).push("changed");
    expect((await store().evaluations.get(e.id))?.config).toEqual({ window: 1, dimensions: ["a"] });
  });

  test("an evaluation is interrupted from pending or running, and a resume starts it again", async () => {
    const pending = await store().evaluations.create({ source: "t.json" });
    expect((await store().evaluations.interrupt(pending.id)).status).toBe("interrupted");
    const e = await store().evaluations.create({ source: "t.json" });
    await store().evaluations.start(e.id);
    const stopped = await store().evaluations.interrupt(e.id);
    expect(stopped).toMatchObject({ status: "interrupted", error: null });
    expect(stopped.completed_at).not.toBeNull();
    await expect(store().evaluations.complete(e.id)).rejects.toThrow(
      /is interrupted; it cannot become completed/,
    );
    expect(await store().evaluations.start(e.id)).toMatchObject({ status: "running", completed_at: null });
  });

  test("a completed evaluation can neither fail nor be interrupted, and an unknown one does not exist", async () => {
    const e = await store().evaluations.create({ source: "t.json" });
    await store().evaluations.start(e.id);
    await store().evaluations.complete(e.id);
    await expect(store().evaluations.interrupt(e.id)).rejects.toThrow(
      `evaluation ${e.id} is completed; it cannot become interrupted`,
    );
    await expect(store().evaluations.fail(e.id, "late")).rejects.toThrow(
      /is completed; it cannot become failed/,
    );
    const unknown = "00000000-0000-4000-8000-000000000000";
    await expect(store().evaluations.fail(unknown, "x")).rejects.toThrow(
      `evaluation ${unknown} does not exist`,
    );
  });

  test("an outcome leaves what it does not name as it was; a resume clears the error and the end", async () => {
    const e = await store().evaluations.create({ source: "t.json" });
    await store().evaluations.start(e.id);
    await store().evaluations.fail(e.id, "crash", {
      errored: 3,
      token_usage: { input_tokens: 10, output_tokens: 2 },
    });
    const resumed = await store().evaluations.start(e.id);
    expect(resumed).toMatchObject({ error: null, completed_at: null, errored: 3 });
    const done = await store().evaluations.complete(e.id, { cache: { hits: 1, misses: 0 } });
    expect(done).toMatchObject({
      errored: 3,
      token_usage: { input_tokens: 10, output_tokens: 2 },
      cache: { hits: 1, misses: 0 },
      error: null,
    });
  });

  test("an interrupted evaluation is incomplete, and a list holds fifty unless told otherwise", async () => {
    const own = await fresh();
    expect(await own.evaluations.latestIncomplete("persona")).toBeUndefined();
    const stopped = await own.evaluations.create({ source: "t.json" });
    await own.evaluations.interrupt(stopped.id);
    expect((await own.evaluations.latestIncomplete("persona"))?.id).toBe(stopped.id);
    for (let i = 0; i < 50; i++) await own.evaluations.create({ kind: "session", source: `s${i}.json` });
    expect(await own.evaluations.list()).toHaveLength(50);
    expect(await own.evaluations.list({ limit: 100 })).toHaveLength(51);
    expect(await own.evaluations.list({ kind: "persona", status: "interrupted" })).toHaveLength(1);
  });
  test("a completed evaluation is reusable by its fingerprint and generation only when the cache served it all", async () => {
    const made = async (
      over: { generation?: number; misses?: number; errored?: number; complete?: boolean } = {},
    ) => {
      const e = await store().evaluations.create({
        source: "t.json",
        fingerprint: "fp-reuse",
        cache_generation: over.generation ?? 3,
      });
      await store().evaluations.start(e.id);
      if (over.complete !== false)
        await store().evaluations.complete(e.id, {
          errored: over.errored ?? 0,
          cache: { hits: 10, misses: over.misses ?? 0 },
          result: { ok: true },
        });
      await tick();
      return e.id;
    };
    const query = { kind: "persona" as const, fingerprint: "fp-reuse", generation: 3 };
    expect(await store().evaluations.reusable(query)).toBeUndefined();
    const warm = await made();
    await made({ misses: 1 });
    await made({ errored: 1 });
    await made({ generation: 2 });
    await made({ complete: false });
    expect((await store().evaluations.reusable(query))?.id).toBe(warm);
    expect(await store().evaluations.reusable({ ...query, generation: 4 })).toBeUndefined();
    expect(await store().evaluations.reusable({ ...query, fingerprint: "other" })).toBeUndefined();
    expect(await store().evaluations.reusable({ ...query, kind: "session" })).toBeUndefined();
    const newer = await made();
    expect((await store().evaluations.reusable(query))?.id).toBe(newer);
  });
});

/** Lets the clock move on, so two rows created one after the other never share a timestamp. */
function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}
