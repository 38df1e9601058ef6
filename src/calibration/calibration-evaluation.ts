// A calibration as a kind of the run engine: the labelled items judged afresh through the verdict cache
// (`--judge`), or a stored persona evaluation's verdicts read back (`--run`), compared with the labels, and
// the `dramaturg.calibration/v1` document kept with the evaluation, so that `show`, the dashboard and `ci`
// read it like any other.
import { InputError, PERSONA_DIMENSIONS, type Transcript } from "../core/index.ts";
import {
  type EvaluationOfKind,
  type JudgeOption,
  type JudgePlan,
  type JudgeSettings,
  loadStoredResult,
  openStore,
  type ProgressListener,
  prepareJudge,
  runEvaluation,
  type Store,
  scoreFromVerdict,
} from "../engine/index.ts";
import type { Judge, JudgeDescriptor } from "../judge/index.ts";
import {
  type ItemMeta,
  type PersonaInputOptions,
  preparePersonaEvaluation,
  type StoredPersonaInput,
} from "../personas/index.ts";
import type { LoadedPropositions } from "../propositions/index.ts";
import {
  CALIBRATION_FORMAT,
  type CalibrationResult,
  calibrationOf,
  isLabelSet,
  itemDescriber,
  storedPersonaEvaluation,
} from "./calibrate.ts";
import { type LabelItem, labelItems } from "./label-items.ts";
import { labelledPlan } from "./labelled-plan.ts";
import { selfPreferenceWarning } from "./model-family.ts";
import { measureOrderEffects, type OrderEffects } from "./order-effects.ts";
import { type LabelSet, readLabels } from "./read-labels.ts";

export interface CalibrateOptions {
  /** The human labels, read already, or the files to read. */
  labels: LabelSet | readonly string[];
  /** Where the calibration is kept (and `run` is found): an open Store or a location. Default `memory://`. */
  store?: Store | string;
  /**
   * A stored persona evaluation (its id, one of its runs', or 8+ first characters). Without `judge`, its
   * verdicts are compared with the labels (nothing is judged); with `judge`, its kept transcript and
   * propositions are what the labelled items are judged on.
   */
  run?: string;
  /** Without `run`: the transcript the labels are of (a file, files, or a parsed transcript). */
  transcript?: PersonaInputOptions["transcript"];
  /** Without `run`: the propositions folder, or propositions loaded. Default: the built-in sets. */
  propositions?: string | LoadedPropositions;
  /** Judge the labelled items afresh, through the store's verdict cache (live judges). */
  judge?: JudgeOption;
  judgeSettings?: JudgeSettings;
  /** `individual` (default) or `batch`: how the judge is asked, as in an evaluation. */
  mode?: "individual" | "batch";
  /** Judge each item N times; its score is the mean of its trials rounded half up. Default 1. */
  trials?: number;
  /** Judge calls in flight. Default 16. */
  concurrency?: number;
  /** Read and write the verdict cache for live judges. Default true. */
  cache?: boolean;
  /**
   * With `judge`: also judge the items individually, in batches and in shuffled batches, outside the verdict
   * cache (three more passes), and report how far batching and position move the scores.
   */
  orderEffects?: boolean;
  /** The configured minimum: with it, precision and recall of "fails" (a raw score below it). */
  minimum?: number;
  /** A proposition whose κ is below this is flagged. 0.6 by default. */
  minKappa?: number;
  /** Bootstrap resamples, 1,000 by default (0: no CI). */
  resamples?: number;
  /** Seed of the resampling, 1 by default. */
  seed?: number;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

/** What is compared and where it comes from, once the labels are read and checked. */
interface CalibrationSubject {
  set: LabelSet;
  items: LabelItem[];
  transcript: Transcript;
  propositions: LoadedPropositions;
  propositionsHash: string;
  /** The evaluation whose transcript (and, unjudged, verdicts) are used. */
  evaluationId: string | null;
  /** Its judge, for a calibration that reads its verdicts. */
  storedJudge: CalibrationResult["judge"];
  /** The persona plan narrowed to the labelled items (empty when nothing is judged). */
  plan: JudgePlan<ItemMeta>;
}

const EMPTY_PLAN: JudgePlan<ItemMeta> = { calls: () => [], trivial: () => [] };

/** The calibration's configuration, kept with it. */
interface CalibrationConfig {
  labels: string[];
  run: string | null;
  judge: string | null;
  judge_descriptor?: JudgeDescriptor;
  mode: "individual" | "batch";
  trials: number;
  min_kappa: number;
  minimum: number | null;
  resamples: number;
  seed: number;
}

/** A calibration for {@link runEvaluation}. */
export function calibrationEvaluation(
  subject: CalibrationSubject,
  config: CalibrationConfig,
  descriptor: JudgeDescriptor | undefined,
  orderEffects?: OrderEffects,
): EvaluationOfKind<ItemMeta, CalibrationResult> {
  const judge = descriptor ? { provider: descriptor.provider, model: descriptor.model } : subject.storedJudge;
  const agents = [...new Set(subject.items.flatMap((i) => (i.agent_id !== undefined ? [i.agent_id] : [])))];
  return {
    kind: "calibration",
    plan: subject.plan,
    describe: () => ({
      source: subject.set.files.join(","),
      config: { ...config, ...(descriptor ? { judge_descriptor: descriptor } : {}) },
      agents: agents.sort(),
      propositions_hash: subject.propositionsHash,
      input: { labels: subject.set.labels },
    }),
    // Nothing of its own besides the evaluation row: the verdicts are its scores.
    begin: async () => {},
    reopen: async () => {},
    fail: async () => {},
    interrupt: async () => {},
    scoreRow: (v, evaluationId) =>
      scoreFromVerdict(v.verdict, {
        evaluation_id: evaluationId,
        weight: v.meta.proposition.weight,
        inverted: v.meta.proposition.inverted,
        hard: v.meta.set.hard,
        context_snippet: v.meta.snippet,
      }),
    // A calibration is a few hundred items: its verdicts are read back from the store once all are in, in
    // the store's order, so that neither arrival order nor a resume changes the document.
    add: () => {},
    async finish({ store, evaluationId, totals }) {
      const rows = await store.scores.forEvaluation(
        descriptor ? evaluationId : (subject.evaluationId ?? evaluationId),
      );
      const warning = selfPreferenceWarning(judge, subject.transcript.agents);
      const result = calibrationOf({
        provenance: {
          evaluation_id: evaluationId,
          calibrated_evaluation: subject.evaluationId,
          judged: descriptor !== undefined,
          judge,
          propositions_hash: subject.propositionsHash,
          warnings: warning ? [warning] : [],
          token_usage: totals.token_usage,
        },
        files: subject.set.files,
        items: subject.items,
        propositions: subject.propositions,
        rows,
        describe: itemDescriber(subject.transcript),
        minimum: config.minimum ?? undefined,
        minKappa: config.min_kappa,
        resamples: config.resamples,
        seed: config.seed,
      });
      const errored = descriptor ? rows.filter((r) => r.status === "errored").length : 0;
      return { result: orderEffects ? { ...result, order_effects: orderEffects } : result, errored };
    },
  };
}

/** The labels checked against what they are of, and the plan of what is to be judged. */
async function subjectOf(
  /** Opens the store: only a stored evaluation needs it, so bad labels of a transcript touch nothing. */
  store: () => Promise<Store>,
  set: LabelSet,
  { run, transcript, propositions, judge, mode, trials }: CalibrateOptions,
): Promise<CalibrationSubject> {
  let kept: StoredPersonaInput;
  let evaluationId: string | null = null;
  let storedJudge: CalibrationResult["judge"] = null;
  if (run !== undefined) {
    if (transcript !== undefined)
      throw new InputError("give either a stored evaluation or a transcript, not both", {
        place: "transcript",
      });
    const stored = await storedPersonaEvaluation(await store(), run);
    ({ kept } = stored);
    evaluationId = stored.id;
    storedJudge = stored.judge;
  } else {
    if (transcript === undefined)
      throw new InputError("give the stored evaluation (--run) or the transcript the labels are of", {
        place: "--run",
      });
    if (judge === undefined)
      throw new InputError("a transcript has no verdicts of its own: give a judge (--judge) to judge it", {
        place: "--judge",
      });
    const dimensions = PERSONA_DIMENSIONS.filter((d) => set.labels.some((l) => l.dimension === d));
    const prepared = await preparePersonaEvaluation({
      transcript,
      propositions,
      dimensions: dimensions.length > 0 ? dimensions : undefined,
    });
    kept = { transcript: prepared.transcript, propositions: prepared.propositions };
  }
  const items = labelItems(set, kept);
  return {
    set,
    items,
    transcript: kept.transcript,
    propositions: kept.propositions,
    propositionsHash: kept.propositions.hash,
    evaluationId,
    storedJudge,
    plan: judge === undefined ? EMPTY_PLAN : labelledPlan(kept, items, { mode, trials }),
  };
}

/**
 * Calibrates a judge against human labels and keeps the calibration in the store (kind `calibration`):
 * either a stored persona evaluation's verdicts (`run`, no judge call), or the labelled items judged afresh
 * by `judge` (through the verdict cache) on a stored evaluation's transcript or on a transcript given here.
 * Bad labels (a score out of range, an unknown proposition, a message not in the transcript) throw an
 * InputError naming the file and line before anything is written.
 *
 * ```ts
 * import { calibrate } from "dramaturg";
 * const result = await calibrate({ store: ".dramaturg", labels: ["labels.csv"], run: "3f2a91c0" });
 * console.log(result.propositions.filter((p) => p.flagged));
 * ```
 */
export async function calibrate(options: CalibrateOptions): Promise<CalibrationResult> {
  const { minKappa = 0.6, resamples = 1_000, seed = 1, mode = "individual", trials = 1 } = options;
  if (!Number.isFinite(minKappa) || minKappa < -1 || minKappa > 1)
    throw new InputError(`expected a number from -1 to 1, got ${String(minKappa)}`, { place: "minKappa" });
  if (!Number.isInteger(trials) || trials < 1)
    throw new InputError("expected an integer of 1 or more", { place: "trials" });
  const set = isLabelSet(options.labels) ? options.labels : readLabels(options.labels);
  const where = options.store ?? "memory://";
  let opened: Store | undefined;
  const open = async () => (opened ??= typeof where === "string" ? await openStore(where) : where);
  try {
    const subject = await subjectOf(open, set, options);
    const store = await open();
    const config: CalibrationConfig = {
      labels: [...set.files],
      run: subject.evaluationId,
      judge: typeof options.judge === "string" ? options.judge : options.judge ? "library" : null,
      mode,
      trials,
      min_kappa: minKappa,
      minimum: options.minimum ?? null,
      resamples,
      seed,
    };
    if (options.judge === undefined) {
      if (options.orderEffects)
        throw new InputError("order effects are measured by judging: give a judge (--judge)", {
          place: "--order-effects",
        });
      const { result } = await runEvaluation({
        evaluation: calibrationEvaluation(subject, config, undefined),
        store,
        judge: NO_JUDGE,
      });
      return result;
    }
    let orderEffects: OrderEffects | undefined;
    if (options.orderEffects) {
      // The judge as is, without the cache: a cached verdict would not move with the batch or the order.
      const raw = prepareJudge(options.judge, options.judgeSettings, {
        cache: false,
        mode: "batch",
        concurrency: options.concurrency,
      });
      try {
        orderEffects = await measureOrderEffects({
          kept: { transcript: subject.transcript, propositions: subject.propositions },
          items: subject.items,
          judge: raw.judge,
          trials,
          seed,
          resamples,
          concurrency: options.concurrency,
          signal: options.signal,
        });
      } finally {
        await raw.close();
      }
    }
    const ready = prepareJudge(options.judge, options.judgeSettings, {
      store,
      cache: options.cache,
      isNew: false,
      mode,
      concurrency: options.concurrency,
    });
    try {
      const { result } = await runEvaluation({
        evaluation: calibrationEvaluation(subject, config, ready.judge.descriptor, orderEffects),
        store,
        judge: ready.judge,
        concurrency: options.concurrency,
        cache: ready.cache,
        onProgress: options.onProgress,
        signal: options.signal,
      });
      return result;
    } finally {
      await ready.close();
    }
  } finally {
    if (typeof where === "string") await opened?.close();
  }
}

/** The judge of a calibration that judges nothing: its plan is empty, so it is never asked. */
const NO_JUDGE = {
  descriptor: { provider: "none", model: "none", prompt_version: "none" },
  judge: () => Promise.reject(new Error("a calibration of stored verdicts judges nothing")),
} satisfies Judge;

/** A stored calibration's document, by id or its first 8+ characters (the latest without one). */
export function loadCalibration({ store, id }: { store: Store; id?: string }): Promise<CalibrationResult> {
  return loadStoredResult<CalibrationResult>(store, id, {
    kind: "calibration",
    format: CALIBRATION_FORMAT,
    noun: "calibration",
  });
}
