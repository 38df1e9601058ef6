// The whole calibration pipeline on labels no test was written against: the ensemble evaluated with the
// generated fixture judge (two trials, errored items, three messages left unjudged), calibrateStoredRun over
// the generated labels (CSV, and the same shuffled as JSONL), and every figure per proposition, per dimension,
// overall and the raters' (point and CI) against what scripts/calibration-check.py computed from the same
// files with SciPy and NumPy (test/fixtures/calibration/unseen/reference.json), to 1e-9.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CalibrationResult,
  calibrateStoredRun,
  labelItemKey,
  labelItems,
  readLabels,
} from "../../src/calibration/index.ts";
import { verdictKeyString } from "../../src/core/index.ts";
import { openStore, type Store } from "../../src/engine/index.ts";
import { createJudge } from "../../src/judge/index.ts";
import { evaluatePersonas, parseStoredPersonaInput } from "../../src/personas/index.ts";

const ENSEMBLE = fileURLToPath(new URL("../../examples/ensemble/", import.meta.url));
const UNSEEN = fileURLToPath(new URL("../fixtures/calibration/unseen/", import.meta.url));
const CSV = `${UNSEEN}labels.csv`;
const JSONL = `${UNSEEN}labels.jsonl`;

interface Reference {
  settings: {
    trials: number;
    minimum: number;
    min_kappa: number;
    resamples: number;
    seed: number;
    messages: string[];
  };
  overall: { n: number; n_judged: number; raters?: never };
  raters: { items: number };
  propositions: { n: number; pearson: number | null; ci: Record<string, unknown> }[];
  not_judged: number;
  judge_trials: number;
}
const REFERENCE: Reference = JSON.parse(readFileSync(`${UNSEEN}reference.json`, "utf8"));
/** The figures of the reference that the calibration document holds under the same names. */
const FIGURES = [
  "judge_trials",
  "minimum",
  "minimum_kappa",
  "overall",
  "dimensions",
  "propositions",
  "raters",
  "not_judged",
  "not_judged_items",
] as const;
const TOLERANCE = 1e-9;

const IDENTITY = ["dimension", "proposition_id", "agent_id", "message_id", "channel"] as const;

/** How a group or item is named in a list (matched by name, not position), as calibration-check.py does. */
function identity(entry: unknown): string | undefined {
  if (typeof entry !== "object" || entry === null || !("dimension" in entry)) return undefined;
  const record = entry as Record<string, unknown>;
  return IDENTITY.filter((k) => k in record)
    .map((k) => String(record[k]))
    .join("/");
}

/**
 * Every figure of `expected` that `actual` lacks or holds differently: numbers to 1e-9, a null only for a
 * null, lists of groups matched by name (a group on one side only is a difference), other lists by position.
 */
function differences(expected: unknown, actual: unknown, path = "", out: string[] = []): string[] {
  const differ = () =>
    out.push(`${path}: reference ${JSON.stringify(expected)}, pipeline ${JSON.stringify(actual)}`);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) differ();
    else if (expected.length > 0 && identity(expected[0]) !== undefined) {
      const byName = new Map(actual.map((a) => [identity(a), a]));
      for (const e of expected) differences(e, byName.get(identity(e)), `${path}[${identity(e)}]`, out);
      const named = new Set(expected.map(identity));
      for (const name of byName.keys())
        if (!named.has(name)) out.push(`${path}[${name}]: not in the reference, in the pipeline's`);
    } else if (expected.length !== actual.length) differ();
    else for (const [i, e] of expected.entries()) differences(e, actual[i], `${path}[${i}]`, out);
  } else if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null) differ();
    else
      for (const [key, value] of Object.entries(expected))
        differences(value, (actual as Record<string, unknown>)[key], path ? `${path}.${key}` : key, out);
  } else if (typeof expected === "number") {
    if (typeof actual !== "number" || !(Math.abs(expected - actual) <= TOLERANCE)) differ();
  } else if (expected !== actual) differ();
  return out;
}

const differencesFromReference = (result: CalibrationResult) =>
  FIGURES.flatMap((name) => differences(REFERENCE[name as keyof Reference], result[name], name));

let store: Store;
let evaluationId: string;

beforeAll(async () => {
  store = await openStore("memory://");
  const evaluated = await evaluatePersonas({
    transcript: `${ENSEMBLE}transcript.json`,
    propositions: `${ENSEMBLE}propositions`,
    judge: createJudge(`fixtures:${UNSEEN}verdicts.json`),
    store,
    trials: REFERENCE.settings.trials,
    messages: REFERENCE.settings.messages,
  });
  evaluationId = evaluated.evaluation_id;
}, 60_000);

afterAll(() => store.close());

const calibrate = (labels: Parameters<typeof calibrateStoredRun>[0]["labels"], on: Store = store) =>
  calibrateStoredRun({
    store: on,
    id: evaluationId,
    labels,
    minimum: REFERENCE.settings.minimum,
    minKappa: REFERENCE.settings.min_kappa,
    resamples: REFERENCE.settings.resamples,
    seed: REFERENCE.settings.seed,
  });

describe("calibration of labels no test was written against", () => {
  it("the fixture holds what the formulas must handle: errored, unjudged, single-rater and unnamed labels", () => {
    const labels = readLabels([CSV]).labels;
    expect(REFERENCE.judge_trials).toBe(2);
    expect(REFERENCE.not_judged).toBeGreaterThan(0);
    expect(REFERENCE.overall.n_judged).toBeLessThan(REFERENCE.overall.n);
    expect(REFERENCE.raters.items).toBeLessThan(REFERENCE.overall.n);
    expect(new Set(labels.map((l) => l.rater)).size).toBe(4);
    expect(labels.some((l) => l.rater === undefined)).toBe(true);
    expect(labels.filter((l) => l.verdict !== undefined).length).toBeGreaterThanOrEqual(2);
    expect(REFERENCE.propositions.some((p) => p.pearson === null)).toBe(true);
    expect(REFERENCE.propositions.every((p) => Object.keys(p.ci).length === 9)).toBe(true);
  });

  it("from the CSV: every figure and interval equals the independent computation to 1e-9", async () => {
    expect(differencesFromReference(await calibrate([CSV]))).toEqual([]);
  });

  it("from the JSONL (the same labels shuffled): the same figures", async () => {
    expect(differencesFromReference(await calibrate([JSONL]))).toEqual([]);
  });

  it("one label changed is caught", async () => {
    const set = readLabels([CSV]);
    const judged = new Set(REFERENCE.settings.messages);
    const index = set.labels.findIndex((l) => judged.has(l.message_id ?? "") && l.score !== undefined);
    const label = set.labels[index]!;
    set.labels[index] = { ...label, score: (label.score! + 5) % 10 };
    const found = differencesFromReference(await calibrate(set));
    expect(found.length).toBeGreaterThan(0);
    expect(found.some((d) => d.startsWith(`propositions[${label.dimension}/${label.proposition_id}]`))).toBe(
      true,
    );
  });

  it("one verdict changed is caught", async () => {
    const kept = parseStoredPersonaInput(await store.evaluations.input(evaluationId))!;
    const stored = await store.scores.forEvaluation(evaluationId);
    const scored = new Set(stored.filter((r) => r.raw_score !== null).map((r) => r.verdict_key));
    const item = labelItems(readLabels([CSV]), kept).find((i) =>
      scored.has(verdictKeyString(labelItemKey(i))),
    )!;
    const keys = new Set([1, 2].map((trial) => verdictKeyString(labelItemKey(item, trial))));
    const rows = stored.map((row) =>
      keys.has(row.verdict_key) && row.raw_score !== null
        ? { ...row, raw_score: (row.raw_score + 5) % 10 }
        : row,
    );
    const changed = new Proxy(store, {
      get: (target, name) =>
        name === "scores" ? { forEvaluation: async () => rows } : Reflect.get(target, name),
    });
    const found = differencesFromReference(await calibrate([CSV], changed));
    expect(found.some((d) => d.startsWith(`propositions[${item.dimension}/${item.proposition_id}]`))).toBe(
      true,
    );
  });
});
