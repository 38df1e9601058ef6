// calibrate(): a calibration stored as an evaluation of kind "calibration" — a stored run's verdicts read
// back, or only the labelled items judged afresh — over the bundled ensemble and its hand-written labels.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CalibrationResult,
  calibrate,
  calibrateStoredRun,
  type LabelItem,
  labelItems,
  readLabels,
} from "../../src/calibration/index.ts";
import { verdictKeyString } from "../../src/core/index.ts";
import { openStore, type Store } from "../../src/engine/index.ts";
import type { Judge, JudgeItem } from "../../src/judge/index.ts";
import { parseStoredPersonaInput } from "../../src/personas/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";
import { ENSEMBLE, ENSEMBLE_LABELS, evaluateEnsemble } from "./ensemble.ts";

const LABELS = ENSEMBLE_LABELS;

let store: Store;
let evaluationId: string;
let items: LabelItem[];
let byTarget: Map<string, LabelItem>;

beforeAll(async () => {
  store = await openStore("memory://");
  evaluationId = await evaluateEnsemble(store);
  const kept = parseStoredPersonaInput(await store.evaluations.input(evaluationId))!;
  items = labelItems(readLabels(LABELS), kept);
  byTarget = new Map(items.map((i) => [targetOf(i), i]));
});

afterAll(() => store.close());

function targetOf(x: {
  dimension: string;
  proposition_id: string;
  agent_id?: string;
  message_id?: string;
  channel?: string;
}): string {
  return verdictKeyString({
    dimension: x.dimension,
    proposition_id: x.proposition_id,
    agent_id: x.agent_id,
    message_id: x.message_id,
    channel: x.channel,
    trial: 1,
  });
}

const roundedMean = (item: LabelItem) =>
  Math.floor(item.raters.reduce((s, r) => s + r.score, 0) / item.raters.length + 0.5);

/** A judge that gives each labelled item `scoreOf(item)` and records every item it was asked. */
function judgeScoring(scoreOf: (item: LabelItem) => number): { judge: Judge; asked: JudgeItem[] } {
  const asked: JudgeItem[] = [];
  const judge = scriptedJudge((item) => {
    asked.push(item);
    const labelled = byTarget.get(targetOf(item.key));
    if (!labelled) throw new Error(`asked about an item nobody labelled: ${verdictKeyString(item.key)}`);
    return { score: scoreOf(labelled), reasoning: `scored ${scoreOf(labelled)}` };
  });
  return { judge, asked };
}

/** The document without what differs between two calibrations of the same thing: their own ids. */
const withoutId = (result: CalibrationResult) => ({ ...result, evaluation_id: null });

describe("calibrate with a stored run", () => {
  it("stores a calibration evaluation whose result is the document returned, figures as calibrateStoredRun's", async () => {
    const result = await calibrate({ store, run: evaluationId, labels: LABELS, resamples: 50 });
    expect(result.evaluation_id).toMatch(/^[0-9a-f-]{36}$/);
    const row = (await store.evaluations.get(result.evaluation_id!))!;
    expect(row.kind).toBe("calibration");
    expect(row.status).toBe("completed");
    expect(row.propositions_hash).toBe(result.propositions_hash);
    expect(await store.evaluations.result(result.evaluation_id!)).toEqual(result);
    const computed = await calibrateStoredRun({ store, id: evaluationId, labels: LABELS, resamples: 50 });
    expect(withoutId(result)).toEqual(computed);
    expect(result.judged).toBe(false);
    expect(result.judge).toEqual({ provider: "fixtures", model: "hand-written" });
  });
});

describe("calibrate with a judge", () => {
  it("judges only the labelled items, once each, and a judge that agrees gives κ = 1 and no flags", async () => {
    const { judge, asked } = judgeScoring(roundedMean);
    const result = await calibrate({ store, run: evaluationId, labels: LABELS, judge, resamples: 50 });
    expect(asked.map((i) => targetOf(i.key)).sort()).toEqual(items.map(targetOf).sort());
    expect(result.judged).toBe(true);
    expect(result.judge).toEqual({ provider: "fixtures", model: "scripted" });
    expect(result.overall.n_judged).toBe(items.length);
    expect(result.overall.kappa_quadratic).toBe(1);
    expect(result.propositions.some((p) => p.flagged)).toBe(false);
    expect(result.not_judged).toBe(0);
    // Its verdicts are its own, not the stored run's.
    const rows = await store.scores.forEvaluation(result.evaluation_id!);
    expect(rows).toHaveLength(items.length);
  });

  it("in batch mode the labelled items go in batches and come back the same", async () => {
    const { judge, asked } = judgeScoring(roundedMean);
    let requests = 0;
    const counting: Judge = {
      descriptor: judge.descriptor,
      judge: (request, options) => {
        requests++;
        return judge.judge(request, options);
      },
    };
    const result = await calibrate({
      store,
      run: evaluationId,
      labels: LABELS,
      judge: counting,
      mode: "batch",
      resamples: 0,
    });
    expect(asked).toHaveLength(items.length);
    expect(requests).toBeLessThan(items.length);
    expect(result.overall.kappa_quadratic).toBe(1);
  });

  it("a judge perfect on all but one proposition flags exactly that one", async () => {
    const target = items[0]!;
    const off = (item: LabelItem) =>
      item.dimension === target.dimension && item.proposition_id === target.proposition_id;
    const { judge } = judgeScoring((item) => (off(item) ? 9 - roundedMean(item) : roundedMean(item)));
    const result = await calibrate({ store, run: evaluationId, labels: LABELS, judge, resamples: 0 });
    const flagged = result.propositions.filter((p) => p.flagged);
    expect(flagged.map((p) => [p.dimension, p.proposition_id])).toEqual([
      [target.dimension, target.proposition_id],
    ]);
  });

  it("gives the same document whatever the concurrency (its own id aside)", async () => {
    const scoreOf = (item: LabelItem) => (roundedMean(item) + item.proposition_id.length) % 10;
    const one = await calibrate({
      store,
      run: evaluationId,
      labels: LABELS,
      judge: judgeScoring(scoreOf).judge,
      concurrency: 1,
      resamples: 100,
    });
    const many = await calibrate({
      store,
      run: evaluationId,
      labels: LABELS,
      judge: judgeScoring(scoreOf).judge,
      concurrency: 12,
      resamples: 100,
    });
    expect(JSON.stringify(withoutId(many))).toBe(JSON.stringify(withoutId(one)));
  });

  it("judges a transcript file given directly, with no stored run", async () => {
    const { judge } = judgeScoring(roundedMean);
    const result = await calibrate({
      store,
      transcript: `${ENSEMBLE}transcript.json`,
      propositions: `${ENSEMBLE}propositions`,
      labels: LABELS,
      judge,
      resamples: 0,
    });
    expect(result.calibrated_evaluation).toBeNull();
    expect(result.overall.n_judged).toBe(items.length);
  });

  it("warns of self-preference when the judge shares the family of an agent's model", async () => {
    const transcript = JSON.parse(readFileSync(`${ENSEMBLE}transcript.json`, "utf8"));
    transcript.agents[0].model = "openai:gpt-4o";
    const { judge } = judgeScoring(roundedMean);
    const same: Judge = {
      ...judge,
      descriptor: { ...judge.descriptor, provider: "openai", model: "gpt-4o-mini" },
    };
    const common = {
      store,
      transcript,
      propositions: `${ENSEMBLE}propositions`,
      labels: LABELS,
      resamples: 0,
    };
    const warned = await calibrate({ ...common, judge: same });
    expect(warned.warnings).toEqual([expect.stringMatching(/^self-preference: .*OpenAI GPT.*gpt-4o\)/)]);
    const other: Judge = {
      ...judge,
      descriptor: { ...judge.descriptor, provider: "anthropic", model: "claude-haiku-4-5" },
    };
    expect((await calibrate({ ...common, judge: other })).warnings).toEqual([]);
  });

  it("without a run or a transcript, or with a transcript and no judge, says what is missing", async () => {
    await expect(calibrate({ store, labels: LABELS })).rejects.toThrow(/--run/);
    await expect(
      calibrate({ store, labels: LABELS, transcript: `${ENSEMBLE}transcript.json` }),
    ).rejects.toThrow(/give a judge/);
  });
});
