// The one persona evaluation behind eval, baseline, ci and record: settings and sources from the flags and
// the project file, every input of a file source read and validated before the store is opened (a file that
// is not a transcript imported as sessions first), then the library judges, stores and returns the result with
// the stored runs the harness reads hashes from.
import { resolve } from "node:path";
import { InputError, parseJudgeSpec, parseStoreLocation, type Transcript } from "../core/index.ts";
import {
  cachedShare,
  type EvalResult,
  openPersonaEvaluation,
  type PersonaInputOptions,
  type PreparedPersonaEvaluation,
  planFor,
  preparePersonaEvaluation,
  runPreparedPersonaEvaluation,
} from "../personas/index.ts";
import type { LoadedPropositions } from "../propositions/index.ts";
import { openStore, type RunRow, type Store, storeExists } from "../store/index.ts";
import { printDryRun } from "./dry-run.ts";
import type { EvalFlags } from "./evaluation-options.ts";
import { withInterrupts } from "./interrupts.ts";
import { rateLimitSettingsOf } from "./judge-rate-limit.ts";
import { describeLiveJudge, requireJudgeSpec } from "./judge-setup.ts";
import { progressBar } from "./progress.ts";
import { resolveSettings, type Settings } from "./settings.ts";
import { warnOfUnmarkedSenders } from "./unmarked-senders.ts";

function isoFlag(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t))
    throw new InputError("expected an ISO 8601 date or time such as 2026-03-01T00:00:00Z", { place: flag });
  return new Date(t).toISOString();
}

/** Resolves settings and the run configuration; reads nothing but the project file. */
export function prepareEvaluation(sources: string[], flags: EvalFlags) {
  const agents = flags.agent ? (flags.agents ? `${flags.agents},${flags.agent}` : flags.agent) : flags.agents;
  const resolved = resolveSettings({
    flags: { ...flags, agents, sources },
    projectFile: flags.config,
  });
  const settings = resolved.settings;
  const windowStart = isoFlag(flags.windowStart, "--window-start");
  const windowEnd = isoFlag(flags.windowEnd, "--window-end");
  const fromStore = flags.fromStore === true || (sources.length === 0 && settings.sources.includes("store"));
  const files = settings.sources.filter((s) => s !== "store");
  if (!fromStore && files.length === 0 && flags.synthetic === undefined)
    throw new InputError(
      "no transcript given; pass a transcript file, --from-store, or list sources in dramaturg.yaml (dramaturg init)",
    );
  if (flags.from !== undefined && (fromStore || files.length === 0))
    throw new InputError("--from says how to read files; give the files to read", { place: "--from" });
  return { resolved, settings, windowStart, windowEnd, fromStore, files, from: flags.from };
}

export interface EvaluationSetup extends ReturnType<typeof prepareEvaluation> {
  /** Draw a progress bar (when stderr is a terminal). */
  progress: boolean;
}

export interface EvaluateOptions {
  /** Mark the runs as baselines. */
  baseline?: boolean;
  /** Write the verdicts as judge fixtures here. */
  record?: string;
  /**
   * Checks the transcript (before the store is opened, for a file source) and returns the agents to
   * evaluate, or undefined for the settings' agents. Throwing here writes nothing.
   */
  selectAgents?: (transcript: Transcript) => string[] | undefined;
  /** Print what the evaluation would cost and return undefined: no judge call, nothing written. */
  dryRun?: { format?: string };
  /** Evaluate this transcript (synthetic mode's) instead of the setup's files or store. */
  transcript?: Transcript;
  /**
   * Called with the store and the result before the store is closed: what needs the stored verdicts after
   * the run (the HTML report) reads them here, since a `memory://` store keeps nothing past this.
   */
  beforeClose?: (store: Store, outcome: EvaluationOutcome) => Promise<void>;
}

export interface EvaluationOutcome {
  result: EvalResult;
  settings: Settings;
  transcript: Transcript;
  propositions: LoadedPropositions;
  /** The stored run rows (persona and propositions hashes, baseline marks). */
  runs: RunRow[];
}

/** Settings and sources for eval, baseline, ci and record; reads only the project file. */
export function setupEvaluation(sources: string[], flags: EvalFlags): EvaluationSetup {
  return { ...prepareEvaluation(sources, flags), progress: flags.progress !== false };
}

/** The library's judge settings from the CLI's. */
export function judgeSettingsOf(settings: Settings) {
  return {
    baseUrl: settings.judge.base_url,
    apiKeyEnv: settings.judge.api_key_env,
    temperature: settings.judge.temperature,
    concurrency: settings.judge.concurrency,
    retries: settings.judge.retries,
    timeoutMs: settings.judge.timeout_ms,
    ...rateLimitSettingsOf(settings),
  };
}

/**
 * The library's input of a persona evaluation from the CLI's settings and sources: a transcript given, or the
 * files (those that are not transcripts imported here, named by their paths as the files would be), or the store.
 */
async function personaInput(setup: EvaluationSetup, given: Transcript | undefined) {
  const { settings, fromStore, files, windowStart, windowEnd } = setup;
  const judgeSpec = requireJudgeSpec(settings);
  // The files read once: globs expanded, each told apart, a file read whole to tell kept as read.
  const read =
    given || fromStore || files.length === 0
      ? undefined
      : await (await import("./transcript-sources.ts")).readTranscriptSources(files, { from: setup.from });
  const transcript = given ?? read?.transcript;
  const input: PersonaInputOptions & { judgeSpec: string; judgeBaseUrl?: string } = {
    transcript: transcript ?? (fromStore ? { store: true } : (read?.files ?? files)),
    ...(read?.transcript ? { source: read.files.map((f) => resolve(f)).join(",") } : {}),
    propositions: settings.propositions,
    dimensions: settings.dimensions,
    agents: settings.agents,
    mode: settings.judge.mode,
    trials: settings.trials,
    sample: settings.sample,
    window: { start: windowStart, end: windowEnd },
    judgeSpec,
    judgeBaseUrl: settings.judge.base_url,
  };
  return { input, judgeSpec };
}

/**
 * `eval --queue`: the evaluation prepared and stored as in-process (bad input writes nothing), its judge
 * calls queued for `dramaturg worker`s; then followed until it completes (its result), or with `detach`
 * left to them (no result). Only a PostgreSQL store can be shared with workers.
 */
export async function evaluateQueued(
  setup: EvaluationSetup,
  { detach = false }: { detach?: boolean } = {},
): Promise<{ evaluationId: string; result?: EvalResult }> {
  const { settings } = setup;
  if (parseStoreLocation(settings.db).kind !== "postgres")
    throw new InputError(
      "--queue needs a PostgreSQL store that workers can reach: pass --db postgres://… (this store is local to this process)",
      { place: "--queue" },
    );
  const { input, judgeSpec } = await personaInput(setup, undefined);
  const { checkQueueSettings, followTellingOfNoWorker } = await import("./queued-wait.ts");
  await checkQueueSettings();
  const [{ enqueuePersonaEvaluation, followEvaluation, PERSONA_CHUNKS }, opened] = await Promise.all([
    import("../queue/index.ts"),
    openPersonaEvaluation(input, {
      judge: judgeSpec,
      judgeSettings: judgeSettingsOf(settings),
      store: settings.db,
    }),
  ]);
  warnOfUnmarkedSenders(opened.prepared.transcript);
  try {
    const store = await opened.store;
    const { evaluationId, jobs } = await enqueuePersonaEvaluation(opened.prepared, {
      store,
      connectionString: settings.db,
      judge: opened.judge.judge.descriptor,
    });
    if (detach) return { evaluationId };
    process.stderr.write(`queued evaluation ${evaluationId} as ${jobs} jobs; waiting for workers\n`);
    const waiting = { store, db: settings.db, queue: PERSONA_CHUNKS, id: evaluationId };
    const result = await followTellingOfNoWorker(
      { ...waiting, matching: [{ evaluation_id: evaluationId }], what: `evaluation ${evaluationId}` },
      () => followEvaluation<EvalResult>(store, evaluationId),
    );
    return { evaluationId, result };
  } finally {
    await opened.close();
  }
}

/**
 * The evaluation behind eval, baseline, ci and record. Every input of a file source (transcript,
 * propositions, the plan) is read and validated before the store is opened, so bad input writes
 * nothing; then the library judges, stores and returns the result, returned here with the stored runs.
 */
export async function evaluate(
  setup: EvaluationSetup,
  options: EvaluateOptions = {},
): Promise<EvaluationOutcome | undefined> {
  const { settings, fromStore } = setup;
  const { input, judgeSpec } = await personaInput(setup, options.transcript);
  // The caller may narrow the agents once it has seen the transcript (ci: the agents with baselines).
  const adjust = (prepared: PreparedPersonaEvaluation): PreparedPersonaEvaluation => {
    warnOfUnmarkedSenders(prepared.transcript);
    const agents = options.selectAgents?.(prepared.transcript);
    if (!agents) return prepared;
    const config = { ...prepared.config, agents };
    return { ...prepared, config, plan: planFor({ ...prepared, config }) };
  };
  if (options.dryRun) {
    // No judge is built: a dry run needs neither an API key nor a reachable model, and it never
    // creates a store (it reads one only if it exists: stored messages, the verdict cache).
    const live = parseJudgeSpec(judgeSpec).kind === "model";
    const descriptor = describeLiveJudge(settings);
    const wantCache = descriptor !== undefined && settings.cache;
    const store =
      (fromStore || wantCache) && storeExists(settings.db)
        ? await openStore(settings.db, { migrate: false })
        : undefined;
    try {
      if (fromStore && !store) throw new InputError("no store to read messages from", { place: settings.db });
      const prepared = adjust(await preparePersonaEvaluation(input, store));
      // What the verdict cache would already answer is left out of the estimate.
      const share =
        store && wantCache && descriptor
          ? await cachedShare(prepared.plan, {
              descriptor,
              backend: store.verdictCache,
              mode: settings.judge.mode,
            })
          : undefined;
      printDryRun(prepared.plan, {
        settings,
        live,
        judgeName: settings.judge.model,
        format: options.dryRun.format,
        skip: share?.skip,
        cached: share?.cached,
      });
      return undefined;
    } finally {
      await store?.close();
    }
  }
  const opened = await openPersonaEvaluation(input, {
    judge: judgeSpec,
    judgeSettings: judgeSettingsOf(settings),
    store: settings.db,
    adjust,
  });
  const { prepared, store } = opened;
  // The evaluation exists in the store once the run has started (it may judge while the store opens).
  let started!: () => void;
  const resumable = new Promise<void>((resolve) => {
    started = resolve;
  });
  const bar = progressBar("judging", setup.progress);
  try {
    const result = await withInterrupts(
      (signal) =>
        runPreparedPersonaEvaluation(prepared, {
          judge: opened.judge.judge,
          judgeSettings: judgeSettingsOf(settings),
          store,
          fresh: opened.fresh,
          cache: settings.cache,
          concurrency: settings.judge.concurrency,
          onProgress: (event) => {
            if (event.type === "started") started();
            bar(event);
          },
          record: options.record,
          baseline: options.baseline,
          signal,
        }),
      { resumable },
    );
    const runs: RunRow[] = [];
    const stored = await store;
    for (const r of result.runs) {
      const row = await stored.runs.get(r.run_id);
      if (row) runs.push(row);
    }
    const outcome = {
      result,
      settings,
      transcript: prepared.transcript,
      propositions: prepared.propositions,
      runs,
    };
    await options.beforeClose?.(stored, outcome);
    return outcome;
  } finally {
    await opened.close();
  }
}

/** One evaluation for the harness commands (baseline, ci, record), with the stored runs the harness reads hashes from. */
export async function measure(
  setup: EvaluationSetup,
  options: Omit<EvaluateOptions, "dryRun"> = {},
): Promise<EvaluationOutcome> {
  // Without a dry run, evaluate() always returns an outcome.
  return (await evaluate(setup, options))!;
}
