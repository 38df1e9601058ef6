// The library's persona evaluation: `evaluatePersonas({ transcript, judge })` reads and checks every
// input, runs the evaluation on the engine (judge, cache, store) and returns the result document.
import { resolve } from "node:path";
import {
  InputError,
  loadTranscripts,
  PERSONA_DIMENSIONS,
  type PersonaDimension,
  parseTranscriptValue,
  type Transcript,
  transcriptHash,
} from "../core/index.ts";
import {
  type EvaluationRow,
  findEvaluation,
  type JudgeOption,
  type JudgeSettings,
  openStore,
  openStoreEarly,
  type ProgressListener,
  prepareJudge,
  type ReadyJudge,
  runEvaluation,
  type Store,
  storeExists,
} from "../engine/index.ts";
import { type LoadedPropositions, loadPropositions } from "../propositions/index.ts";
import {
  type PersonaRunConfig,
  PersonaRunConfigSchema,
  parseStoredPersonaInput,
  personaEvaluation,
  planFor,
  transcriptFromStore,
} from "./persona-evaluation.ts";
import { EVAL_RESULT_FORMAT, type EvalResult } from "./result.ts";
import type { EvaluationPlan } from "./types.ts";

/** What to evaluate and how; everything but `transcript` and `judge` has a default. */
export interface PersonaInputOptions {
  /**
   * A transcript file (JSON or JSONL), several files or globs merged into one ensemble, a parsed
   * `dramaturg.transcript/v1` object, or `{ store: true }` for the messages stored by `dramaturg import`.
   */
  transcript: string | readonly string[] | Transcript | Record<string, unknown> | { store: true };
  /** A propositions folder (one subfolder per dimension), or propositions already loaded. Default: the built-in sets. */
  propositions?: string | LoadedPropositions;
  /** Default: all five (adherence, consistency, fluency, convergence, ideas_quantity). */
  dimensions?: readonly PersonaDimension[];
  /** Agent ids to evaluate. Default: every agent with messages. */
  agents?: readonly string[];
  /** `individual` (one proposition per judge call, the default) or `batch` (up to 10 per call). */
  mode?: "individual" | "batch";
  /** Judge everything N times (N real judgements); reports show the spread. Default 1. */
  trials?: number;
  /** Judge at most `size` messages per agent, picked with `seed`. */
  sample?: { size: number; seed?: number };
  /**
   * Judge only these messages (ids) of the agents' own; the rest of the transcript is still their context.
   * Online rules judge the messages they sampled this way.
   */
  messages?: readonly string[];
  /** Only messages within this time window (ISO 8601 strings or Dates). */
  window?: { start?: string | Date; end?: string | Date };
  /** How the source is named in the result and the store. Default: the file paths, or `transcript`. */
  source?: string;
}

export interface EvaluatePersonasOptions extends PersonaInputOptions {
  /** `"openai:gpt-4o-mini"`, `"anthropic:…"`, `"openai-compatible:MODEL"` (with `judgeSettings.baseUrl`), `"fixtures:FILE"`, an AI SDK model, or a Judge. */
  judge: JudgeOption;
  /**
   * Temperature, retries, timeout, base URL, key variable of a judge built from a spec or model. Its
   * `concurrency` is a limit of the judge's own, for when it must stay below the run's (a rate-limited
   * key): given, the calls in flight are the lower of the two; not given (the usual), `concurrency` below
   * is the one setting.
   */
  judgeSettings?: JudgeSettings;
  /** Where the evaluation is kept: an open Store, or a location (a folder, `memory://`, `postgres://…`). Default `memory://`. */
  store?: Store | string;
  /**
   * Judge calls in flight at once: the requests the run keeps under way and the model calls a judge built
   * from a spec or model makes at once (the CLI's `--concurrency` and the project file's `judge.concurrency`
   * are this setting). A Judge object passed ready-made keeps its own limit. Default 16.
   */
  concurrency?: number;
  /** Read and write the verdict cache for live judges. Default true. */
  cache?: boolean;
  /** Also write every verdict as judge fixtures to this file. */
  record?: string;
  /** Mark the runs as baselines. */
  baseline?: boolean;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

/** A persona evaluation read, checked and planned: nothing judged, nothing written. */
export interface PreparedPersonaEvaluation {
  transcript: Transcript;
  propositions: LoadedPropositions;
  config: PersonaRunConfig;
  plan: EvaluationPlan;
}

function isoOption(value: string | Date | undefined, place: string): string | undefined {
  if (value === undefined) return undefined;
  const t = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(t))
    throw new InputError("expected an ISO 8601 date or time such as 2026-03-01T00:00:00Z", { place });
  return new Date(t).toISOString();
}

function isStoreSource(value: unknown): value is { store: true } {
  return typeof value === "object" && value !== null && (value as { store?: unknown }).store === true;
}

/**
 * Reads the transcript and propositions, checks them and plans the judge calls. Bad input throws an
 * InputError naming the file and place; nothing is written. `store` is read only for `{ store: true }`.
 */
export async function preparePersonaEvaluation(
  options: PersonaInputOptions & { judgeSpec?: string; judgeBaseUrl?: string },
  store?: Store,
): Promise<PreparedPersonaEvaluation> {
  const window = {
    start: isoOption(options.window?.start, "window.start"),
    end: isoOption(options.window?.end, "window.end"),
  };
  let transcript: Transcript;
  let source: string;
  const input = options.transcript;
  if (isStoreSource(input)) {
    if (!store) throw new InputError("stored messages need a store to read them from", { place: "store" });
    transcript = await transcriptFromStore(store, { from: window.start, to: window.end });
    source = "store";
  } else if (typeof input === "string" || Array.isArray(input)) {
    const loaded = loadTranscripts(typeof input === "string" ? [input] : (input as readonly string[]));
    transcript = loaded.transcript;
    // Absolute, so that an older evaluation without a stored input can be resumed from elsewhere.
    source = loaded.files.map((f) => resolve(f)).join(",");
  } else {
    transcript = parseTranscriptValue(input, "transcript");
    source = "transcript";
  }
  const dimensions = [...(options.dimensions ?? PERSONA_DIMENSIONS)];
  const propositions =
    typeof options.propositions === "object"
      ? options.propositions
      : await loadPropositions({
          dir: options.propositions,
          dimensions,
          agentIds: transcript.agents.map((a) => a.id),
        });
  const trials = options.trials ?? 1;
  if (!Number.isInteger(trials) || trials < 1)
    throw new InputError("expected an integer of 1 or more", { place: "trials" });
  const config: PersonaRunConfig = {
    source: options.source ?? source,
    ...(typeof options.propositions === "string" ? { propositions: options.propositions } : {}),
    judge: options.judgeSpec ?? "library",
    ...(options.judgeBaseUrl ? { judge_base_url: options.judgeBaseUrl } : {}),
    mode: options.mode ?? "individual",
    trials,
    dimensions,
    ...(options.agents ? { agents: [...options.agents] } : {}),
    ...(options.sample ? { sample: { size: options.sample.size, seed: options.sample.seed ?? 0 } } : {}),
    ...(options.messages ? { messages: [...options.messages].sort() } : {}),
    ...(window.start ? { window_start: window.start } : {}),
    ...(window.end ? { window_end: window.end } : {}),
    transcript_hash: transcriptHash(transcript),
  };
  return { transcript, propositions, config, plan: planFor({ transcript, config, propositions }) };
}

/** Opens the store of the options (default `memory://`), unless it is open already; returns how to let go of it. */
async function useStore(
  store: Store | string | undefined,
): Promise<{ store: Store; release(): Promise<void> }> {
  if (typeof store === "object") return { store, release: async () => {} };
  const opened = await openStore(store ?? "memory://");
  return { store: opened, release: () => opened.close() };
}

/**
 * Evaluates the personas of a transcript and returns the `dramaturg.eval-result/v1` document: per agent
 * adherence, consistency, fluency (0–9, higher is better) with per-proposition scores and reasoning,
 * per channel voice divergence and ideas. Every input is read and checked before anything is judged.
 *
 * ```ts
 * import { evaluatePersonas } from "dramaturg";
 * const result = await evaluatePersonas({ transcript: "chat.json", judge: "openai:gpt-4o-mini" });
 * console.log(result.runs.map((r) => [r.name, r.overall_score]));
 * ```
 */
export async function evaluatePersonas(options: EvaluatePersonasOptions): Promise<EvalResult> {
  const opened = await openPersonaEvaluation(
    {
      ...options,
      judgeSpec: typeof options.judge === "string" ? options.judge : undefined,
      judgeBaseUrl: options.judgeSettings?.baseUrl,
    },
    options,
  );
  try {
    // The judge built there goes behind the store's verdict cache here, when it is live.
    return await runPreparedPersonaEvaluation(opened.prepared, {
      ...options,
      judge: opened.judge.judge,
      store: opened.store,
      fresh: opened.fresh,
    });
  } finally {
    await opened.close();
  }
}

/** A persona evaluation ready to run: its input checked and planned, its judge built, its store open or opening. */
export interface OpenedPersonaEvaluation {
  prepared: PreparedPersonaEvaluation;
  judge: ReadyJudge;
  /**
   * The store, or the promise of it while it still opens beside the run (memory://, an existing folder, with
   * the input read from a file): {@link runPreparedPersonaEvaluation} waits for it only where the verdict
   * cache or a resume needs it before the first judge call.
   */
  store: Store | Promise<Store>;
  /** The store is new (memory://, a folder not there before): its verdict cache is empty. */
  fresh: boolean;
  /** Closes the store when it was opened here, and the judge when it was built here. */
  close(): Promise<void>;
}

/**
 * Reads and checks the input, builds the judge, opens the store — in the order that keeps bad input from
 * writing anything: a new store (a folder that does not exist yet) is created only once the input and the
 * judge (fixtures file, API key) are known to be good; where opening writes nothing (memory://, an
 * existing folder) the store opens beside the reading and planning. `adjust` may change the plan once the
 * transcript is known (the CLI's ci narrows it to the agents with baselines).
 */
export async function openPersonaEvaluation(
  input: PersonaInputOptions & { judgeSpec?: string; judgeBaseUrl?: string },
  {
    judge,
    judgeSettings,
    concurrency,
    store: where,
    adjust = (prepared) => prepared,
  }: {
    judge: JudgeOption;
    judgeSettings?: JudgeSettings;
    /** The run's judge calls in flight, which the judge built here keeps too (see EvaluatePersonasOptions). */
    concurrency?: number;
    store?: Store | string;
    adjust?: (prepared: PreparedPersonaEvaluation) => PreparedPersonaEvaluation;
  },
): Promise<OpenedPersonaEvaluation> {
  const prepare = async (store?: Store) => adjust(await preparePersonaEvaluation(input, store));
  // Asked before anything opens it: opening a folder creates it.
  const fresh = typeof where !== "object" && !storeExists(where ?? "memory://");
  const opening = typeof where === "object" ? undefined : openStoreEarly(where ?? "memory://");
  let early: PreparedPersonaEvaluation | undefined;
  let ready: ReadyJudge;
  try {
    // Stored messages need the store; a file or an object is read before it.
    early = isStoreSource(input.transcript) ? undefined : await prepare();
    ready = prepareJudge(judge, judgeSettings, { concurrency });
  } catch (error) {
    await opening?.then((s) => s.close()).catch(() => {});
    throw error;
  }
  if (early && typeof where !== "object") {
    // The input and the judge are good: a new store (a folder not there yet, a server) may be created now,
    // and it opens beside the run like one opened early.
    const store = opening ?? openStore(where ?? "memory://");
    store.catch(() => {});
    const close = async () => {
      // A store that failed to open has nothing to close; the run reports the failure.
      await store.then(
        (s) => s.close(),
        () => {},
      );
      await ready.close();
    };
    return { prepared: early, judge: ready, store, fresh, close };
  }
  let used: { store: Store; release(): Promise<void> };
  try {
    used = opening
      ? { store: await opening, release: async () => (await opening).close() }
      : await useStore(where);
  } catch (error) {
    await ready.close();
    throw error;
  }
  const close = async () => {
    await used.release();
    await ready.close();
  };
  try {
    return {
      prepared: early ?? (await prepare(used.store)),
      judge: ready,
      store: used.store,
      fresh,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs a prepared persona evaluation (see {@link preparePersonaEvaluation}) on an open store. */
export async function runPreparedPersonaEvaluation(
  prepared: PreparedPersonaEvaluation,
  options: Omit<EvaluatePersonasOptions, keyof PersonaInputOptions | "store"> & {
    /**
     * The store, or the promise of one still opening: without a verdict cache (`cache: false`) a new
     * evaluation starts judging while it opens.
     */
    store: Store | Promise<Store>;
    /** The store is new, so its verdict cache is empty: the cache needs no open store (see openPersonaEvaluation). */
    fresh?: boolean;
    /** Continue this stored evaluation instead of starting one. */
    resume?: string;
  },
): Promise<EvalResult> {
  // A resume reads the store before the first call. A verdict cache does not hold the run back: a new
  // store's is empty, an existing store's lookups wait for it while the plan is drawn and its keys hashed.
  const store = options.resume ? await options.store : options.store;
  const ready = prepareJudge(options.judge, options.judgeSettings, {
    store: isOpen(store) ? store : undefined,
    opening: isOpen(store) ? undefined : store,
    isNew: options.fresh === true,
    cache: options.cache,
    mode: prepared.config.mode,
    concurrency: options.concurrency,
  });
  try {
    const { result } = await runEvaluation({
      evaluation: personaEvaluation({
        ...prepared,
        judge: ready.judge.descriptor,
        baseline: options.baseline,
      }),
      store,
      judge: ready.judge,
      concurrency: options.concurrency,
      resume: options.resume,
      cache: ready.cache,
      onProgress: options.onProgress,
      record: options.record,
      signal: options.signal,
    });
    return result;
  } finally {
    await ready.close();
  }
}

function isOpen(store: Store | Promise<Store>): store is Store {
  return typeof (store as { then?: unknown }).then !== "function";
}

export interface ResumePersonasOptions
  extends Omit<EvaluatePersonasOptions, keyof PersonaInputOptions | "judge" | "store"> {
  /** The store the evaluation is in. */
  store: Store | string;
  /** The evaluation (or one of its runs) to resume, by id or its first 8+ characters. Default: the latest unfinished one. */
  id?: string;
  /** The judge; default the spec the evaluation started with. */
  judge?: JudgeOption;
  /** Propositions to use instead of those stored with the evaluation (e.g. to give preconditions again); must hash the same. */
  propositions?: LoadedPropositions;
}

/**
 * Completes an interrupted persona evaluation in place, judging only the verdicts not yet stored. It
 * reads the transcript and propositions kept with the evaluation (older evaluations: their files).
 */
export async function resumePersonaEvaluation(options: ResumePersonasOptions): Promise<EvalResult> {
  const { store, release } = await useStore(options.store);
  try {
    const evaluation = await findEvaluation(store, options.id, { kind: "persona", place: "--resume" });
    if (evaluation.status === "completed")
      throw new InputError(
        `evaluation ${evaluation.id.slice(0, 8)} is already completed; nothing to resume`,
        {
          place: "--resume",
        },
      );
    const { prepared, config } = await storedPersonaEvaluation(store, evaluation, options.propositions);
    const judge = options.judge ?? config.judge;
    if (judge === "library")
      throw new InputError("this evaluation was started with a judge object; pass the judge to resume it", {
        place: "judge",
      });
    return await runPreparedPersonaEvaluation(prepared, {
      ...options,
      judge,
      judgeSettings: {
        ...options.judgeSettings,
        baseUrl: options.judgeSettings?.baseUrl ?? config.judge_base_url,
      },
      store,
      resume: evaluation.id,
    });
  } finally {
    await release();
  }
}

/**
 * A stored persona evaluation made ready to judge again: its configuration, the transcript and propositions
 * kept with it (older evaluations: their files), checked against its hashes, and its plan. What a resume and
 * a queue worker rebuild the evaluation from.
 */
export async function storedPersonaEvaluation(
  store: Store,
  evaluation: EvaluationRow,
  override?: LoadedPropositions,
): Promise<{ prepared: PreparedPersonaEvaluation; config: PersonaRunConfig }> {
  const parsed = PersonaRunConfigSchema.safeParse(evaluation.config);
  if (!parsed.success)
    throw new InputError(
      `evaluation ${evaluation.id} has no resumable configuration (stored by another version?)`,
    );
  const config = parsed.data;
  const kept = parseStoredPersonaInput(await store.evaluations.input(evaluation.id));
  const transcript =
    kept?.transcript ??
    (config.source === "store"
      ? await transcriptFromStore(store, { from: config.window_start, to: config.window_end })
      : loadTranscripts(config.source.split(",")).transcript);
  if (transcriptHash(transcript) !== config.transcript_hash)
    throw new InputError(
      "the transcript changed since this evaluation started; its stored verdicts no longer apply — run a new evaluation",
      { file: config.source },
    );
  const propositions =
    override ??
    kept?.propositions ??
    (await loadPropositions({
      dir: config.propositions,
      dimensions: config.dimensions,
      agentIds: transcript.agents.map((a) => a.id),
    }));
  if (evaluation.propositions_hash && propositions.hash !== evaluation.propositions_hash)
    throw new InputError("the propositions changed since this evaluation started — run a new evaluation", {
      file: config.propositions ?? "built-in propositions",
    });
  return {
    prepared: { transcript, propositions, config, plan: planFor({ transcript, config, propositions }) },
    config,
  };
}

/**
 * The result document of a stored persona evaluation, as it was when it completed: no judge call, no
 * input file needed. `id` is an evaluation or run id (or its first 8+ characters); default the latest.
 */
export async function loadEvalResult({
  store: where,
  id,
}: {
  store: Store | string;
  id?: string;
}): Promise<EvalResult> {
  const { store, release } = await useStore(where);
  try {
    const evaluation = await findEvaluation(store, id, { kind: "persona", pick: "latest", place: "id" });
    const short = evaluation.id.slice(0, 8);
    if (evaluation.status !== "completed")
      throw new InputError(
        `evaluation ${short} is ${evaluation.status}${evaluation.error ? ` (${evaluation.error})` : ""}; it has no result yet — complete it with \`dramaturg eval --resume ${short}\``,
      );
    const result = (await store.evaluations.result(evaluation.id)) as EvalResult | undefined;
    if (result?.format !== EVAL_RESULT_FORMAT)
      throw new InputError(
        `evaluation ${short} was stored without its result (by an older version); evaluate again`,
      );
    return result;
  } finally {
    await release();
  }
}
