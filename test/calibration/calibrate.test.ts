import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  calibrateStoredRun,
  type LabelItem,
  labelItemKey,
  labelItems,
  readLabels,
} from "../../src/calibration/index.ts";
import { type Verdict, verdictKeyString } from "../../src/core/index.ts";
import { openStore, type Store } from "../../src/engine/index.ts";
import { createJudge, type Judge } from "../../src/judge/index.ts";
import { evaluatePersonas, parseStoredPersonaInput } from "../../src/personas/index.ts";
import { ENSEMBLE, ENSEMBLE_LABELS, evaluateEnsemble } from "./ensemble.ts";

const LABELS = ENSEMBLE_LABELS;

let store: Store;
let evaluationId: string;
let runOf: Map<string, string | null>;
let items: LabelItem[];

beforeAll(async () => {
  store = await openStore("memory://");
  evaluationId = await evaluateEnsemble(store);
  const kept = parseStoredPersonaInput(await store.evaluations.input(evaluationId))!;
  items = labelItems(readLabels(LABELS), kept);
  const rows = await store.scores.forEvaluation(evaluationId);
  runOf = new Map(rows.map((r) => [r.verdict_key, r.evaluation_run_id]));
});

afterAll(() => store.close());

const roundedMean = (item: LabelItem) =>
  Math.floor(item.raters.reduce((s, r) => s + r.score, 0) / item.raters.length + 0.5);

/** Rewrites the judge's verdict on every labelled item with the score `judgeOf` gives it. */
async function judgeLabelledItemsAs(judgeOf: (item: LabelItem) => number): Promise<void> {
  await store.scores.write(
    items.map((item) => {
      const key = labelItemKey(item);
      const raw = judgeOf(item);
      return {
        ...key,
        evaluation_id: evaluationId,
        evaluation_run_id: runOf.get(verdictKeyString(key)) ?? null,
        status: "ok" as const,
        raw_score: raw,
        score: item.inverted ? 9 - raw : raw,
        inverted: item.inverted,
        reasoning: `scored ${raw}`,
      };
    }),
  );
}

const calibrate = () => calibrateStoredRun({ store, id: evaluationId, labels: LABELS, resamples: 50 });

describe("calibrateStoredRun", () => {
  it("every labelled item of the demo has a verdict in the run", async () => {
    const result = await calibrate();
    expect(result.not_judged).toBe(0);
    expect(result.overall.n).toBe(items.length);
    expect(result.judge).toEqual({ provider: "fixtures", model: "hand-written" });
  });

  it("a judge that agrees perfectly gives κ = 1 and flags nothing", async () => {
    await judgeLabelledItemsAs(roundedMean);
    const result = await calibrate();
    expect(result.overall.kappa_quadratic).toBe(1);
    expect(result.overall.exact).toBe(1);
    for (const p of result.propositions) {
      expect(p.flagged, p.proposition_id).toBe(false);
      // κ is undefined where judge and people sit on one score throughout, which is agreement too.
      if (p.kappa_quadratic !== null) expect(p.kappa_quadratic).toBe(1);
    }
  });

  it("a judge perfect on all but one proposition flags exactly that one, with its disagreements", async () => {
    await judgeLabelledItemsAs((item) =>
      item.proposition_id === "persona-style" ? 9 - roundedMean(item) : roundedMean(item),
    );
    const result = await calibrate();
    const flagged = result.propositions.filter((p) => p.flagged);
    expect(flagged.map((p) => `${p.dimension}/${p.proposition_id}`)).toEqual(["adherence/persona-style"]);
    const [only] = flagged;
    expect(only!.kappa_quadratic).toBeLessThan(0.6);
    expect(only!.disagreements!.length).toBeGreaterThan(0);
    expect(only!.disagreements!.length).toBeLessThanOrEqual(5);
    const gaps = only!.disagreements!.map((d) => Math.abs(d.judge - d.human_mean));
    expect(gaps).toEqual([...gaps].sort((a, b) => b - a));
    const first = only!.disagreements![0]!;
    expect(first.text).toBeTypeOf("string");
    expect(first.speaker).toBeTypeOf("string");
    expect(first.reasoning).toBe(`scored ${first.judge}`);
    expect(result.propositions.filter((p) => !p.flagged).every((p) => p.disagreements === undefined)).toBe(
      true,
    );
  });

  it("a label of a message the run holds no verdict for is counted as not judged, not compared", async () => {
    const m = items.find((i) => i.message_id !== undefined)!;
    const key = labelItemKey(m);
    const other = await openStore("memory://");
    try {
      // The same evaluation in a store of its own, without that one verdict.
      const result = await evaluatePersonas({
        transcript: `${ENSEMBLE}transcript.json`,
        propositions: `${ENSEMBLE}propositions`,
        judge: createJudge(`fixtures:${ENSEMBLE}judge-fixtures.json`),
        store: other,
      });
      const before = await calibrateStoredRun({
        store: other,
        id: result.evaluation_id,
        labels: LABELS,
        resamples: 0,
      });
      const rows = await other.scores.forEvaluation(result.evaluation_id);
      const missing = rows.filter((r) => r.verdict_key !== verdictKeyString(key));
      expect(missing.length).toBe(rows.length - 1);
      const fake = new Proxy(other, {
        get: (target, name) =>
          name === "scores" ? { forEvaluation: async () => missing } : Reflect.get(target, name),
      });
      const after = await calibrateStoredRun({
        store: fake,
        id: result.evaluation_id,
        labels: LABELS,
        resamples: 0,
      });
      expect(after.not_judged).toBe(1);
      expect(after.not_judged_items).toEqual([
        {
          dimension: m.dimension,
          proposition_id: m.proposition_id,
          agent_id: m.agent_id,
          message_id: m.message_id,
        },
      ]);
      expect(after.overall.n).toBe(before.overall.n - 1);
    } finally {
      await other.close();
    }
  });

  it("over several trials the judge's score is the mean of its trials rounded half up, errored ones left out", async () => {
    const other = await openStore("memory://");
    try {
      const [erroring] = items;
      const failing = verdictKeyString(labelItemKey(erroring!, 1));
      const fixtures = createJudge(`fixtures:${ENSEMBLE}judge-fixtures.json`);
      // The fixture judge, but its first trial on one labelled item times out.
      const judge: Judge = {
        descriptor: fixtures.descriptor,
        async judge(request, options) {
          const response = await fixtures.judge(request, options);
          return {
            ...response,
            verdicts: response.verdicts.map(
              (v): Verdict =>
                verdictKeyString(v.key) === failing
                  ? { ok: false, key: v.key, error: { name: "JudgeError", message: "timed out" } }
                  : v,
            ),
          };
        },
      };
      const evaluated = await evaluatePersonas({
        transcript: `${ENSEMBLE}transcript.json`,
        propositions: `${ENSEMBLE}propositions`,
        judge,
        store: other,
        trials: 2,
      });
      const runs = new Map(
        (await other.scores.forEvaluation(evaluated.evaluation_id)).map((r) => [
          r.verdict_key,
          r.evaluation_run_id,
        ]),
      );
      await other.scores.write(
        items.flatMap((item) =>
          [1, 2].flatMap((trial) => {
            const key = labelItemKey(item, trial);
            const target = roundedMean(item);
            // r − 1 and r average to r − ½, which rounds half up to r; an errored trial leaves r alone.
            const raw = trial === 1 ? Math.max(0, target - 1) : target;
            if (verdictKeyString(key) === failing) return [];
            return [
              {
                ...key,
                evaluation_id: evaluated.evaluation_id,
                evaluation_run_id: runs.get(verdictKeyString(key)) ?? null,
                status: "ok" as const,
                raw_score: raw,
                score: item.inverted ? 9 - raw : raw,
                inverted: item.inverted,
                reasoning: `trial ${trial}`,
              },
            ];
          }),
        ),
      );
      const stored = await other.scores.forEvaluation(evaluated.evaluation_id);
      const errored = stored.filter((r) => r.status === "errored");
      expect(errored.map((r) => r.verdict_key)).toEqual([failing]);
      const result = await calibrateStoredRun({
        store: other,
        id: evaluated.evaluation_id,
        labels: LABELS,
        resamples: 0,
      });
      expect(result.judge_trials).toBe(2);
      expect(result.overall.n_judged).toBe(items.length);
      expect(result.overall.exact).toBe(1);
      expect(result.overall.kappa_quadratic).toBe(1);
    } finally {
      await other.close();
    }
  });

  it("the same store, labels and options give the same bytes", async () => {
    const a = JSON.stringify(await calibrate());
    const b = JSON.stringify(await calibrate());
    expect(a).toBe(b);
  });

  it("labels that name a proposition the run does not know are an InputError naming file and line", async () => {
    const set = readLabels(LABELS);
    set.labels[3] = { ...set.labels[3]!, proposition_id: "no-such-claim" };
    const error = await calibrateStoredRun({ store, id: evaluationId, labels: set, resamples: 0 }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).name).toBe("InputError");
    expect(String((error as Error).message)).toMatch(/no-such-claim/);
    const { file, line } = set.labels[3]!.source;
    expect((error as Error).message.startsWith(`${file}:${line}: `)).toBe(true);
  });
});
