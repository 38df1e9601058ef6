// `dramaturg eval`: flags and the project file in, one library evaluation, the scores out.
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import {
  formatErrorReasons,
  InputError,
  parseJudgeSpec,
  parseStoreLocation,
  shownPath,
  type Transcript,
} from "../../core/index.ts";
import type { LoadedPropositions } from "../../propositions/index.ts";
import {
  cachedShare,
  type EvalResult,
  openPersonaEvaluation,
  type PersonaInputOptions,
  type PreparedPersonaEvaluation,
  planFor,
  preparePersonaEvaluation,
  type RenderOptions,
  renderMarkdown,
  renderTable,
  resumePersonaEvaluation,
  runPreparedPersonaEvaluation,
} from "../../scorers/index.ts";
import { openStore, type RunRow, storeExists } from "../../store/index.ts";
import { printDryRun } from "../dry-run.ts";
import { withInterrupts } from "../interrupts.ts";
import { describeLiveJudge, requireJudgeSpec } from "../judge-setup.ts";
import { progressBar } from "../progress.ts";
import { DEFAULT_SETTINGS, type FlagSettings, resolveSettings, type Settings } from "../settings.ts";

export interface EvalFlags extends FlagSettings {
  format?: string;
  out?: string;
  record?: string;
  agent?: string;
  windowStart?: string;
  windowEnd?: string;
  fromStore?: boolean;
  progress?: boolean;
  config?: string;
  /** `true` for the last interrupted evaluation, or an evaluation or run id (or its first 8+ characters). */
  resume?: string | true;
  dryRun?: boolean;
  /** Synthetic mode: a world file to run, whose transcript is then evaluated. */
  synthetic?: string;
  /** The synthetic world's agents' model, its base URL and API key variable, and how many steps to run. */
  model?: string;
  modelBaseUrl?: string;
  modelApiKeyEnv?: string;
  steps?: string;
}

/** Options shared by eval, baseline and ci. */
export function addEvaluationOptions(command: Command): Command {
  // Defaults are shown, not set: a value commander filled in would look like a flag and override the project file.
  const d = DEFAULT_SETTINGS;
  return command
    .option(
      "--propositions <dir>",
      "propositions folder (one subfolder per dimension: _default.yaml, <agent_id>.yaml); a dimension with no _default.yaml (or no subfolder) starts from the built-in set, agent files merged on top; without a folder, the built-in sets",
    )
    .option(
      "--dimensions <list>",
      "comma-separated: adherence,consistency,fluency,convergence,ideas_quantity (default: all five)",
    )
    .option("--agents <list>", "comma-separated agent ids (default: every agent with messages)")
    .option("--agent <id>", "a single agent (same as --agents <id>)")
    .option("--judge <spec>", "openai:MODEL | anthropic:MODEL | openai-compatible:MODEL | fixtures:FILE")
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp)")
    .option(
      "--judge-api-key-env <var>",
      "environment variable holding the judge's API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)",
    )
    .option(
      "--mode <mode>",
      `individual (one proposition per call) or batch (up to 10 per call) (default: ${d.judge.mode})`,
    )
    .option("--concurrency <n>", `judge calls in flight at once (default: ${d.judge.concurrency})`)
    .option("--timeout <ms>", `per-call timeout in milliseconds (default: ${d.judge.timeout_ms})`)
    .option("--temperature <t>", `judge sampling temperature (default: ${d.judge.temperature})`)
    .option(
      "--retries <n>",
      `retries per judge call (429, 5xx, malformed answers) (default: ${d.judge.retries})`,
    )
    .option(
      "--trials <n>",
      `judge everything N times (N real judgements) and report the spread (default: ${d.trials})`,
    )
    .option("--sample <n>", "judge at most N messages per agent, picked with --seed (default: every message)")
    .option("--seed <n>", "seed of --sample (default: 0)")
    .option("--window-start <iso>", "only messages at or after this time")
    .option("--window-end <iso>", "only messages at or before this time")
    .option("--from-store", "evaluate the messages stored by `dramaturg import` instead of a file")
    .option("--db <location>", `store: a PGlite folder, memory://, or postgres://… (default: ${d.db})`)
    .option("--config <file>", "project file to use instead of searching for dramaturg.yaml")
    .option("--dry-run", "print the judge calls, tokens and cost this needs; judge nothing, write nothing")
    .option("--no-cache", "neither read nor write the verdict cache (live judges; default: cached)")
    .option("--no-progress", "no progress bar on stderr");
}

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
  return { resolved, settings, windowStart, windowEnd, fromStore, files };
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
  };
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
  const { settings, fromStore, files, windowStart, windowEnd } = setup;
  const judgeSpec = requireJudgeSpec(settings);
  const input: PersonaInputOptions & { judgeSpec: string; judgeBaseUrl?: string } = {
    transcript: options.transcript ?? (fromStore ? { store: true } : files),
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
  // The caller may narrow the agents once it has seen the transcript (ci: the agents with baselines).
  const adjust = (prepared: PreparedPersonaEvaluation): PreparedPersonaEvaluation => {
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
    return { result, settings, transcript: prepared.transcript, propositions: prepared.propositions, runs };
  } finally {
    await opened.close();
  }
}

/** `eval --resume [ID]`: the library's resume, with the judge's own settings (concurrency, timeout…) from the flags. */
async function resumeCommand(id: string | undefined, flags: EvalFlags) {
  const { settings } = resolveSettings({
    flags: {
      db: flags.db,
      judge: flags.judge,
      judgeBaseUrl: flags.judgeBaseUrl,
      judgeApiKeyEnv: flags.judgeApiKeyEnv,
      concurrency: flags.concurrency,
      timeout: flags.timeout,
      retries: flags.retries,
      cache: flags.cache,
    },
    projectFile: flags.config,
  });
  if (!storeExists(settings.db)) throw new InputError("no store here to resume from", { place: settings.db });
  const result = await withInterrupts((signal) =>
    resumePersonaEvaluation({
      store: settings.db,
      id,
      // The judge it started with, unless the user names another (e.g. the same model behind a new URL).
      judge: flags.judge !== undefined ? settings.judge.model : undefined,
      judgeSettings: judgeSettingsOf(settings),
      concurrency: settings.judge.concurrency,
      cache: settings.cache,
      record: flags.record,
      onProgress: progressBar("resuming", flags.progress !== false),
      signal,
    }),
  );
  return { result, settings };
}

export async function evalCommand(sources: string[], flags: EvalFlags): Promise<number> {
  const format = flags.format ?? "table";
  if (!["table", "json", "markdown"].includes(format))
    throw new InputError("expected table, json or markdown", { place: "--format" });
  if (flags.resume !== undefined) {
    if (sources.length)
      throw new InputError("--resume takes no transcript: it reads the one the evaluation used", {
        place: "--resume",
      });
    const outcome = await resumeCommand(flags.resume === true ? undefined : flags.resume, flags);
    emit(outcome.result, format, { out: flags.out, settings: outcome.settings });
    return exitCodeFor(outcome.result, outcome.settings);
  }
  const setup = setupEvaluation(sources, flags);
  const outcome = await evaluate(setup, {
    record: flags.record,
    dryRun: flags.dryRun ? { format } : undefined,
    transcript: flags.synthetic === undefined ? undefined : await synthesize(sources, flags, setup.settings),
  });
  if (!outcome) return 0;
  emit(outcome.result, format, { out: flags.out, settings: outcome.settings });
  return exitCodeFor(outcome.result, outcome.settings);
}

/**
 * Synthetic mode (`--synthetic WORLD`): runs the world with the agents' model, its interventions judged by
 * the evaluation's judge, and returns the transcript for the usual evaluation. Bad input fails before any call.
 */
async function synthesize(sources: string[], flags: EvalFlags, settings: Settings): Promise<Transcript> {
  if (sources.length > 0)
    throw new InputError("--synthetic generates its transcript: pass no transcript files", {
      place: "--synthetic",
    });
  if (flags.dryRun)
    throw new InputError("a synthetic transcript does not exist before it runs, so it cannot be estimated", {
      place: "--dry-run",
    });
  const steps = flags.steps === undefined ? undefined : Number(flags.steps);
  if (steps !== undefined && !(Number.isInteger(steps) && steps >= 1))
    throw new InputError(`expected a whole number of 1 or more, got "${flags.steps}"`, { place: "--steps" });
  const [{ loadWorldFile }, corrections, { createJudge }, { gateSummaryLine }] = await Promise.all([
    import("../../sim/index.ts"),
    import("../../corrections/index.ts"),
    import("../../judge/index.ts"),
    import("./simulate.ts"),
  ]);
  const loaded = loadWorldFile(flags.synthetic!);
  // An existing store's agent settings win; the gate's logs go to the store the evaluation then uses.
  let store = storeExists(settings.db) ? await openStore(settings.db) : undefined;
  try {
    const world = await corrections.resolveWorldCorrections(loaded, {
      store,
      project: settings.corrections,
    });
    const judge = corrections.worldJudgeNeed(world)
      ? createJudge(requireJudgeSpec(settings), judgeSettingsOf(settings))
      : undefined;
    const active = corrections.worldCorrectionsActive(world);
    if (active) store ??= await openStore(settings.db);
    const result = await corrections
      .simulateWithCorrections(world, {
        model: flags.model,
        modelSettings: { baseUrl: flags.modelBaseUrl, apiKeyEnv: flags.modelApiKeyEnv },
        judge,
        steps,
        store,
      })
      .finally(() => judge?.close?.());
    const { stats } = result;
    process.stderr.write(
      `simulated ${stats.steps} steps of ${flags.synthetic}: ${stats.messages} messages, ${stats.fired.length} interventions fired\n`,
    );
    if (active) process.stderr.write(`${gateSummaryLine(result.corrections, result.runId)}\n`);
    return result.transcript;
  } finally {
    await store?.close();
  }
}

/** Writes the result in `format` to `out` or stdout; the table and Markdown say what the numbers mean and where they are kept. */
export function emit(
  result: EvalResult,
  format: string,
  { out, settings }: { out?: string; settings?: Pick<Settings, "db" | "thresholds"> } = {},
): void {
  const options: RenderOptions = settings
    ? {
        minimum: settings.thresholds.minimum,
        stored: storedAt(settings.db),
      }
    : {};
  const text =
    format === "json"
      ? `${JSON.stringify(result, null, 2)}\n`
      : format === "markdown"
        ? `${renderMarkdown(result, options)}\n`
        : `${renderTable(result, options)}\n`;
  if (out) {
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(text);
}

/** A store location as the "stored as" line shows it: a folder relative to here, a URL without its password. */
function storedAt(db: string): { location: string; kept: boolean } {
  const location = parseStoreLocation(db);
  if (location.kind === "memory") return { location: "memory://", kept: false };
  return { location: location.kind === "folder" ? shownPath(location.path) : location.display, kept: true };
}

/** 3 when nothing could be judged; 1 when a minimum threshold failed; else 0. */
export function exitCodeFor(result: EvalResult, settings: Settings): number {
  if (result.totals.verdicts === 0 && result.totals.errored > 0) {
    const reasons = formatErrorReasons(result.totals.error_reasons ?? []);
    process.stderr.write(
      `dramaturg: every verdict errored; the evaluation could not complete\n${reasons.map((l) => `  ${l}\n`).join("")}`,
    );
    return 3;
  }
  let failed = false;
  for (const run of result.runs)
    for (const [dimension, minimum] of Object.entries(settings.thresholds.minimum)) {
      const score = run.dimensions[dimension as "adherence"]?.score;
      if (score !== null && score !== undefined && score < minimum!) {
        process.stderr.write(`threshold: ${run.name} ${dimension} ${score.toFixed(2)} < ${minimum}\n`);
        failed = true;
      }
    }
  return failed ? 1 : 0;
}
