// What the queue's workers need of an evaluation row: finishing it once however many of them find it ready
// at the same time (an advisory lock on PostgreSQL, a lock of the process on a store only one process opens),
// and the figures of its jobs put in place of the completion's own.
import { expect, test } from "vitest";
import { describeStore } from "./backends.ts";

/** A promise and the function that resolves it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describeStore("finishing an evaluation once", ({ store }) => {
  test("the caller that takes the lock finishes; another at the same time does not, and returns at once", async () => {
    const e = await store().evaluations.create({ source: "queued.json" });
    await store().evaluations.start(e.id);
    const running = gate();
    const held = gate();
    const first = store().evaluations.finishOnce(e.id, "evaluation", async () => {
      running.open();
      await held.wait;
      return "first";
    });
    await running.wait;
    const second = await store().evaluations.finishOnce(e.id, "evaluation", async () => "second");
    held.open();
    expect([await first, second]).toEqual(["first", undefined]);
    // The lock is free again once the first is done.
    expect(await store().evaluations.finishOnce(e.id, "evaluation", async () => "again")).toBe("again");
  });

  test("nothing runs for an evaluation that ended, or that does not exist", async () => {
    const e = await store().evaluations.create({ source: "queued.json" });
    await store().evaluations.start(e.id);
    await store().evaluations.complete(e.id);
    let ran = false;
    const finish = async () => {
      ran = true;
    };
    expect(await store().evaluations.finishOnce(e.id, "evaluation", finish)).toBeUndefined();
    expect(
      await store().evaluations.finishOnce("00000000-0000-4000-8000-000000000000", "experiment", finish),
    ).toBeUndefined();
    expect(ran).toBe(false);
  });

  test("finishing writes through the store while it holds the lock", async () => {
    const e = await store().evaluations.create({ source: "queued.json" });
    await store().evaluations.start(e.id);
    const done = await store().evaluations.finishOnce(e.id, "evaluation", () =>
      store().evaluations.complete(e.id),
    );
    expect(done?.status).toBe("completed");
  });

  test("an evaluation's usage and cache figures are replaced, the cache cleared when none is given", async () => {
    const e = await store().evaluations.create({ source: "queued.json" });
    await store().evaluations.start(e.id);
    await store().evaluations.complete(e.id, {
      token_usage: { input_tokens: 1, output_tokens: 1 },
      cache: { hits: 1, misses: 0 },
    });
    const usage = { input_tokens: 30, output_tokens: 12 };
    await store().evaluations.setUsage(e.id, { token_usage: usage, cache: { hits: 2, misses: 3 } });
    expect(await store().evaluations.get(e.id)).toMatchObject({
      status: "completed",
      token_usage: usage,
      cache: { hits: 2, misses: 3 },
    });
    await store().evaluations.setUsage(e.id, { token_usage: usage, cache: null });
    expect((await store().evaluations.get(e.id))?.cache).toBeNull();
  });
});
