// runs: one agent and trial of an evaluation; lifecycle, listing, baselines and history.
import { randomUUID } from "node:crypto";
import { expect, test } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import { personaHash, type RunJudge, type Store } from "../../src/store/index.ts";
import { describeStore } from "./backends.ts";

const judge: RunJudge = {
  provider: "openai",
  model: "fake-model-b",
  temperature: 0,
  mode: "batch",
  double_check: false,
  prompt_version: "p1",
};

/** A fresh agent id, so tests sharing a store never see each other's runs. */
async function newAgent(store: Store): Promise<string> {
  const id = `agent-${randomUUID().slice(0, 8)}`;
  await store.agents.upsert({ id, name: id, persona: `Persona of ${id}` });
  return id;
}

/** A completed run with the given adherence and ideas results. */
async function completedRun(
  store: Store,
  agent: string,
  {
    adherence,
    ideas = 3,
    evaluation,
    trial = 1,
    judge: j = judge,
  }: { adherence: number | null; ideas?: number; evaluation?: string; trial?: number; judge?: RunJudge },
) {
  // Runs are ordered by creation time: let the clock move on so no two share a timestamp.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const run = await store.runs.create({
    agent_id: agent,
    evaluation_id: evaluation,
    dimensions: ["adherence", "ideas_quantity"],
    sample_size: 12,
    trial,
    judge: j,
  });
  await store.runs.start(run.id);
  return store.runs.complete(run.id, {
    overall_score: adherence,
    dimension_scores: {
      adherence: { score: adherence, judged: 4, errored: 0 },
      ideas_quantity: { score: null, count: ideas },
    },
  });
}

describeStore("runs", ({ store }) => {
  test("a new run is pending and takes its persona hash from the stored agent", async () => {
    const agent = await newAgent(store());
    const run = await store().runs.create({
      agent_id: agent,
      dimensions: ["adherence", "fluency"],
      sample_size: 20,
      window_start: "2025-01-01T00:00:00.000Z",
      judge,
      propositions_hash: "ph1",
    });
    expect(run).toMatchObject({
      agent_id: agent,
      status: "pending",
      dimensions: ["adherence", "fluency"],
      sample_size: 20,
      trial: 1,
      errored: 0,
      is_baseline: false,
      judge,
      propositions_hash: "ph1",
      persona_hash: personaHash(`Persona of ${agent}`),
      window_start: "2025-01-01T00:00:00.000Z",
      evaluation_id: null,
    });
    expect(await store().runs.get(run.id)).toEqual(run);
  });

  test("a completed run stores its overall and per-dimension scores", async () => {
    const agent = await newAgent(store());
    const run = await completedRun(store(), agent, { adherence: 7.25 });
    expect(run).toMatchObject({
      status: "completed",
      overall_score: 7.25,
      dimension_scores: { adherence: { score: 7.25 }, ideas_quantity: { count: 3 } },
    });
    expect(run.started_at).not.toBeNull();
    expect(run.completed_at).not.toBeNull();
  });

  test("a failed run keeps its error and errored count", async () => {
    const agent = await newAgent(store());
    const run = await store().runs.create({ agent_id: agent, dimensions: ["adherence"], sample_size: 1 });
    await store().runs.start(run.id);
    const failed = await store().runs.fail(run.id, "judge timed out", { errored: 10 });
    expect(failed).toMatchObject({ status: "failed", error: "judge timed out", errored: 10 });
  });

  test("a run cannot complete twice", async () => {
    const agent = await newAgent(store());
    const run = await completedRun(store(), agent, { adherence: 5 });
    await expect(store().runs.complete(run.id, { overall_score: 1, dimension_scores: {} })).rejects.toSatisfy(
      StoreError.isInstance,
    );
  });

  test("runs are listed newest first, by agent, evaluation and baseline flag", async () => {
    const agent = await newAgent(store());
    const evaluation = await store().evaluations.create({ source: "t.json" });
    const first = await completedRun(store(), agent, { adherence: 5, evaluation: evaluation.id });
    const second = await completedRun(store(), agent, { adherence: 6 });
    expect((await store().runs.list({ agent })).map((r) => r.id)).toEqual([second.id, first.id]);
    expect((await store().runs.list({ agent, limit: 1 })).map((r) => r.id)).toEqual([second.id]);
    expect((await store().runs.list({ evaluation: evaluation.id })).map((r) => r.id)).toEqual([first.id]);
    await store().runs.markBaseline(first.id);
    expect((await store().runs.list({ agent, isBaseline: true })).map((r) => r.id)).toEqual([first.id]);
    expect((await store().runs.list({ agent, isBaseline: false })).map((r) => r.id)).toEqual([second.id]);
  });

  test("marking a baseline unmarks the agent's earlier baseline", async () => {
    const agent = await newAgent(store());
    const old = await completedRun(store(), agent, { adherence: 5 });
    const current = await completedRun(store(), agent, { adherence: 6 });
    await store().runs.markBaseline(old.id);
    await store().runs.markBaseline(current.id);
    expect((await store().runs.get(old.id))?.is_baseline).toBe(false);
    expect((await store().runs.get(current.id))?.is_baseline).toBe(true);
  });

  test("a baseline includes the sibling trials of its evaluation", async () => {
    const agent = await newAgent(store());
    const evaluation = await store().evaluations.create({ source: "t.json" });
    const trials = [];
    for (const trial of [1, 2, 3])
      trials.push(await completedRun(store(), agent, { adherence: 6, evaluation: evaluation.id, trial }));
    const marked = await store().runs.markBaseline(trials[1]!.id);
    expect(marked.map((r) => r.trial)).toEqual([1, 2, 3]);
  });

  test("only a completed run can become a baseline", async () => {
    const agent = await newAgent(store());
    const run = await store().runs.create({ agent_id: agent, dimensions: ["adherence"], sample_size: 1 });
    await expect(store().runs.markBaseline(run.id)).rejects.toThrow(/is pending; only a completed run/);
  });

  test("history lists an agent's completed runs oldest first with the judge and hashes of each", async () => {
    const agent = await newAgent(store());
    const other = { ...judge, model: "fake-model-a", provider: "anthropic" };
    const a = await completedRun(store(), agent, { adherence: 5 });
    const pending = await store().runs.create({ agent_id: agent, dimensions: ["adherence"], sample_size: 1 });
    const b = await completedRun(store(), agent, { adherence: 7, judge: other });
    const history = await store().runs.history({ agent, dimension: "adherence" });
    expect(history.map((h) => [h.run_id, h.score])).toEqual([
      [a.id, 5],
      [b.id, 7],
    ]);
    expect(history.map((h) => h.judge?.model)).toEqual(["fake-model-b", "fake-model-a"]);
    expect(history.every((h) => h.persona_hash === personaHash(`Persona of ${agent}`))).toBe(true);
    expect(history.some((h) => h.run_id === pending.id)).toBe(false);
  });

  test("history of ideas quantity gives counts, not scores", async () => {
    const agent = await newAgent(store());
    await completedRun(store(), agent, { adherence: 5, ideas: 4 });
    await completedRun(store(), agent, { adherence: 5, ideas: 9 });
    const history = await store().runs.history({ agent, dimension: "ideas_quantity" });
    expect(history.map((h) => [h.score, h.count])).toEqual([
      [null, 4],
      [null, 9],
    ]);
  });

  test("history without a dimension follows the overall score, and a limit keeps the newest runs", async () => {
    const agent = await newAgent(store());
    for (const score of [4, 5, 6, 7]) await completedRun(store(), agent, { adherence: score });
    const history = await store().runs.history({ agent, limit: 2 });
    expect(history.map((h) => h.score)).toEqual([6, 7]);
  });

  test("history before a point holds only the older runs, so pages walk back in time", async () => {
    const agent = await newAgent(store());
    for (const score of [3, 4, 5, 6, 7]) await completedRun(store(), agent, { adherence: score });
    const newest = await store().runs.history({ agent, limit: 2 });
    const oldest = newest[0]!;
    const before = { id: oldest.run_id, created_at: oldest.created_at };
    const older = await store().runs.history({ agent, limit: 2, before });
    expect(older.map((h) => h.score)).toEqual([4, 5]);
    expect((await store().runs.history({ agent, before })).map((h) => h.score)).toEqual([3, 4, 5]);
  });

  test("history before a malformed run id is empty rather than an error", async () => {
    const agent = await newAgent(store());
    await completedRun(store(), agent, { adherence: 5 });
    const before = { id: "not-a-uuid", created_at: new Date().toISOString() };
    expect(await store().runs.history({ agent, before })).toEqual([]);
  });

  test("history skips runs that did not score the dimension", async () => {
    const agent = await newAgent(store());
    await completedRun(store(), agent, { adherence: 5 });
    expect(await store().runs.history({ agent, dimension: "fluency" })).toEqual([]);
  });

  test("a run read back is a copy: changing it changes nothing stored", async () => {
    const agent = await newAgent(store());
    const run = await store().runs.create({
      agent_id: agent,
      dimensions: ["adherence"],
      sample_size: 1,
      judge,
    });
    run.dimensions.push("fluency");
    run.judge!.model = "changed";
    expect(await store().runs.get(run.id)).toMatchObject({ dimensions: ["adherence"], judge });
  });

  test("scores are stored as real numbers, single precision, in the run and its history", async () => {
    const agent = await newAgent(store());
    const run = await completedRun(store(), agent, { adherence: 19 / 3 });
    expect(run.overall_score).toBe(6.3333335);
    expect(run.dimension_scores?.adherence?.score).toBe(19 / 3);
    const [point] = await store().runs.history({ agent, dimension: "adherence" });
    expect(point?.score).toBe(6.3333335);
  });

  test("a run is interrupted while pending or running and started again, but not completed twice or failed after", async () => {
    const agent = await newAgent(store());
    const run = await store().runs.create({ agent_id: agent, dimensions: ["adherence"], sample_size: 1 });
    await store().runs.start(run.id);
    expect((await store().runs.interrupt(run.id)).status).toBe("interrupted");
    await expect(store().runs.complete(run.id, { overall_score: 1, dimension_scores: {} })).rejects.toThrow(
      `run ${run.id} is interrupted; it cannot become completed`,
    );
    const resumed = await store().runs.start(run.id);
    expect(resumed).toMatchObject({ status: "running", completed_at: null, error: null });
    await store().runs.complete(run.id, { overall_score: 4, dimension_scores: {} });
    await expect(store().runs.fail(run.id, "late")).rejects.toThrow(/is completed; it cannot become failed/);
    await expect(store().runs.interrupt(run.id)).rejects.toSatisfy(StoreError.isInstance);
    await expect(store().runs.start("00000000-0000-4000-8000-000000000000")).rejects.toThrow(
      /does not exist/,
    );
  });

  test("a failed run keeps the dimension scores and usage it had, unless the failure names new ones", async () => {
    const agent = await newAgent(store());
    const run = await store().runs.create({ agent_id: agent, dimensions: ["adherence"], sample_size: 1 });
    await store().runs.start(run.id);
    const failed = await store().runs.fail(run.id, "boom", {
      dimension_scores: { adherence: { score: 3 } },
      token_usage: { input_tokens: 5, output_tokens: 1 },
    });
    expect(failed).toMatchObject({
      status: "failed",
      errored: 0,
      dimension_scores: { adherence: { score: 3 } },
      token_usage: { input_tokens: 5, output_tokens: 1 },
    });
    await store().runs.start(run.id);
    const again = await store().runs.fail(run.id, "boom again");
    expect(again).toMatchObject({ error: "boom again", dimension_scores: { adherence: { score: 3 } } });
  });

  test("a run needs an agent that exists, and takes a persona hash given to it over the agent's", async () => {
    await expect(
      store().runs.create({ agent_id: "nobody-at-all", dimensions: ["adherence"], sample_size: 1 }),
    ).rejects.toSatisfy(StoreError.isInstance);
    const agent = await newAgent(store());
    const run = await store().runs.create({
      agent_id: agent,
      dimensions: [],
      sample_size: 0,
      persona_hash: "given",
      trial: 2,
    });
    expect(run).toMatchObject({ persona_hash: "given", trial: 2, judge: null, window_end: null });
  });

  test("runs are listed by status, trials of one moment newest trial first, and a malformed evaluation finds none", async () => {
    const agent = await newAgent(store());
    const evaluation = await store().evaluations.create({ source: "t.json" });
    const one = await completedRun(store(), agent, { adherence: 5, evaluation: evaluation.id, trial: 1 });
    const pending = await store().runs.create({ agent_id: agent, dimensions: ["adherence"], sample_size: 1 });
    expect((await store().runs.list({ agent, status: "pending" })).map((r) => r.id)).toEqual([pending.id]);
    expect((await store().runs.list({ agent, status: "completed" })).map((r) => r.id)).toEqual([one.id]);
    expect(await store().runs.list({ evaluation: "not-a-uuid" })).toEqual([]);
  });

  test("a baseline leaves out sibling trials that did not complete, and an unknown run cannot be one", async () => {
    const agent = await newAgent(store());
    const evaluation = await store().evaluations.create({ source: "t.json" });
    const done = await completedRun(store(), agent, { adherence: 6, evaluation: evaluation.id, trial: 1 });
    const unfinished = await store().runs.create({
      agent_id: agent,
      evaluation_id: evaluation.id,
      dimensions: ["adherence"],
      sample_size: 1,
      trial: 2,
    });
    expect((await store().runs.markBaseline(done.id)).map((r) => r.id)).toEqual([done.id]);
    expect((await store().runs.get(unfinished.id))?.is_baseline).toBe(false);
    const unknown = "00000000-0000-4000-8000-000000000000";
    await expect(store().runs.markBaseline(unknown)).rejects.toThrow(`run ${unknown} does not exist`);
    await expect(store().runs.markBaseline("not-a-uuid")).rejects.toThrow(/does not exist/);
  });
});
