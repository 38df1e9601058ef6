// messages: idempotent batch import of transcript messages and queries by agent, channel and time.
import { expect, test } from "vitest";
import type { Message } from "../../src/core/index.ts";
import { describeStore } from "./backends.ts";

const at = (minute: number) => new Date(Date.UTC(2025, 0, 6, 9, minute)).toISOString();

const conversation: Message[] = [
  { id: "m1", sender: "marta", channel: "kitchen", text: "Garlic. More garlic.", at: at(0) },
  { id: "m2", sender: "bob", channel: "kitchen", text: "We are out of garlic.", at: at(1) },
  { id: "m3", sender: "marta", channel: "dm-bob", recipient: "bob", text: "Buy garlic.", at: at(2) },
  { id: "m4", sender: "user", channel: "lobby", text: "Is the restaurant open?", at: at(3) },
  { id: "m5", sender: "marta", channel: "lobby", text: "Always, for garlic lovers.", at: at(4) },
];

describeStore("messages", ({ store }) => {
  test("imported messages are stored under their source and read back in time order", async () => {
    const result = await store().messages.import("imp-order.json", [...conversation].reverse());
    expect(result).toEqual({ inserted: 5, skipped: 0 });
    const rows = await store().messages.query({ source: "imp-order.json" });
    expect(rows.map((m) => m.id)).toEqual(["m1", "m2", "m3", "m4", "m5"]);
    expect(rows[0]).toEqual({ source: "imp-order.json", ...conversation[0] });
  });

  test("importing the same messages twice stores them once", async () => {
    await store().messages.import("imp-twice.json", conversation);
    const again = await store().messages.import("imp-twice.json", conversation);
    expect(again).toEqual({ inserted: 0, skipped: 5 });
    expect(await store().messages.query({ source: "imp-twice.json" })).toHaveLength(5);
  });

  test("the same message id under another source is another message", async () => {
    await store().messages.import("imp-a.json", conversation.slice(0, 1));
    const result = await store().messages.import("imp-b.json", conversation.slice(0, 1));
    expect(result.inserted).toBe(1);
  });

  test("a DM keeps its recipient and a channel message has none", async () => {
    await store().messages.import("imp-dm.json", conversation);
    const rows = await store().messages.query({ source: "imp-dm.json" });
    expect(rows.find((m) => m.id === "m3")?.recipient).toBe("bob");
    expect(rows.find((m) => m.id === "m1")).not.toHaveProperty("recipient");
  });

  test("a message keeps the ids of the tracing tool it came from; one without them has none", async () => {
    const ids = { langfuse_trace_id: "t-1", langfuse_session_id: "s-1" };
    await store().messages.import("imp-ids.json", [
      { ...conversation[0]!, source_ids: ids },
      conversation[1]!,
    ]);
    const rows = await store().messages.query({ source: "imp-ids.json" });
    expect(rows[0]?.source_ids).toEqual(ids);
    expect(rows[1]).not.toHaveProperty("source_ids");
  });

  test("messages are filtered by agent, channel and an inclusive time range", async () => {
    await store().messages.import("imp-filter.json", conversation);
    const q = (query: object) =>
      store()
        .messages.query({ source: "imp-filter.json", ...query })
        .then((rows) => rows.map((m) => m.id));
    expect(await q({ agent: "marta" })).toEqual(["m1", "m3", "m5"]);
    expect(await q({ channel: "lobby" })).toEqual(["m4", "m5"]);
    expect(await q({ from: at(1), to: at(3) })).toEqual(["m2", "m3", "m4"]);
    expect(await q({ agent: "marta", channel: "lobby", from: at(4) })).toEqual(["m5"]);
    expect(await q({ limit: 2 })).toEqual(["m1", "m2"]);
  });

  test("a large import is written in batches and counted exactly", async () => {
    const many: Message[] = Array.from({ length: 12_345 }, (_, i) => ({
      id: `big-${i}`,
      sender: i % 2 ? "marta" : "bob",
      channel: "kitchen",
      text: `message ${i}`,
      at: new Date(Date.UTC(2025, 1, 1) + i * 1000).toISOString(),
    }));
    expect(await store().messages.import("imp-big.jsonl", many)).toEqual({ inserted: 12_345, skipped: 0 });
    expect(await store().messages.query({ source: "imp-big.jsonl" })).toHaveLength(12_345);
  });

  test("messages at the same time are ordered by source, then id", async () => {
    const same = at(30);
    await store().messages.import("imp-tie-b.json", [
      { id: "t2", sender: "bob", channel: "tie", text: "b2", at: same },
      { id: "t1", sender: "bob", channel: "tie", text: "b1", at: same },
    ]);
    await store().messages.import("imp-tie-a.json", [
      { id: "t9", sender: "bob", channel: "tie", text: "a9", at: same },
    ]);
    const rows = await store().messages.query({ channel: "tie" });
    expect(rows.map((m) => [m.source, m.id])).toEqual([
      ["imp-tie-a.json", "t9"],
      ["imp-tie-b.json", "t1"],
      ["imp-tie-b.json", "t2"],
    ]);
  });

  test("a message repeated within one import is stored once, as first given", async () => {
    const result = await store().messages.import("imp-dup.json", [
      { id: "d1", sender: "bob", channel: "dup", text: "first", at: at(40) },
      { id: "d1", sender: "bob", channel: "dup", text: "second", at: at(41) },
    ]);
    expect(result).toEqual({ inserted: 1, skipped: 1 });
    expect((await store().messages.query({ source: "imp-dup.json" })).map((m) => m.text)).toEqual(["first"]);
  });

  test("a time given with another offset is compared and returned as the same instant in UTC", async () => {
    await store().messages.import("imp-tz.json", [
      { id: "z1", sender: "bob", channel: "tz", text: "late", at: "2025-01-06T11:00:00+02:00" },
    ]);
    const rows = await store().messages.query({
      source: "imp-tz.json",
      from: "2025-01-06T09:00:00Z",
      to: at(0),
    });
    expect(rows.map((m) => m.at)).toEqual(["2025-01-06T09:00:00.000Z"]);
  });
});
