// The one bounded pool: at most `limit` items under way, started in order, none started once aborted or once
// an item has failed; the others finish before it returns.
import { describe, expect, it } from "vitest";
import { pool } from "../../src/core/index.ts";

/** Work that records when each item starts and ends, and how many are under way at once. */
function recorder(delay: (item: number) => number = () => 5) {
  const events: string[] = [];
  let underWay = 0;
  let most = 0;
  const work = async (item: number) => {
    events.push(`start ${item}`);
    most = Math.max(most, ++underWay);
    await new Promise((resolve) => setTimeout(resolve, delay(item)));
    underWay--;
    events.push(`end ${item}`);
  };
  return { events, work, most: () => most };
}

describe("pool", () => {
  it("works on every item with at most `limit` under way at once", async () => {
    const { events, work, most } = recorder();
    await pool([1, 2, 3, 4, 5, 6, 7], work, { limit: 3 });
    expect(events.filter((e) => e.startsWith("end")).length).toBe(7);
    expect(most()).toBe(3);
  });

  it("starts the items in their order, and hands each its index", async () => {
    const seen: [string, number][] = [];
    const { events, work } = recorder((item) => (item % 2 === 0 ? 1 : 15));
    await pool(
      [0, 1, 2, 3, 4, 5],
      (item, index) => {
        seen.push([`item ${item}`, index]);
        return work(item);
      },
      { limit: 2 },
    );
    expect(events.filter((e) => e.startsWith("start"))).toEqual([0, 1, 2, 3, 4, 5].map((i) => `start ${i}`));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5].map((i) => [`item ${i}`, i]));
  });

  it("a limit of one works through the items one after another", async () => {
    const { events, work } = recorder();
    await pool([1, 2, 3], work, { limit: 1 });
    expect(events).toEqual(["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]);
  });

  it("starts no item once the signal has aborted, and lets those under way finish", async () => {
    const stop = new AbortController();
    const { events, work } = recorder();
    await pool(
      [1, 2, 3, 4, 5, 6],
      async (item) => {
        await work(item);
        if (item === 2) stop.abort();
      },
      { limit: 2, signal: stop.signal },
    );
    expect(events).toEqual(["start 1", "start 2", "end 1", "start 3", "end 2", "end 3"]);
  });

  it("an aborted signal starts nothing", async () => {
    const { events, work } = recorder();
    await pool([1, 2], work, { limit: 2, signal: AbortSignal.abort() });
    expect(events).toEqual([]);
  });

  it("a failed item stops new ones; those under way finish, then the first error is thrown", async () => {
    const { events, work } = recorder();
    const run = pool(
      [1, 2, 3, 4, 5],
      async (item) => {
        await work(item);
        if (item === 1) throw new Error("item 1 failed");
      },
      { limit: 2 },
    );
    await expect(run).rejects.toThrow("item 1 failed");
    expect(events).toEqual(["start 1", "start 2", "end 1", "end 2"]);
  });

  it("no items, nothing to do; a limit that is not a whole number of at least 1 is refused", async () => {
    await expect(pool([], async () => {}, { limit: 4 })).resolves.toBeUndefined();
    await expect(pool([1], async () => {}, { limit: 0 })).rejects.toThrow(RangeError);
  });
});
