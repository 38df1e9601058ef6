// `session analyze`'s flags checked once (the judge's concurrency from the project's settings, as eval reads
// it), and its three ways to an analysis: queued for workers, an interrupted one resumed, or the files
// analysed here; Ctrl-C keeps what was judged, for `--resume`.
import { expandFilePatterns, InputError } from "../core/index.ts";
import type { JudgeSettings } from "../engine/index.ts";
import type { ExportRule } from "../export/index.ts";
import type { SessionsAnalysis } from "../sessions/index.ts";
import type { Store } from "../store/index.ts";
import { rateLimitSettingsOf } from "./judge-rate-limit.ts";
import { resolveSettings } from "./settings.ts";

export interface SessionFlags {
  from?: string;
  tools?: string;
  expect?: string;
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  concurrency?: string;
  cache: boolean;
  ccmThreshold: string;
  successReward?: string;
  db?: string;
  config?: string;
  resume?: string | boolean;
  queue?: boolean;
  detach?: boolean;
  progress?: boolean;
  format: string;
  out?: string;
}

/** The flags checked and resolved against the project's settings: nothing is read, opened or judged yet. */
export interface SessionAnalysisSetup {
  flags: SessionFlags;
  /** The session files, their patterns expanded (none for a resume). */
  files: string[];
  ccmThreshold: number;
  /** τ-bench records: the reward at which one succeeded (--success-reward); undefined: τ-bench's rule. */
  successReward?: number;
  /** Judge calls in flight at once: --concurrency, else the project's judge.concurrency. */
  concurrency: number;
  judgeSettings: JudgeSettings;
  db: string;
  /** The project's `export:` rules (dramaturg.yaml), applied when the analysis is stored. */
  exportRules: ExportRule[];
}

export function sessionAnalysisSetup(files: string[], flags: SessionFlags): SessionAnalysisSetup {
  const ccmThreshold = Number(flags.ccmThreshold);
  if (!(ccmThreshold >= 0 && ccmThreshold <= 1))
    throw new InputError(`--ccm-threshold must be a number from 0 to 1, got "${flags.ccmThreshold}"`);
  const successReward = flags.successReward === undefined ? undefined : Number(flags.successReward);
  if (successReward !== undefined && !Number.isFinite(successReward))
    throw new InputError(`--success-reward must be a number, got "${flags.successReward}"`, {
      place: "--success-reward",
    });
  const { settings } = resolveSettings({
    flags: { db: flags.db, concurrency: flags.concurrency },
    projectFile: flags.config,
  });
  const judgeSettings = {
    baseUrl: flags.judgeBaseUrl,
    apiKeyEnv: flags.judgeApiKeyEnv,
    ...rateLimitSettingsOf(settings),
  };
  if (flags.detach && !flags.queue) throw new InputError("--detach goes with --queue", { place: "--detach" });
  if (flags.queue && flags.resume !== undefined)
    throw new InputError("--queue starts a new analysis; a queued one is resumed by its workers", {
      place: "--queue",
    });
  if (flags.resume !== undefined && files.length > 0)
    throw new InputError("--resume continues a stored analysis; give no files with it");
  if (flags.resume === undefined && files.length === 0)
    throw new InputError(
      flags.queue ? "give the session files to analyse" : "give the session files to analyse (or --resume)",
    );
  return {
    flags,
    files: files.length === 0 ? [] : expandFilePatterns(files, { noun: "session file" }),
    ccmThreshold,
    successReward,
    concurrency: settings.judge.concurrency,
    judgeSettings,
    db: settings.db,
    exportRules: settings.export,
  };
}

/**
 * The analysis, by the way the flags ask for: its result (with the memory store kept open for an HTML
 * report), or, queued with --detach, only its id.
 */
export async function runSessionAnalysis(
  setup: SessionAnalysisSetup,
): Promise<{ result: SessionsAnalysis; kept?: Store } | { detached: string }> {
  const { flags, files, ccmThreshold, successReward, concurrency, judgeSettings, db } = setup;
  if (flags.queue) {
    const { analyzeQueued } = await import("./queued-session-analysis.ts");
    const queued = await analyzeQueued(files, {
      from: flags.from,
      tools: flags.tools,
      expect: flags.expect,
      successReward,
      judge: flags.judge,
      judgeSettings,
      db,
      ccmThreshold,
      detach: flags.detach === true,
    });
    return queued.result ? { result: queued.result } : { detached: queued.evaluationId };
  }
  const [sessions, { withInterrupts }, { progressBar }] = await Promise.all([
    import("../sessions/index.ts"),
    import("./interrupts.ts"),
    import("./progress.ts"),
  ]);
  const onProgress = progressBar(flags.resume ? "resuming" : "judging", flags.progress !== false);
  const resumeWith = "dramaturg session analyze --resume";
  if (flags.resume !== undefined) {
    const { openStore, storeExists } = await import("../store/index.ts");
    if (!storeExists(db)) throw new InputError("no store here to resume from", { place: db });
    const store = await openStore(db);
    try {
      const result = await withInterrupts(
        (signal) =>
          sessions.resumeSessionAnalysis({
            store,
            id: typeof flags.resume === "string" ? flags.resume : undefined,
            judge: flags.judge === "none" ? undefined : flags.judge,
            judgeSettings,
            concurrency,
            cache: flags.cache,
            onProgress,
            signal,
          }),
        { resumeWith },
      );
      return { result };
    } finally {
      await store.close();
    }
  }
  // The run exists in the store once it has started: until then a second Ctrl-C waits for it.
  let started!: () => void;
  const resumable = new Promise<void>((resolve) => {
    started = resolve;
  });
  const { storeKeptForReport } = await import("./html-report.ts");
  const kept = flags.format === "html" ? await storeKeptForReport(db) : undefined;
  const result = await withInterrupts(
    (signal) =>
      sessions.analyzeSession(files, {
        from: flags.from,
        tools: flags.tools,
        expect: flags.expect,
        successReward,
        judge: flags.judge,
        judgeSettings,
        store: kept ?? db,
        concurrency,
        cache: flags.cache,
        ccmThreshold,
        onProgress: (event) => {
          if (event.type === "started") started();
          onProgress(event);
        },
        signal,
      }),
    { resumable, resumeWith },
  );
  return { result, kept };
}

/** Writes an analysis in `format` to `out` or stdout (JSON: the library's document of it). */
export async function emitSessions(result: SessionsAnalysis, format: string, out?: string): Promise<void> {
  const sessions = await import("../sessions/index.ts");
  const text =
    format === "json"
      ? `${JSON.stringify(sessions.sessionsDocument(result), null, 2)}\n`
      : `${format === "markdown" ? sessions.renderSessionMarkdown(result) : sessions.renderSessionTable(result)}\n`;
  if (out) {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(text);
}
