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

describeStore("evaluations", ({ store }) => {
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

  test("an unknown or malformed evaluation id is undefined rather than an error", async () => {
    expect(await store().evaluations.get("00000000-0000-4000-8000-000000000000")).toBeUndefined();
    expect(await store().evaluations.get("not-a-uuid")).toBeUndefined();
    await expect(store().evaluations.start("not-a-uuid")).rejects.toThrow(/does not exist/);
  });
});

/** Lets the clock move on, so two rows created one after the other never share a timestamp. */
function tick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}
