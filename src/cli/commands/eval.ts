// `dramaturg eval`: evaluate personas in a transcript (or stored messages) and print the scores.
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { InputError, parseJudgeSpec, type Transcript, verdictKeyString } from "../../core/index.ts";
import { type Judge, peekVerdictCache } from "../../judge/index.ts";
import { type LoadedPropositions, loadPropositions } from "../../propositions/index.ts";
import { type EvalResult, renderMarkdown, renderTable } from "../../scorers/index.ts";
import { openStore, type RunRow, storeExists } from "../../store/index.ts";
import { printDryRun } from "../dry-run.ts";
import { createJudge, describeLiveJudge, requireJudgeSpec, withVerdictCache } from "../judge-setup.ts";
import { type PersonaRunConfig, planFor, runPersonaEvaluation } from "../persona-run.ts";
import { createProgress } from "../progress.ts";
import { resumeEvaluation } from "../resume.ts";
import { type FlagSettings, resolveSettings, type Settings } from "../settings.ts";
import { loadTranscripts, transcriptFromStore, transcriptHash } from "../sources.ts";

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
}

/** Options shared by eval, baseline and ci. */
export function addEvaluationOptions(command: Command): Command {
  return command
    .option(
      "--propositions <dir>",
      "propositions folder (one subfolder per dimension: _default.yaml, <agent_id>.yaml); a dimension with no _default.yaml (or no subfolder) starts from the built-in set, agent files merged on top; without a folder, the built-in sets",
    )
    .option(
      "--dimensions <list>",
      "comma-separated: adherence,consistency,fluency,convergence,ideas_quantity",
    )
    .option("--agents <list>", "comma-separated agent ids (default: every agent with messages)")
    .option("--agent <id>", "a single agent (same as --agents <id>)")
    .option("--judge <spec>", "openai:MODEL | anthropic:MODEL | openai-compatible:MODEL | fixtures:FILE")
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp)")
    .option(
      "--judge-api-key-env <var>",
      "environment variable holding the judge's API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)",
    )
    .option("--mode <mode>", "individual (one proposition per call) or batch (up to 10 per call)")
    .option("--concurrency <n>", "judge calls in flight at once")
    .option("--timeout <ms>", "per-call timeout in milliseconds")
    .option("--temperature <t>", "judge sampling temperature")
    .option("--retries <n>", "retries per judge call (429, 5xx, malformed answers)")
    .option("--trials <n>", "judge everything N times (N real judgements) and report the spread")
    .option("--sample <n>", "judge at most N messages per agent, picked with --seed")
    .option("--seed <n>", "seed of --sample")
    .option("--window-start <iso>", "only messages at or after this time")
    .option("--window-end <iso>", "only messages at or before this time")
    .option("--from-store", "evaluate the messages stored by `dramaturg import` instead of a file")
    .option("--db <location>", "store: a PGlite folder (default .dramaturg), memory://, or postgres://…")
    .option("--config <file>", "project file to use instead of searching for dramaturg.yaml")
    .option("--dry-run", "print the judge calls, tokens and cost this needs; judge nothing, write nothing")
    .option("--no-cache", "neither read nor write the verdict cache (live judges)")
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
  if (!fromStore && files.length === 0)
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

/**
 * The evaluation behind eval, baseline, ci and record. Every input of a file source (transcript,
 * propositions, the plan) is read and validated before the store is opened, so bad input writes
 * nothing; then it judges, stores and returns the result with the stored runs.
 */
export async function evaluate(
  setup: EvaluationSetup,
  options: EvaluateOptions = {},
): Promise<EvaluationOutcome | undefined> {
  const { settings, fromStore, files, windowStart, windowEnd } = setup;
  const fileTranscript = fromStore ? undefined : loadTranscripts(files).transcript;
  const early = fileTranscript ? await prepare(fileTranscript) : undefined;
  if (options.dryRun) {
    // No judge is built: a dry run needs neither an API key nor a reachable model, and it never
    // creates a store (it reads one only if it exists: stored messages, the verdict cache).
    const live = parseJudgeSpec(requireJudgeSpec(settings)).kind === "model";
    const descriptor = describeLiveJudge(settings);
    const wantCache = descriptor !== undefined && settings.cache;
    const store =
      (fromStore || wantCache) && storeExists(settings.db)
        ? await openStore(settings.db, { migrate: false })
        : undefined;
    try {
      if (fromStore && !store) throw new InputError("no store to read messages from", { place: settings.db });
      const prepared =
        early ?? (await prepare(await transcriptFromStore(store!, { from: windowStart, to: windowEnd })));
      // What the verdict cache would already answer is left out of the estimate.
      let cached: { requests: number; verdicts: number } | undefined;
      let skip: Set<string> | undefined;
      if (store && wantCache && descriptor) {
        const requests = prepared.plan.calls.map((c) => c.request);
        const peek = await peekVerdictCache({
          requests,
          descriptor,
          backend: store.verdictCache,
          mode: settings.judge.mode,
        });
        cached = { requests: peek.requests, verdicts: peek.verdicts };
        skip = new Set(
          requests.flatMap((r, k) =>
            peek.served[k] ? r.items.map((item) => verdictKeyString(item.key)) : [],
          ),
        );
      }
      printDryRun(prepared.plan, {
        settings,
        live,
        judgeName: settings.judge.model,
        format: options.dryRun.format,
        skip,
        cached,
      });
      return undefined;
    } finally {
      await store?.close();
    }
  }
  const setupJudge = createJudge(settings);
  let judge: Judge = setupJudge.judge;
  try {
    const store = await openStore(settings.db);
    try {
      const prepared =
        early ?? (await prepare(await transcriptFromStore(store, { from: windowStart, to: windowEnd })));
      // A live judge answers from the verdict cache what it has answered before (unless --no-cache).
      const cached = withVerdictCache(setupJudge, store.verdictCache, settings);
      judge = cached.judge;
      const result = await runPersonaEvaluation({
        ...prepared,
        judge,
        store,
        cache: cached.cache,
        concurrency: settings.judge.concurrency,
        progress: createProgress("judging", setup.progress && process.stderr.isTTY === true),
        record: options.record,
        baseline: options.baseline,
      });
      const runs: RunRow[] = [];
      for (const r of result.runs) {
        const row = await store.runs.get(r.run_id);
        if (row) runs.push(row);
      }
      return { result, settings, transcript: prepared.transcript, propositions: prepared.propositions, runs };
    } finally {
      await store.close();
    }
  } finally {
    await judge.close?.();
  }

  async function prepare(transcript: Transcript) {
    const agents = options.selectAgents?.(transcript) ?? settings.agents;
    const propositions = await loadPropositions({
      dir: settings.propositions,
      dimensions: settings.dimensions,
      agentIds: transcript.agents.map((a) => a.id),
    });
    const config: PersonaRunConfig = {
      source: fromStore ? "store" : files.join(","),
      propositions: settings.propositions,
      judge: settings.judge.model,
      judge_base_url: settings.judge.base_url,
      mode: settings.judge.mode,
      trials: settings.trials,
      dimensions: settings.dimensions,
      agents,
      sample: settings.sample,
      window_start: windowStart,
      window_end: windowEnd,
      transcript_hash: transcriptHash(transcript),
    };
    return { transcript, propositions, config, plan: planFor({ transcript, config, propositions }) };
  }
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
    const outcome = await resumeEvaluation(flags.resume === true ? undefined : flags.resume, flags);
    emit(outcome.result, format, flags.out);
    return exitCodeFor(outcome.result, outcome.settings);
  }
  const outcome = await evaluate(setupEvaluation(sources, flags), {
    record: flags.record,
    dryRun: flags.dryRun ? { format } : undefined,
  });
  if (!outcome) return 0;
  emit(outcome.result, format, flags.out);
  return exitCodeFor(outcome.result, outcome.settings);
}

export function emit(result: EvalResult, format: string, out?: string): void {
  const text =
    format === "json"
      ? `${JSON.stringify(result, null, 2)}\n`
      : format === "markdown"
        ? `${renderMarkdown(result)}\n`
        : `${renderTable(result)}\n`;
  if (out) {
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(text);
}

/** 3 when nothing could be judged; 1 when a minimum threshold failed; else 0. */
export function exitCodeFor(result: EvalResult, settings: Settings): number {
  if (result.totals.verdicts === 0 && result.totals.errored > 0) {
    process.stderr.write("dramaturg: every verdict errored; the evaluation could not complete\n");
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
