import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type LabelItem,
  labelItems,
  measureOrderEffects,
  type OrderEffects,
  readLabels,
  renderOrderEffects,
  renderOrderEffectsMarkdown,
} from "../../src/calibration/index.ts";
import { verdictKeyString } from "../../src/core/index.ts";
import { openStore } from "../../src/engine/index.ts";
import {
  CachingJudge,
  createJudge,
  type Judge,
  type JudgeItem,
  type JudgeRequest,
} from "../../src/judge/index.ts";
import { preparePersonaEvaluation, type StoredPersonaInput } from "../../src/personas/index.ts";
import { scriptedJudge, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { ENSEMBLE, ENSEMBLE_LABELS } from "./ensemble.ts";

const LABELS = ENSEMBLE_LABELS;

let kept: StoredPersonaInput;
let items: LabelItem[];
let byTarget: Map<string, LabelItem>;

beforeAll(async () => {
  const prepared = await preparePersonaEvaluation({
    transcript: `${ENSEMBLE}transcript.json`,
    propositions: `${ENSEMBLE}propositions`,
  });
  kept = { transcript: prepared.transcript, propositions: prepared.propositions };
  items = labelItems(readLabels(LABELS), kept);
  byTarget = new Map(items.map((i) => [targetOf(i), i]));
});

function targetOf(x: {
  dimension: string;
  proposition_id: string;
  agent_id?: string;
  message_id?: string;
  channel?: string;
}): string {
  const { dimension, proposition_id, agent_id, message_id, channel } = x;
  return verdictKeyString({ dimension, proposition_id, agent_id, message_id, channel, trial: 1 });
}

/** The people's rounded mean, kept at 2 or more so that a judge may take up to 2 off it. */
const base = (item: JudgeItem) => {
  const labelled = byTarget.get(targetOf(item.key));
  if (!labelled) throw new Error(`asked about an item nobody labelled: ${verdictKeyString(item.key)}`);
  const mean = labelled.raters.reduce((s, r) => s + r.score, 0) / labelled.raters.length;
  return Math.max(2, Math.floor(mean + 0.5));
};

/** A scripted judge by `score(item, request)`, keeping every request's claims in arrival order. */
function judgeScoring(
  score: (item: JudgeItem, request: JudgeRequest) => number,
  { delayMs }: { delayMs?: (request: JudgeRequest) => number } = {},
): { judge: Judge; asked: string[][]; answered: string[][] } {
  const asked: string[][] = [];
  const answered: string[][] = [];
  const scripted = scriptedJudge((item, request) => ({ score: score(item, request) }));
  const judge: Judge = {
    descriptor: scripted.descriptor,
    async judge(request, options) {
      asked.push(request.items.map((i) => verdictKeyString(i.key)));
      const ms = delayMs?.(request) ?? 0;
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      answered.push(request.items.map((i) => verdictKeyString(i.key)));
      // One model call per request, as the model judge it stands for would make (and count as sent).
      return { ...(await scripted.judge(request, options)), calls: 1 };
    },
  };
  return { judge, asked, answered };
}

const place = (item: JudgeItem, request: JudgeRequest) => request.items.indexOf(item);

/** The batched items and calls of the ensemble's labels: 35 items, 29 batch calls, 5 of them of 2–3 claims. */
const ITEMS = 35;
const BATCH_CALLS = 29;
const BATCHED = 11;

describe("measureOrderEffects", () => {
  it("a judge that ignores the batch and the place shows no effect, and the same agreement in every condition", async () => {
    const { judge, asked } = judgeScoring((item) => base(item));
    const effects = await measureOrderEffects({ kept, items, judge });
    expect(effects.verdict_cache).toBe("bypassed");
    expect(effects.items).toBe(ITEMS);
    expect(effects.batched_items).toBe(BATCHED);
    expect(effects.alone_items).toBe(ITEMS - BATCHED);
    expect(effects.unasked_items).toBe(0);
    expect(effects.conditions.map((c) => [c.condition, c.requests, c.errored])).toEqual([
      ["individual", ITEMS, 0],
      ["batch", BATCH_CALLS, 0],
      ["batch_shuffled", BATCH_CALLS, 0],
    ]);
    expect(asked).toHaveLength(ITEMS + 2 * BATCH_CALLS);
    const [individual, ...batches] = effects.conditions;
    for (const c of batches)
      expect({ ...c, condition: "x", requests: 0, calls: 0 }).toEqual({
        ...individual,
        condition: "x",
        requests: 0,
        calls: 0,
      });
    for (const effect of [effects.batching, effects.position]) {
      expect(effect).toMatchObject({
        n: BATCHED,
        mean_delta: 0,
        mean_abs_delta: 0,
        changed: 0,
        largest_moves: [],
      });
      for (const p of effect.propositions) expect(p.mean_delta).toBe(0);
    }
    expect(effects.position.by_position.map((p) => p.mean_delta)).toEqual([0, 0, 0]);
  });

  it("a judge that takes 1 off every claim asked in a batch shows a batching effect of exactly −1 and no position effect", async () => {
    const { judge } = judgeScoring((item, request) => base(item) - (request.items.length > 1 ? 1 : 0));
    const effects = await measureOrderEffects({ kept, items, judge });
    expect(effects.batching).toMatchObject({
      from: "individual",
      to: "batch",
      n: BATCHED,
      mean_delta: -1,
      mean_abs_delta: 1,
      changed: 1,
    });
    expect(effects.batching.largest_moves).toHaveLength(5);
    for (const m of effects.batching.largest_moves) expect(m.to - m.from).toBe(-1);
    for (const p of effects.batching.propositions) expect(p.mean_delta).toBe(-1);
    expect(effects.position).toMatchObject({
      from: "batch",
      to: "batch_shuffled",
      n: BATCHED,
      mean_delta: 0,
      mean_abs_delta: 0,
    });
    // A level, not a slope: every place is 1 below the claim judged alone.
    expect(effects.position.by_position.map((p) => p.mean_delta)).toEqual([-1, -1, -1]);
  });

  it("a judge that takes its place in the call off each claim shows by-place means of exactly 0, −1, −2", async () => {
    const { judge } = judgeScoring((item, request) => base(item) - place(item, request));
    const effects = await measureOrderEffects({ kept, items, judge });
    expect(effects.position.by_position.map((p) => [p.position, p.mean_delta])).toEqual([
      [1, 0],
      [2, -1],
      [3, -2],
    ]);
    // Each call's places are the same set shuffled or not: the moves cancel on average, but not item by item.
    expect(effects.position.mean_delta).toBe(0);
    expect(effects.position.mean_abs_delta).toBeGreaterThan(0);
    expect(effects.position.largest_moves.length).toBeGreaterThan(0);
    for (const m of effects.position.largest_moves) expect(m.to).not.toBe(m.from);
  });

  it("the shuffle changes the order of every call of two or more claims, and keeps each claim's own verdict", async () => {
    const { judge, asked } = judgeScoring((item) => base(item));
    await measureOrderEffects({ kept, items, judge, concurrency: 1 });
    const batch = asked.slice(ITEMS, ITEMS + BATCH_CALLS);
    const shuffledCalls = asked.slice(ITEMS + BATCH_CALLS);
    let multi = 0;
    batch.forEach((call, i) => {
      expect([...shuffledCalls[i]!].sort()).toEqual([...call].sort());
      if (call.length >= 2) {
        multi++;
        expect(shuffledCalls[i]).not.toEqual(call);
      } else expect(shuffledCalls[i]).toEqual(call);
    });
    expect(multi).toBe(5);
  });

  it("the same seed gives the same document bit for bit whatever order the answers arrive in", async () => {
    const slow = (ms: number) => (request: JudgeRequest) =>
      request.items.some((i) => i.key.proposition_id.length % 2 === 0) ? ms : 0;
    const score = (item: JudgeItem, request: JudgeRequest) => base(item) - place(item, request);
    const one = await measureOrderEffects({
      kept,
      items,
      judge: judgeScoring(score).judge,
      seed: 7,
      trials: 2,
      resamples: 20,
      concurrency: 1,
    });
    const { judge, asked, answered } = judgeScoring(score, { delayMs: slow(15) });
    const two = await measureOrderEffects({
      kept,
      items,
      judge,
      seed: 7,
      trials: 2,
      resamples: 20,
      concurrency: 8,
    });
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    expect(one.conditions[0]!.ci?.kappa_quadratic).not.toBeNull();
    // The slow answers did come back late: arrival differs from the order the requests went out in.
    expect(answered).toHaveLength(2 * (ITEMS + 2 * BATCH_CALLS));
    expect(answered).not.toEqual(asked);
    const other = await measureOrderEffects({
      kept,
      items,
      judge: judgeScoring(score).judge,
      seed: 8,
      trials: 2,
      resamples: 20,
    });
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(one));
  });

  it("asks the judge afresh every time, and refuses a judge behind the verdict cache", async () => {
    const { judge, asked } = judgeScoring((item) => base(item));
    await measureOrderEffects({ kept, items, judge });
    await measureOrderEffects({ kept, items, judge });
    expect(asked).toHaveLength(2 * (ITEMS + 2 * BATCH_CALLS));
    const store = await openStore("memory://");
    try {
      const cached = new CachingJudge({ judge, backend: store.verdictCache, mode: "batch" });
      await expect(measureOrderEffects({ kept, items, judge: cached })).rejects.toThrow(/verdict cache/);
    } finally {
      await store.close();
    }
  });

  it("counts errored verdicts and never scores them", async () => {
    const victim = items.find((i) => i.dimension === "consistency")!;
    const { judge } = judgeScoring((item, request) => {
      if (request.items.length > 1 && targetOf(item.key) === targetOf(victim)) throw new Error("no answer");
      return base(item);
    });
    const effects = await measureOrderEffects({ kept, items, judge });
    const errored = Object.fromEntries(effects.conditions.map((c) => [c.condition, [c.errored, c.n_judged]]));
    // The victim shares a batch call: both batch conditions lose it, the individual one does not.
    expect(errored).toEqual({
      individual: [0, ITEMS],
      batch: [1, ITEMS - 1],
      batch_shuffled: [1, ITEMS - 1],
    });
    expect(effects.batching.n).toBe(BATCHED - 1);
    expect(effects.batching.mean_delta).toBe(0);
  });

  it("renders the figures for the terminal and for a pull request", async () => {
    const { judge } = judgeScoring((item, request) => base(item) - place(item, request));
    const effects: OrderEffects = await measureOrderEffects({ kept, items, judge });
    const text = renderOrderEffects(effects);
    expect(text).toContain("batching (batch − individual)");
    expect(text).toContain("1st 0.00 (n 10), 2nd −1.00 (n 10), 3rd −2.00 (n 2)");
    expect(text).toContain("never the verdict cache");
    expect(text).toContain(`${ITEMS - BATCHED} item(s) were alone in their batch call`);
    const markdown = renderOrderEffectsMarkdown(effects);
    expect(markdown).toContain("| position (batch, shuffled − batch) |");
    expect(markdown).toContain("2nd −1.00");
  });
});

describe("measureOrderEffects over the OpenAI-compatible provider", () => {
  let server: Awaited<ReturnType<typeof startFakeOpenAIServer>>;
  afterAll(() => server?.close());

  it("judges the three conditions through the real client, batches as one request each", async () => {
    server = await startFakeOpenAIServer();
    const judge = createJudge("openai-compatible:fake-model", { baseUrl: server.url, env: {} });
    const effects = await measureOrderEffects({ kept, items, judge, concurrency: 4 });
    expect(effects.conditions.map((c) => [c.condition, c.requests, c.errored, c.n_judged])).toEqual([
      ["individual", ITEMS, 0, ITEMS],
      ["batch", BATCH_CALLS, 0, ITEMS],
      ["batch_shuffled", BATCH_CALLS, 0, ITEMS],
    ]);
    expect(server.stats.calls).toBe(effects.conditions.reduce((s, c) => s + c.calls, 0));
    for (const c of effects.conditions) expect(c.token_usage.input_tokens).toBeGreaterThan(0);
    expect(effects.judge).toEqual({ provider: "openai-compatible", model: "fake-model" });
  });
});
