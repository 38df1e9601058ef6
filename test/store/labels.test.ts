// labels: one label per (evaluation, target, rater), saved again to replace it, listed in one order on every
// backend, deleted one at a time, counted per rater; the table's checks refuse what calibrate could not read.
import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import type { LabelInput, Store } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

const newEvaluation = async (store: Store) => (await store.evaluations.create({ source: "t.json" })).id;

const label = (evaluation_id: string, over: Partial<LabelInput> = {}): LabelInput => ({
  evaluation_id,
  dimension: "adherence",
  proposition_id: "persona-style",
  agent_id: "priya",
  message_id: "m10",
  rater: "ana",
  score: 3,
  note: "Too formal.",
  ...over,
});

describeStore("labels", ({ store }) => {
  test("a label is stored with its target, rater, score and note", async () => {
    const evaluation = await newEvaluation(store());
    const saved = await store().labels.save(label(evaluation));
    expect(saved).toMatchObject({
      evaluation_id: evaluation,
      dimension: "adherence",
      proposition_id: "persona-style",
      agent_id: "priya",
      message_id: "m10",
      channel: null,
      rater: "ana",
      score: 3,
      note: "Too formal.",
    });
    expect(saved.created_at).toBe(saved.updated_at);
    expect(await store().labels.forEvaluation(evaluation)).toEqual([saved]);
  });

  test("saving the same target and rater again replaces the score and note, keeping the id", async () => {
    const evaluation = await newEvaluation(store());
    const first = await store().labels.save(label(evaluation));
    await sleep(2);
    const second = await store().labels.save(label(evaluation, { score: 8, note: null }));
    expect(second).toMatchObject({ id: first.id, score: 8, note: null, created_at: first.created_at });
    expect(Date.parse(second.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
    expect(await store().labels.forEvaluation(evaluation)).toEqual([second]);
  });

  test("an agent label and a channel label leave the columns they do not use empty, and are told apart", async () => {
    const evaluation = await newEvaluation(store());
    await store().labels.save(label(evaluation, { dimension: "fluency", message_id: undefined }));
    await store().labels.save(label(evaluation, { dimension: "fluency", message_id: undefined, score: 5 }));
    await store().labels.save(
      label(evaluation, { dimension: "convergence", agent_id: null, message_id: null, channel: "town" }),
    );
    const rows = await store().labels.forEvaluation(evaluation);
    expect(rows.map((r) => [r.dimension, r.agent_id, r.message_id, r.channel, r.score])).toEqual([
      ["convergence", null, null, "town", 3],
      ["fluency", "priya", null, null, 5],
    ]);
  });

  test("labels are listed by target then rater, a missing column first, in code-point order", async () => {
    const evaluation = await newEvaluation(store());
    const inputs = [
      label(evaluation, { rater: "bo" }),
      label(evaluation, { rater: "Ana" }),
      label(evaluation, { message_id: "m9" }),
      label(evaluation, { proposition_id: "breaks-character" }),
      label(evaluation, { agent_id: "dov", message_id: "m2" }),
      label(evaluation, { message_id: null }),
      label(evaluation, { dimension: "consistency" }),
    ];
    // Saved in an order of their own, so the listing's order cannot be the order of saving.
    for (const i of [3, 0, 6, 2, 5, 1, 4]) await store().labels.save(inputs[i]!);
    const rows = await store().labels.forEvaluation(evaluation);
    expect(
      rows.map((r) => `${r.dimension}/${r.proposition_id}/${r.agent_id}/${r.message_id}/${r.rater}`),
    ).toEqual([
      "adherence/breaks-character/priya/m10/ana",
      "adherence/persona-style/dov/m2/ana",
      "adherence/persona-style/priya/null/ana",
      "adherence/persona-style/priya/m10/Ana",
      "adherence/persona-style/priya/m10/bo",
      "adherence/persona-style/priya/m9/ana",
      "consistency/persona-style/priya/m10/ana",
    ]);
    expect((await store().labels.forEvaluation(evaluation, { rater: "bo" })).map((r) => r.rater)).toEqual([
      "bo",
    ]);
  });

  test("labels belong to their evaluation", async () => {
    const one = await newEvaluation(store());
    const other = await newEvaluation(store());
    await store().labels.save(label(one));
    expect(await store().labels.forEvaluation(other)).toEqual([]);
    expect(await store().labels.forEvaluation("not-a-uuid")).toEqual([]);
  });

  test("a label is deleted by its id, once", async () => {
    const evaluation = await newEvaluation(store());
    const kept = await store().labels.save(label(evaluation, { rater: "bo" }));
    const gone = await store().labels.save(label(evaluation));
    expect(await store().labels.delete(gone.id)).toBe(true);
    expect(await store().labels.delete(gone.id)).toBe(false);
    expect(await store().labels.delete("nope")).toBe(false);
    expect(await store().labels.forEvaluation(evaluation)).toEqual([kept]);
  });

  test("labels are counted per rater, in rater order", async () => {
    const evaluation = await newEvaluation(store());
    await store().labels.save(label(evaluation, { rater: "zoe" }));
    await store().labels.save(label(evaluation, { rater: "ana" }));
    await store().labels.save(label(evaluation, { rater: "ana", message_id: "m12" }));
    await store().labels.save(label(evaluation, { rater: "ana", message_id: "m12", score: 1 }));
    expect(await store().labels.countByRater(evaluation)).toEqual([
      { rater: "ana", labels: 2 },
      { rater: "zoe", labels: 1 },
    ]);
    expect(await store().labels.countByRater(await newEvaluation(store()))).toEqual([]);
  });

  test.each([
    ["a score above 9", { score: 10 }],
    ["a score below 0", { score: -1 }],
    ["a fractional score", { score: 4.5 }],
    ["an empty rater", { rater: "" }],
    ["a rater of 65 characters", { rater: "r".repeat(65) }],
    ["a message without its agent", { agent_id: null }],
    ["an agent and a channel", { channel: "town" }],
    ["no target", { agent_id: null, message_id: null }],
  ])("%s is refused and nothing is stored", async (_, over) => {
    const evaluation = await newEvaluation(store());
    await expect(store().labels.save(label(evaluation, over))).rejects.toSatisfy(StoreError.isInstance);
    expect(await store().labels.forEvaluation(evaluation)).toEqual([]);
  });

  test("a label of an evaluation that does not exist is refused", async () => {
    await expect(store().labels.save(label("00000000-0000-4000-8000-000000000000"))).rejects.toSatisfy(
      StoreError.isInstance,
    );
  });
});
