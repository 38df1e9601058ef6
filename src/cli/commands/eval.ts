// `dramaturg eval`: flags and the project file in, one library evaluation, the scores out.
import { type Command, Option } from "commander";
import { formatErrorReasons, InputError, type Transcript } from "../../core/index.ts";
import { type EvalResult, resumePersonaEvaluation } from "../../personas/index.ts";
import { gateSummaryLine } from "../../sim/simulation-report.ts";
import { openStore, storeExists } from "../../store/index.ts";
import { addEvaluationOptions, type EvalFlags } from "../evaluation-options.ts";
import { emitEvalResult } from "../evaluation-report.ts";
import { setExitCode } from "../exit-code.ts";
import { wholeFlag } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { writeHtmlReport, writeHtmlReportFrom } from "../html-report.ts";
import { withInterrupts } from "../interrupts.ts";
import { requireJudgeSpec } from "../judge-setup.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { evaluate, evaluateQueued, judgeSettingsOf, setupEvaluation } from "../persona-evaluation.ts";
import { progressBar } from "../progress.ts";
import { resolveSettings, type Settings } from "../settings.ts";

/** Adds the `eval` command to the program. */
export function registerEvalCommand(program: Command): void {
  addEvaluationOptions(
    program
      .command("eval")
      .description("evaluate personas in transcripts (or stored messages) and print the scores")
      .argument(
        "[transcripts...]",
        "transcript files (JSON or JSONL, globs allowed), or trace and log files read as sessions (Langfuse, LangSmith, Inspect…: --from); default: the project's sources",
      ),
  )
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown", "html"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout (html: the report file)")
    .option(
      "--record <file>",
      "also write every verdict as judge fixtures (replay them with --judge fixtures:FILE)",
    )
    .option(
      "--resume [id]",
      "complete the last interrupted evaluation (or this evaluation or run id) in place",
    )
    .option(
      "--synthetic <world>",
      "synthetic mode: run this world (dramaturg.world/v1) with --model, then evaluate its transcript",
    )
    .option("--model <spec>", "with --synthetic: the agents' model (default: the world's model)")
    .option(
      "--model-base-url <url>",
      "with --synthetic: base URL of an OpenAI-compatible server for the agents",
    )
    .option("--model-api-key-env <var>", "with --synthetic: environment variable holding the agents' API key")
    .option("--steps <n>", "with --synthetic: steps to run (default: the world's)")
    .option(
      "--queue",
      "store the evaluation and queue its judge calls for `dramaturg worker`s (--db postgres://…)",
    )
    .option("--detach", "with --queue: print the evaluation's id and exit without waiting for it")
    .addHelpText(
      "after",
      examples(
        "dramaturg eval examples/ensemble/transcript.json --propositions examples/ensemble/propositions --judge fixtures:examples/ensemble/judge-fixtures.json",
        "OPENAI_API_KEY=… dramaturg eval chat.jsonl --judge openai:gpt-4o-mini --mode batch --record fixtures.json",
        "dramaturg eval --from-store --agent ines --window-start 2026-03-01 --sample 20 --seed 7 --format json",
        "dramaturg eval chat.jsonl --judge anthropic:claude-haiku-4-5 --dry-run",
        "dramaturg eval --resume",
        "dramaturg eval --synthetic examples/worlds/harbour.yml --model openai:gpt-4o-mini --judge openai:gpt-4o-mini",
      ),
    )
    .action(async (transcripts: string[], flags) => {
      setExitCode(await evalCommand(transcripts, flags));
    });
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
  checkOutputPaths({ "--out": flags.out, "--record": flags.record });
  const format = flags.format ?? "table";
  if (!["table", "json", "markdown", "html"].includes(format))
    throw new InputError("expected table, json, markdown or html", { place: "--format" });
  // The HTML report is read from the store: written while the run's store is still open, or reopened after
  // a resume or a queued run (whose stores outlive the command).
  const emit = async (result: EvalResult, settings: Settings, written = false) => {
    if (format !== "html") return emitEvalResult(result, format, { out: flags.out, settings });
    if (!written)
      await writeHtmlReportFrom(settings.db, {
        evaluationIds: [result.evaluation_id],
        out: flags.out,
        regressionThreshold: settings.thresholds.regression,
      });
    // With the report in a file, the log still gets the table.
    if (flags.out) emitEvalResult(result, "table", { settings });
  };
  if (flags.resume !== undefined) {
    if (sources.length)
      throw new InputError("--resume takes no transcript: it reads the one the evaluation used", {
        place: "--resume",
      });
    const outcome = await resumeCommand(flags.resume === true ? undefined : flags.resume, flags);
    await emit(outcome.result, outcome.settings);
    return exitCodeFor(outcome.result, outcome.settings);
  }
  const setup = setupEvaluation(sources, flags);
  if (flags.queue) {
    if (flags.resume !== undefined || flags.dryRun || flags.synthetic !== undefined || flags.record)
      throw new InputError("--queue takes neither --resume, --dry-run, --synthetic nor --record", {
        place: "--queue",
      });
    const queued = await evaluateQueued(setup, { detach: flags.detach });
    if (!queued.result) {
      process.stdout.write(`${queued.evaluationId}\n`);
      return 0;
    }
    await emit(queued.result, setup.settings);
    return exitCodeFor(queued.result, setup.settings);
  }
  if (flags.detach) throw new InputError("--detach goes with --queue", { place: "--detach" });
  const outcome = await evaluate(setup, {
    record: flags.record,
    dryRun: flags.dryRun ? { format: format === "html" ? "table" : format } : undefined,
    transcript: flags.synthetic === undefined ? undefined : await synthesize(sources, flags, setup.settings),
    beforeClose:
      format === "html"
        ? (store, { result }) =>
            writeHtmlReport(store, {
              evaluationIds: [result.evaluation_id],
              out: flags.out,
              regressionThreshold: setup.settings.thresholds.regression,
            })
        : undefined,
  });
  if (!outcome) return 0;
  await emit(outcome.result, outcome.settings, true);
  const code = exitCodeFor(outcome.result, outcome.settings);
  if (outcome.settings.export.length === 0) return code;
  const { exportAfterRun } = await import("../score-export.ts");
  const exported = await exportAfterRun(outcome.settings.export, {
    command: "eval",
    db: outcome.settings.db,
    evaluationIds: [outcome.result.evaluation_id],
  });
  return code || exported;
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
  const steps = wholeFlag(flags.steps, "--steps", 1);
  const [{ loadWorldFile }, corrections, { createJudge }] = await Promise.all([
    import("../../sim/index.ts"),
    import("../../corrections/index.ts"),
    import("../../judge/index.ts"),
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
