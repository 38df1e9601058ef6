// scores: verdict rows keyed by (evaluation, verdict key), errors without scores, resume keys, and
// the batching writer.
import { setTimeout as sleep } from "node:timers/promises";
import { expect, test } from "vitest";
import { StoreError, type Verdict } from "../../src/core/index.ts";
import { type ScoreInput, type Store, scoreFromVerdict } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

async function newEvaluation(store: Store): Promise<{ evaluation: string; run: string }> {
  const evaluation = await store.evaluations.create({ source: "t.json" });
  await store.agents.upsert({ id: "marta", name: "Marta", persona: "A chef." });
  const run = await store.runs.create({
    agent_id: "marta",
    evaluation_id: evaluation.id,
    dimensions: ["adherence"],
    sample_size: 3,
  });
  return { evaluation: evaluation.id, run: run.id };
}

const verdict = (
  evaluation_id: string,
  evaluation_run_id: string,
  over: Partial<ScoreInput> = {},
): ScoreInput => ({
  evaluation_id,
  evaluation_run_id,
  dimension: "adherence",
  proposition_id: "talks-about-food",
  agent_id: "marta",
  message_id: "m1",
  trial: 1,
  status: "ok",
  raw_score: 7,
  score: 7,
  weight: 1,
  reasoning: "Talks about garlic.",
  ...over,
});

describeStore("scores", ({ kind, store, db }) => {
  test("writing the same verdict twice leaves one row, with the later values", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([verdict(evaluation, run, { score: 6 })]);
    await store().scores.write([verdict(evaluation, run, { score: 8 })]);
    const rows = await store().scores.forEvaluation(evaluation);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      score: 8,
      verdict_key: "adherence/talks-about-food agent=marta message=m1 trial=1",
    });
  });

  test("a repeated key within one batch is written once", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([
      verdict(evaluation, run, { score: 2 }),
      verdict(evaluation, run, { score: 3 }),
    ]);
    expect((await store().scores.forEvaluation(evaluation)).map((r) => r.score)).toEqual([3]);
  });

  test("trials of the same proposition are separate verdicts", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write(
      [1, 2, 3].map((trial) => verdict(evaluation, run, { trial, score: trial + 4 })),
    );
    expect((await store().scores.forEvaluation(evaluation)).map((r) => [r.trial, r.score])).toEqual([
      [1, 5],
      [2, 6],
      [3, 7],
    ]);
  });

  test("an errored verdict is stored with its error and without a score", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([
      verdict(evaluation, run, { status: "errored", score: 9, raw_score: 9, error: "JudgeError: timed out" }),
    ]);
    const [row] = await store().scores.forEvaluation(evaluation);
    expect(row).toMatchObject({
      status: "errored",
      score: null,
      raw_score: null,
      error: "JudgeError: timed out",
    });
  });

  // Raw SQL: the memory store has no database to refuse it (its writes never put a score on an error).
  test.skipIf(kind === "memory")("the database itself refuses an errored verdict with a score", async () => {
    const { evaluation } = await newEvaluation(store());
    const insert = db().query(
      `INSERT INTO evaluation_scores (evaluation_id, dimension, proposition_id, score, reasoning, status, verdict_key)
       VALUES ($1, 'adherence', 'p', 9, '', 'errored', 'k')`,
      [evaluation],
    );
    await expect(insert).rejects.toSatisfy(StoreError.isInstance);
  });

  test("a re-judged verdict replaces its errored row", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([verdict(evaluation, run, { status: "errored", error: "JudgeError: 500" })]);
    await store().scores.write([verdict(evaluation, run, { score: 6 })]);
    const [row] = await store().scores.forEvaluation(evaluation);
    expect(row).toMatchObject({ status: "ok", score: 6, error: null });
  });

  test("an errored verdict never replaces a judged one", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([verdict(evaluation, run, { score: 6 })]);
    await store().scores.write([verdict(evaluation, run, { status: "errored", error: "JudgeError: 500" })]);
    expect((await store().scores.forEvaluation(evaluation))[0]).toMatchObject({ status: "ok", score: 6 });
  });

  test("environment verdicts have no run and name their channel", async () => {
    const { evaluation } = await newEvaluation(store());
    await store().scores.write([
      {
        evaluation_id: evaluation,
        dimension: "ideas_quantity",
        proposition_id: "ideas",
        channel: "kitchen",
        trial: 1,
        status: "ok",
        count: 3,
        ideas: ["garlic soup", "garlic bread", "black garlic"],
        reasoning: "Three distinct dishes.",
      },
    ]);
    const [row] = await store().scores.forEvaluation(evaluation, { dimension: "ideas_quantity" });
    expect(row).toMatchObject({
      evaluation_run_id: null,
      channel: "kitchen",
      agent_id: null,
      count: 3,
      score: null,
      ideas: ["garlic soup", "garlic bread", "black garlic"],
      verdict_key: "ideas_quantity/ideas channel=kitchen trial=1",
    });
  });

  test("scores are read for one run or one dimension of an evaluation", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([
      verdict(evaluation, run),
      verdict(evaluation, run, { dimension: "fluency" }),
      {
        ...verdict(evaluation, run, { dimension: "convergence", agent_id: undefined, channel: "kitchen" }),
        evaluation_run_id: null,
      },
    ]);
    expect(await store().scores.forEvaluation(evaluation, { run })).toHaveLength(2);
    expect(await store().scores.forEvaluation(evaluation, { dimension: "fluency" })).toHaveLength(1);
  });

  test("existing keys are the judged and trivial verdicts, not the errored ones", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([
      verdict(evaluation, run, { message_id: "m1" }),
      verdict(evaluation, run, { message_id: "m2", status: "trivial", score: 9 }),
      verdict(evaluation, run, { message_id: "m3", status: "errored", error: "JudgeError: bad output" }),
    ]);
    expect([...(await store().scores.existingKeys(evaluation))].sort()).toEqual([
      "adherence/talks-about-food agent=marta message=m1 trial=1",
      "adherence/talks-about-food agent=marta message=m2 trial=1",
    ]);
    expect(await store().scores.summary(evaluation)).toEqual({ ok: 1, trivial: 1, errored: 1 });
  });

  test("existing keys among some keys are only those of them stored with a result", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([
      verdict(evaluation, run, { message_id: "m1" }),
      verdict(evaluation, run, { message_id: "m2" }),
      verdict(evaluation, run, { message_id: "m3", status: "errored", error: "JudgeError: bad output" }),
    ]);
    const key = (m: string) => `adherence/talks-about-food agent=marta message=${m} trial=1`;
    expect(await store().scores.existingKeys(evaluation, [key("m2"), key("m3"), key("m4")])).toEqual(
      new Set([key("m2")]),
    );
    expect(await store().scores.existingKeys(evaluation, [])).toEqual(new Set());
  });

  test("a judge's verdict becomes a row with inversion and the hard penalty applied", () => {
    const judged: Verdict = {
      ok: true,
      key: { dimension: "adherence", proposition_id: "rude", agent_id: "marta", trial: 2 },
      score: 3,
      reasoning: "Mostly polite.",
    };
    const row = scoreFromVerdict(judged, {
      evaluation_id: "e",
      evaluation_run_id: "r",
      inverted: true,
      hard: true,
      weight: 0.5,
    });
    expect(row).toMatchObject({
      status: "ok",
      raw_score: 3,
      score: (9 - 3) * 0.8,
      weight: 0.5,
      trial: 2,
      agent_id: "marta",
    });
  });

  test("a judge's failure becomes an errored row with no score", () => {
    const failed: Verdict = {
      ok: false,
      key: { dimension: "fluency", proposition_id: "varied", agent_id: "marta", trial: 1 },
      error: { name: "JudgeError", message: "timed out after 30000 ms" },
    };
    const row = scoreFromVerdict(failed, { evaluation_id: "e" });
    expect(row).toMatchObject({ status: "errored", error: "JudgeError: timed out after 30000 ms" });
    expect(row.score ?? null).toBeNull();
  });

  test("the writer writes a full batch at once and holds the rest", async () => {
    const { evaluation, run } = await newEvaluation(store());
    const writer = store().scores.writer({ batchSize: 10, flushIntervalMs: 60_000 });
    await writer.write(
      Array.from({ length: 25 }, (_, i) => verdict(evaluation, run, { message_id: `m${i}` })),
    );
    expect(writer.written).toBe(20);
    expect(writer.buffered).toBe(5);
    expect(await store().scores.forEvaluation(evaluation)).toHaveLength(20);
    await writer.close();
    expect(await store().scores.forEvaluation(evaluation)).toHaveLength(25);
  });

  test("the writer writes buffered verdicts after its interval without being asked", async () => {
    const { evaluation, run } = await newEvaluation(store());
    const writer = store().scores.writer({ batchSize: 1000, flushIntervalMs: 20 });
    await writer.write(verdict(evaluation, run));
    for (let i = 0; i < 50 && writer.written === 0; i++) await sleep(20);
    expect(await store().scores.forEvaluation(evaluation)).toHaveLength(1);
    await writer.close();
  });

  test("a durable write resolves only once its rows are committed, in either mode", async () => {
    const { evaluation, run } = await newEvaluation(store());
    for (const flushIntervalMs of [0, 60_000]) {
      const writer = store().scores.writer({ batchSize: 1000, flushIntervalMs });
      const id = `durable-${flushIntervalMs}`;
      await writer.write(verdict(evaluation, run, { message_id: id }), { durable: true });
      const rows = await store().scores.forEvaluation(evaluation);
      expect(rows.filter((r) => r.message_id === id)).toHaveLength(1);
      await writer.close();
    }
  });

  test("group commit puts verdicts that arrive together into one batch", async () => {
    const { evaluation, run } = await newEvaluation(store());
    const writer = store().scores.writer({ batchSize: 1000, flushIntervalMs: 0 });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        writer.write(verdict(evaluation, run, { message_id: `g${i}` }), { durable: true }),
      ),
    );
    expect(writer.written).toBe(8);
    expect(await store().scores.forEvaluation(evaluation)).toHaveLength(8);
    await writer.close();
  });

  test("a writer of new keys inserts without conflict checks, and falls back to replacing once a key is stored", async () => {
    const { evaluation, run } = await newEvaluation(store());
    const writer = store().scores.writer({ batchSize: 2, flushIntervalMs: 60_000, newKeys: true });
    await writer.write([
      verdict(evaluation, run, { message_id: "n1" }),
      verdict(evaluation, run, { message_id: "n2" }),
    ]);
    // A key written again (a retry's later answer): the plain insert fails, the batch is written the usual way.
    await writer.write([
      verdict(evaluation, run, { message_id: "n1", score: 3 }),
      verdict(evaluation, run, { message_id: "n3" }),
    ]);
    // An error never replaces an answer, in the fallback as always.
    await writer.write([
      verdict(evaluation, run, {
        message_id: "n2",
        status: "errored",
        score: null,
        raw_score: null,
        error: "JudgeError: late",
      }),
      verdict(evaluation, run, { message_id: "n4" }),
    ]);
    await writer.close();
    expect(writer.written).toBe(6);
    const rows = await store().scores.forEvaluation(evaluation);
    expect(rows.map((r) => [r.message_id, r.status, r.score])).toEqual([
      ["n1", "ok", 3],
      ["n2", "ok", 7],
      ["n3", "ok", 7],
      ["n4", "ok", 7],
    ]);
  });

  test("a writer of new keys still refuses rows whose evaluation does not exist", async () => {
    const writer = store().scores.writer({ flushIntervalMs: 60_000, newKeys: true });
    await writer.write(
      verdict("00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000001"),
    );
    await expect(writer.flush()).rejects.toThrow(/could not be written/);
  });

  test("a batch that cannot be written fails the writer's next call", async () => {
    const writer = store().scores.writer({ batchSize: 1000, flushIntervalMs: 60_000 });
    await writer.write(
      verdict("00000000-0000-4000-8000-000000000000", "00000000-0000-4000-8000-000000000001"),
    );
    await expect(writer.flush()).rejects.toSatisfy(StoreError.isInstance);
    await expect(writer.write(verdict("x", "y"))).rejects.toThrow(/could not be written/);
  });

  test("a score must name an evaluation that exists, and a run of that evaluation", async () => {
    const { evaluation, run } = await newEvaluation(store());
    const other = await newEvaluation(store());
    await expect(
      store().scores.write([verdict("00000000-0000-4000-8000-000000000000", run)]),
    ).rejects.toThrow(/do not exist together/);
    await expect(store().scores.write([verdict(evaluation, other.run)])).rejects.toThrow(
      /do not exist together/,
    );
    // One bad row refuses the whole batch: nothing of it is stored.
    await expect(
      store().scores.write([
        verdict(evaluation, run, { message_id: "m7" }),
        verdict(evaluation, "00000000-0000-4000-8000-000000000001", { message_id: "m8" }),
      ]),
    ).rejects.toThrow(/do not exist together/);
    expect(await store().scores.forEvaluation(evaluation)).toEqual([]);
    // An upsert cannot move a stored score to a run of another evaluation either.
    await store().scores.write([verdict(evaluation, run)]);
    await expect(store().scores.write([verdict(evaluation, other.run)])).rejects.toThrow(
      /do not exist together/,
    );
  });

  // Raw SQL: nothing deletes an evaluation or a run but SQL, which the memory store does not have.
  test.skipIf(kind === "memory")("deleting an evaluation or a run deletes its scores", async () => {
    const a = await newEvaluation(store());
    const b = await newEvaluation(store());
    await store().scores.write([
      verdict(a.evaluation, a.run),
      verdict(a.evaluation, a.run, { message_id: "m2" }),
      verdict(a.evaluation, "", { evaluation_run_id: null, agent_id: undefined, channel: "#kitchen" }),
      verdict(b.evaluation, b.run),
    ]);
    await db().query("DELETE FROM evaluation_runs WHERE id = $1", [a.run]);
    expect((await store().scores.forEvaluation(a.evaluation)).map((r) => r.channel)).toEqual(["#kitchen"]);
    await db().query("DELETE FROM evaluations WHERE id = $1", [a.evaluation]);
    expect(await store().scores.forEvaluation(a.evaluation)).toEqual([]);
    expect(await store().scores.forEvaluation(b.evaluation)).toHaveLength(1);
  });

  test("a closed writer refuses more verdicts", async () => {
    const writer = store().scores.writer();
    await writer.close();
    await expect(writer.write([])).rejects.toThrow(/closed/);
  });

  test("twenty thousand verdicts written through the writer are all stored", async () => {
    const { evaluation, run } = await newEvaluation(store());
    const writer = store().scores.writer();
    for (let i = 0; i < 20_000; i++) await writer.write(verdict(evaluation, run, { message_id: `m${i}` }));
    await writer.close();
    expect(await store().scores.summary(evaluation)).toEqual({ ok: 20_000, errored: 0, trivial: 0 });
  });

  test("write returns the rows it wrote: a repeated key once, an error kept off a result not at all", async () => {
    const { evaluation, run } = await newEvaluation(store());
    expect(
      await store().scores.write([
        verdict(evaluation, run, { message_id: "w1" }),
        verdict(evaluation, run, { message_id: "w1", score: 2 }),
        verdict(evaluation, run, { message_id: "w2" }),
      ]),
    ).toBe(2);
    expect(
      await store().scores.write([
        verdict(evaluation, run, { message_id: "w1", status: "errored", error: "E: x" }),
      ]),
    ).toBe(0);
    expect(await store().scores.write([])).toBe(0);
  });

  test("a replaced verdict keeps its id", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([verdict(evaluation, run, { status: "errored", error: "JudgeError: 500" })]);
    const [first] = await store().scores.forEvaluation(evaluation);
    await store().scores.write([verdict(evaluation, run, { score: 4 })]);
    const [second] = await store().scores.forEvaluation(evaluation);
    expect(second).toMatchObject({ id: first!.id, score: 4, status: "ok" });
    expect(second!.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test("scores are ordered by dimension, proposition, then agent, channel and message with NULLs first, then trial", async () => {
    const { evaluation, run } = await newEvaluation(store());
    const env = (over: Partial<ScoreInput>) => ({
      ...verdict(evaluation, run, { agent_id: undefined, message_id: undefined, ...over }),
      evaluation_run_id: null,
    });
    await store().scores.write([
      verdict(evaluation, run, { proposition_id: "b", message_id: "m2", trial: 2 }),
      verdict(evaluation, run, { proposition_id: "b", message_id: "m2", trial: 1 }),
      verdict(evaluation, run, { proposition_id: "b", message_id: "m1" }),
      verdict(evaluation, run, { proposition_id: "b", message_id: undefined }),
      env({ proposition_id: "b", channel: "kitchen" }),
      env({ proposition_id: "b", channel: "bar", message_id: "m1" }),
      env({ proposition_id: "b", channel: "bar" }),
      verdict(evaluation, run, { proposition_id: "a" }),
      verdict(evaluation, run, { dimension: "consistency", proposition_id: "z" }),
    ]);
    const rows = await store().scores.forEvaluation(evaluation);
    expect(
      rows.map((r) => [r.dimension, r.proposition_id, r.agent_id, r.channel, r.message_id, r.trial]),
    ).toEqual([
      ["adherence", "a", "marta", null, "m1", 1],
      ["adherence", "b", null, "bar", null, 1],
      ["adherence", "b", null, "bar", "m1", 1],
      ["adherence", "b", null, "kitchen", null, 1],
      ["adherence", "b", "marta", null, null, 1],
      ["adherence", "b", "marta", null, "m1", 1],
      ["adherence", "b", "marta", null, "m2", 1],
      ["adherence", "b", "marta", null, "m2", 2],
      ["consistency", "z", "marta", null, "m1", 1],
    ]);
  });

  test("scores are stored as real numbers, and rows read back are copies", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([
      verdict(evaluation, run, { score: 19 / 3, raw_score: 7, weight: 0.1, ideas: ["a", "b"] }),
    ]);
    const [row] = await store().scores.forEvaluation(evaluation);
    expect(row).toMatchObject({ score: 6.3333335, raw_score: 7, weight: 0.1, inverted: null, hard: null });
    row!.ideas!.push("c");
    expect((await store().scores.forEvaluation(evaluation))[0]?.ideas).toEqual(["a", "b"]);
  });

  test("an unknown or malformed evaluation has no scores, keys or counts", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      expect(await store().scores.forEvaluation(id)).toEqual([]);
      expect(await store().scores.existingKeys(id)).toEqual(new Set());
      expect(await store().scores.summary(id)).toEqual({ ok: 0, errored: 0, trivial: 0 });
    }
    const { evaluation } = await newEvaluation(store());
    expect(await store().scores.forEvaluation(evaluation, { run: "not-a-uuid" })).toEqual([]);
  });

  test("copying an evaluation's verdicts gives each to the target's run of its agent, with new ids", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([
      verdict(evaluation, run),
      verdict(evaluation, run, {
        message_id: "m2",
        status: "errored",
        score: null,
        raw_score: null,
        error: "E: x",
      }),
      verdict(evaluation, run, {
        dimension: "convergence",
        agent_id: undefined,
        evaluation_run_id: null,
        channel: "c",
      }),
    ]);
    const target = await store().evaluations.create({ source: "t.json" });
    const targetRun = await store().runs.create({
      agent_id: "marta",
      evaluation_id: target.id,
      dimensions: ["adherence"],
      sample_size: 3,
    });
    expect(await store().scores.copy(evaluation, target.id)).toBe(3);
    const strip = (rows: Awaited<ReturnType<Store["scores"]["forEvaluation"]>>) =>
      rows.map(({ id: _, evaluation_id: __, created_at: ___, evaluation_run_id: ____, ...r }) => r);
    const [from, to] = [
      await store().scores.forEvaluation(evaluation),
      await store().scores.forEvaluation(target.id),
    ];
    expect(strip(to)).toEqual(strip(from));
    expect(to.map((r) => r.evaluation_run_id)).toEqual(
      from.map((r) => (r.evaluation_run_id ? targetRun.id : null)),
    );
    expect(to.map((r) => r.id)).not.toContain(from[0]!.id);
  });

  test("copying to an evaluation without a run of the verdicts' agent is refused whole", async () => {
    const { evaluation, run } = await newEvaluation(store());
    await store().scores.write([
      verdict(evaluation, null as unknown as string, {
        dimension: "convergence",
        agent_id: undefined,
        channel: "c",
      }),
      verdict(evaluation, run),
    ]);
    const target = await store().evaluations.create({ source: "t.json" });
    await expect(store().scores.copy(evaluation, target.id)).rejects.toThrow(StoreError);
    expect(await store().scores.forEvaluation(target.id)).toEqual([]);
  });
});
