// Keyset pages of the newest-first lists (runs, evaluations): after a row, within a time range, by dimension.
import { randomUUID } from "node:crypto";
import { expect, test } from "vitest";
import type { RunRow, Store } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

async function newAgent(store: Store): Promise<string> {
  const id = `agent-${randomUUID().slice(0, 8)}`;
  await store.agents.upsert({ id, name: id, persona: `Persona of ${id}` });
  return id;
}

/** Runs one after another, a few ms apart, so that their creation times differ. */
async function runs(store: Store, agent: string, dimensions: string[][]): Promise<RunRow[]> {
  const made: RunRow[] = [];
  for (const d of dimensions) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    made.push(await store.runs.create({ agent_id: agent, dimensions: d, sample_size: 1 }));
  }
  return made;
}

const after = (row: { id: string; created_at: string }) => ({ id: row.id, created_at: row.created_at });

describeStore("pagination", ({ store }) => {
  test("pages of runs, each after the last row of the one before, list every run once, newest first", async () => {
    const agent = await newAgent(store());
    await runs(store(), agent, [["adherence"], ["adherence"], ["fluency"], ["adherence"], ["fluency"]]);
    const all = await store().runs.list({ agent });
    const seen: string[] = [];
    let page = await store().runs.list({ agent, limit: 2 });
    while (page.length > 0) {
      seen.push(...page.map((r) => r.id));
      page = await store().runs.list({ agent, limit: 2, after: after(page.at(-1)!) });
    }
    expect(all).toHaveLength(5);
    expect(seen).toEqual(all.map((r) => r.id));
  });

  test("runs are filtered by the dimension they asked for", async () => {
    const agent = await newAgent(store());
    const made = await runs(store(), agent, [["adherence"], ["fluency", "adherence"], ["fluency"]]);
    const fluency = await store().runs.list({ agent, dimension: "fluency" });
    expect(fluency.map((r) => r.id).sort()).toEqual([made[1]!.id, made[2]!.id].sort());
  });

  test("runs are filtered by creation time, both ends inclusive", async () => {
    const agent = await newAgent(store());
    const made = await runs(store(), agent, [["adherence"], ["adherence"], ["adherence"]]);
    const ids = (rows: RunRow[]) => rows.map((r) => r.id);
    // Stored times have microseconds; an ISO string keeps milliseconds, so it is at or just before its row.
    expect(ids(await store().runs.list({ agent, since: made[1]!.created_at }))).toEqual([
      made[2]!.id,
      made[1]!.id,
    ]);
    const justBefore = new Date(Date.parse(made[1]!.created_at) - 1).toISOString();
    expect(ids(await store().runs.list({ agent, until: justBefore }))).toEqual([made[0]!.id]);
  });

  test("a cursor that is not a run id gives an empty page rather than an error", async () => {
    expect(
      await store().runs.list({ after: { id: "not-a-uuid", created_at: new Date().toISOString() } }),
    ).toEqual([]);
  });

  test("pages of evaluations of a kind list every one once, newest first", async () => {
    const source = `pages-${randomUUID()}`;
    for (let i = 0; i < 5; i++) await store().evaluations.create({ kind: "session", source });
    const mine = <R extends { source: string }>(rows: R[]) => rows.filter((r) => r.source === source);
    const all = mine(await store().evaluations.list({ kind: "session", limit: 1000 }));
    const seen: string[] = [];
    let page = await store().evaluations.list({ kind: "session", limit: 2 });
    while (page.length > 0) {
      seen.push(...mine(page).map((r) => r.id));
      page = await store().evaluations.list({ kind: "session", limit: 2, after: after(page.at(-1)!) });
    }
    expect(all).toHaveLength(5);
    expect(seen).toEqual(all.map((r) => r.id));
  });

  test("evaluations are filtered by creation time", async () => {
    const first = await store().evaluations.create({ kind: "conversation", source: "a" });
    const later = await store().evaluations.list({ kind: "conversation", since: first.created_at });
    expect(later.map((e) => e.id)).toContain(first.id);
    const before = await store().evaluations.list({ kind: "conversation", until: "2000-01-01T00:00:00Z" });
    expect(before).toEqual([]);
  });
  test("pages of gate checks list every one once, newest first, even checks logged together", async () => {
    const agent_id = `gate-${randomUUID().slice(0, 8)}`;
    const check = (text: string, dimension: "adherence" | "fluency") => ({
      agent_id,
      original_text: text,
      dimension_scores: { [dimension]: { score: 8, reasoning: "hand-written", passed: true } },
      attempt_number: 1,
      outcome: "passed" as const,
    });
    // One batch: the rows share one timestamp, so only the log's own order tells them apart.
    await store().corrections.add([check("a", "adherence"), check("b", "fluency"), check("c", "adherence")]);
    await store().corrections.add(check("d", "fluency"));
    const all = await store().corrections.list({ agent_id });
    const seen: string[] = [];
    let page = await store().corrections.list({ agent_id, limit: 2 });
    while (page.length > 0) {
      seen.push(...page.map((c) => c.original_text));
      page = await store().corrections.list({ agent_id, limit: 2, after: after(page.at(-1)!) });
    }
    expect(seen).toEqual(["d", "c", "b", "a"]);
    expect(seen).toEqual(all.map((c) => c.original_text));
  });

  test("gate checks are filtered by gate dimension and by time", async () => {
    const agent_id = `gate-${randomUUID().slice(0, 8)}`;
    const [stored] = await store().corrections.add({
      agent_id,
      original_text: "x",
      dimension_scores: { fluency: { score: 3, reasoning: "hand-written", passed: false } },
      attempt_number: 1,
      outcome: "forced_through",
    });
    expect(await store().corrections.list({ agent_id, dimension: "adherence" })).toEqual([]);
    expect((await store().corrections.list({ agent_id, dimension: "fluency" })).map((c) => c.id)).toEqual([
      stored!.id,
    ]);
    expect(await store().corrections.list({ agent_id, until: "2000-01-01" })).toEqual([]);
  });
});
