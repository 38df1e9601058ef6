// The library's session analysis: `analyzeSession(input)` reads a session (any format an importer knows),
// validates its tools, and builds the analysis. The deterministic parts (tool validation, latency, cost,
// the formulas over what is known) need no judge: `judge: "none"`.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  DEFAULT_CONCURRENCY,
  InputError,
  parseJsonText,
  readInputFile,
  type TokenUsage,
} from "../core/index.ts";
import {
  type EngineTotals,
  type EvaluationRow,
  findEvaluation,
  type JudgeOption,
  type JudgeSettings,
  loadStoredResult,
  openStore,
  type ProgressListener,
  prepareJudge,
  runEvaluation,
  type Store,
} from "../engine/index.ts";
import type { Judge } from "../judge/index.ts";
import { buildAnalysis, type SessionAnalysis } from "./analysis.ts";
import { type ExpectedCallsFile, loadExpectedCalls, matchSessionCalls } from "./expected-calls.ts";
import type { passK } from "./formulas.ts";
import type { ImportOptions } from "./importers/importer.ts";
import {
  type ImportedSessions,
  importSessions,
  isZipArchive,
  OpenAIToolsSchema,
  readInspectArchive,
} from "./importers/index.ts";
import {
  SESSIONS_ANALYSIS_FORMAT,
  type SessionJudgingOptions,
  sessionEvaluation,
  sessionsResult,
} from "./judged.ts";
import type { Session } from "./session-format.ts";
import { compileSessionTools, type ToolValidation, validateToolCalls } from "./tool-validation.ts";

export interface AnalyzeSessionOptions extends SessionJudgingOptions {
  /** The importer to use (`session`, `openai`, `openai-agents`, `otlp`, `tau-bench`, `tau2-bench`, `langfuse`, `langsmith`, `inspect`); default: recognised from the content. */
  from?: string;
  /** τ-bench, τ²-bench and Inspect: the reward (an Inspect sample's first score) at which a run counts as a success (default 1: τ-bench's rule, Inspect's "C"). */
  successReward?: number;
  /** What the sources (and error messages) call an input given as a value, not a file. Default `<session>`. */
  source?: string;
  /** OpenAI-format tools for logs that do not carry them (a file path or the list). */
  tools?: string | ImportOptions["tools"];
  /**
   * The calls expected of the sessions (`dramaturg.expected-calls/v1`, a file or its parsed value): each
   * session it names gets `trajectory_match` (the mode's verdict, precision, recall, F1, missing, unexpected).
   */
  expect?: string | ExpectedCallsFile;
  /**
   * The judge of the judged metrics: a spec (`openai:gpt-4o-mini`, `fixtures:FILE`…), an AI SDK model or a
   * Judge; `"none"` (the default) for the deterministic parts alone, judged metrics null and saying so.
   */
  judge?: JudgeOption | "none";
  judgeSettings?: JudgeSettings;
  /**
   * Where the analysis is kept (an open Store or a location), to list and reprint it later. Without one,
   * an analysis with `judge: "none"` is computed and kept nowhere; a judged one uses `memory://`.
   */
  store?: Store | string;
  /** Judge calls in flight. Default 16. */
  concurrency?: number;
  /** The verdict cache (live judges). Default true. */
  cache?: boolean;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

export interface SessionsAnalysis {
  format: typeof SESSIONS_ANALYSIS_FORMAT;
  analyses: SessionAnalysis[];
  /** Per file: the importer that read it and what it could not map. */
  sources: { file: string; from: string; sessions: number; notes: string[] }[];
  /** pass^k over sessions that share a task_id and say whether they succeeded. */
  pass_k: ReturnType<typeof passK> | null;
  /** The judge and what it cost, for the whole analysis (absent with `judge: "none"`). */
  judge?: {
    spec: string;
    requests: number;
    calls: number;
    calls_per_session: number;
    token_usage: TokenUsage;
    /** Verdicts that failed: each left its metric null. */
    errored: number;
    cache?: EngineTotals["cache"];
  };
  /** The stored evaluation, when the analysis was judged. */
  evaluation_id?: string;
}

/** The tools given apart, validated: a file of OpenAI-format tools, or the list itself. */
function toolsOption(tools: AnalyzeSessionOptions["tools"]): ImportOptions["tools"] {
  if (tools === undefined || typeof tools !== "string") return tools;
  const parsed = OpenAIToolsSchema.safeParse(
    parseJsonText(readInputFile(tools, "the tools"), tools, "a list of OpenAI tools"),
  );
  if (!parsed.success)
    throw new InputError(
      'expected a list of OpenAI tools ({type: "function", function: {name, parameters}})',
      {
        file: tools,
        place: parsed.error.issues[0]?.path.join(".") || undefined,
      },
    );
  return parsed.data;
}

/**
 * τ²-bench's directory format (`Results.save(path, format="dir")`, the default of its voice runs): the results
 * file without its simulations, each in `simulations/<id>.json` beside it, listed in `simulation_index`. Given the
 * folder or its results.json, the results with their simulations back in, in the index's order (else by name).
 */
function tau2Directory(file: string): { file: string; value?: unknown } {
  const results = existsSync(file) && statSync(file).isDirectory() ? join(file, "results.json") : file;
  const folder = join(dirname(results), "simulations");
  if (results === file && !existsSync(folder)) return { file };
  const value = parseJsonText(readInputFile(results, "the session file"), results, "a session or trace");
  if (typeof value !== "object" || value === null || !existsSync(folder)) return { file: results, value };
  const meta = value as { simulations?: unknown[]; simulation_index?: { id?: unknown }[] | null };
  if (Array.isArray(meta.simulations) && meta.simulations.length > 0) return { file: results, value };
  const names = Array.isArray(meta.simulation_index)
    ? meta.simulation_index.map((entry) => `${String(entry.id)}.json`)
    : readdirSync(folder)
        .filter((name) => name.endsWith(".json"))
        .sort();
  const simulations = names.map((name) => {
    const path = join(folder, name);
    return parseJsonText(readInputFile(path, "a τ²-bench simulation file"), path, "a τ²-bench simulation");
  });
  return { file: results, value: { ...meta, simulations } };
}

/** An Inspect `.eval` log (a zip archive) as the log its JSON form would be; undefined for any other file. */
function inspectArchive(file: string): unknown {
  if (!file.endsWith(".eval")) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new InputError(
      `cannot read the session file (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      {
        file,
        cause: error,
      },
    );
  }
  return isZipArchive(bytes) ? readInspectArchive(bytes, file) : undefined;
}

/** Reads a file of sessions: JSON, or JSONL with one document (a session, a chat log) per line. */
export function readSessionFile(path: string, options: AnalyzeSessionOptions = {}): ImportedSessions {
  const { file, value = inspectArchive(path) } = tau2Directory(path);
  const tools = toolsOption(options.tools);
  if (value !== undefined)
    return importSessions(value, { file, from: options.from, tools, successReward: options.successReward });
  const text = readInputFile(file, "the session file");
  if (!file.endsWith(".jsonl"))
    return importSessions(parseJsonText(text, file, "a session or trace"), {
      file,
      from: options.from,
      tools,
      successReward: options.successReward,
    });
  const merged: ImportedSessions = { sessions: [], from: "", notes: [] };
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const value = parseJsonText(line, file, "a session or chat log", { firstLine: i + 1 });
    const one = importSessions(value, {
      file: `${file}:${i + 1}`,
      from: options.from,
      tools,
      successReward: options.successReward,
    });
    merged.sessions.push(...one.sessions);
    merged.from ||= one.from;
    merged.notes.push(...one.notes.map((n) => `line ${i + 1}: ${n}`));
  });
  return merged;
}

/**
 * Analyses the sessions in files (or session values): tool findings, latency, cost and per-agent and
 * overall scores by the seed's formulas, and pass^k over repeated runs of a task. Every input is read and
 * checked before anything is analysed: bad input is an InputError naming the file and JSON path.
 *
 * ```ts
 * import { analyzeSession } from "dramaturg";
 * const { analyses } = await analyzeSession("session.json", { judge: "none" });
 * console.log(analyses[0].tool_validation);
 * ```
 */
export async function analyzeSession(
  input: string | readonly string[] | Session | unknown,
  options: AnalyzeSessionOptions = {},
): Promise<SessionsAnalysis> {
  const prepared = prepareSessionAnalysis(input, options);
  const { sessions, validations, sources, expected } = prepared;
  const none = options.judge === undefined || options.judge === "none";
  if (none && options.store === undefined)
    return sessionsResult(
      sessions,
      sessions.map((session, i) =>
        buildAnalysis(session, {
          validation: validations[i]!,
          trajectory: expected && matchSessionCalls(expected, session),
        }),
      ),
      sources,
    );
  return analysisRun(prepared, options);
}

/** Sessions read and checked, ready to analyse: what an analysis, in process or queued, starts from. */
export interface PreparedSessionAnalysis {
  sessions: Session[];
  /** Session i's tool calls validated against its agents' tools. */
  validations: ToolValidation[];
  /** The calls expected of the sessions, when given; kept with a stored analysis. */
  expected?: ExpectedCallsFile;
  sources: SessionsAnalysis["sources"];
}

/**
 * Reads the sessions in files (or a session value) and validates their tool calls: every input read and
 * checked (a bad one is an InputError naming the file and JSON path) before anything is analysed or stored.
 */
export function prepareSessionAnalysis(
  input: string | readonly string[] | Session | unknown,
  options: Pick<AnalyzeSessionOptions, "from" | "source" | "tools" | "successReward" | "expect"> = {},
): PreparedSessionAnalysis {
  const expected = typeof options.expect === "string" ? loadExpectedCalls(options.expect) : options.expect;
  const files =
    typeof input === "string"
      ? [input]
      : Array.isArray(input) && input.length > 0 && input.every((f) => typeof f === "string")
        ? (input as string[])
        : undefined;
  const read: { file: string; imported: ImportedSessions }[] = files
    ? files.map((file) => ({ file, imported: readSessionFile(file, options) }))
    : [
        {
          file: options.source ?? "<session>",
          imported: importSessions(input, {
            file: options.source ?? "<session>",
            from: options.from,
            tools: toolsOption(options.tools),
            successReward: options.successReward,
          }),
        },
      ];
  // Every schema compiled (a bad one is bad input) before any analysis.
  const sessions = read.flatMap(({ file, imported }) =>
    imported.sessions.map((session) => ({ session, tools: compileSessionTools(session, file) })),
  );
  return {
    sessions: sessions.map((s) => s.session),
    validations: sessions.map(({ session, tools }) => validateToolCalls(session, tools)),
    ...(expected ? { expected } : {}),
    sources: read.map(({ file, imported }) => ({
      file,
      from: imported.from,
      sessions: imported.sessions.length,
      notes: imported.notes,
    })),
  };
}

/** A judge for an analysis without one: its plan has no calls, so it is never asked. */
const NO_JUDGE: Judge = {
  descriptor: { provider: "none", model: "none", prompt_version: "none" },
  judge: () => Promise.reject(new Error("judge: none was asked to judge")),
};

/** The analysis as an evaluation on the run engine (judge, cache, store, progress), kept in the store. */
async function analysisRun(
  prepared: PreparedSessionAnalysis,
  options: AnalyzeSessionOptions,
): Promise<SessionsAnalysis> {
  // The judge is built first (a bad spec, a missing fixtures file or API key is bad input), then the store
  // opens (creating a new one), and the verdict cache goes in front of a live judge.
  const settings = { concurrency: options.concurrency ?? DEFAULT_CONCURRENCY, ...options.judgeSettings };
  const built =
    options.judge === undefined || options.judge === "none"
      ? undefined
      : prepareJudge(options.judge, settings, { cache: false });
  const owned = typeof options.store !== "object";
  let store: Store;
  try {
    store = typeof options.store === "object" ? options.store : await openStore(options.store ?? "memory://");
  } catch (error) {
    await built?.close();
    throw error;
  }
  const ready = built && prepareJudge(built.judge, settings, { store, cache: options.cache, mode: "batch" });
  try {
    const { evaluationId, result } = await runEvaluation({
      evaluation: sessionEvaluation({
        ...prepared,
        judge: ready?.judge.descriptor,
        judgeSpec:
          typeof options.judge === "string" ? options.judge : (ready?.judge.descriptor.model ?? "none"),
        ccmThreshold: options.ccmThreshold,
      }),
      store,
      judge: ready?.judge ?? NO_JUDGE,
      cache: ready?.cache,
      concurrency: options.concurrency,
      onProgress: options.onProgress,
      signal: options.signal,
    });
    return { ...result, evaluation_id: evaluationId };
  } finally {
    await ready?.close();
    await built?.close();
    if (owned) await store.close();
  }
}

export interface ResumeSessionOptions
  extends Pick<AnalyzeSessionOptions, "judgeSettings" | "concurrency" | "cache" | "onProgress" | "signal"> {
  store: Store;
  /** The analysis to complete (id or its first 8+ characters); default the latest unfinished one. */
  id?: string;
  /** The judge; default the one it started with. */
  judge?: JudgeOption;
}

/**
 * Completes an interrupted session analysis in place: the sessions kept with it are planned again and
 * only the verdicts not stored yet are judged.
 */
export async function resumeSessionAnalysis(options: ResumeSessionOptions): Promise<SessionsAnalysis> {
  const { store } = options;
  const evaluation = await findEvaluation(store, options.id, { kind: "session", place: "--resume" });
  if (evaluation.status === "completed")
    throw new InputError(
      `session analysis ${evaluation.id.slice(0, 8)} is already completed; nothing to resume`,
      { place: "--resume" },
    );
  const stored = await rebuildSessionAnalysis(store, evaluation);
  const spec = options.judge ?? stored.judge;
  const settings = { concurrency: options.concurrency ?? DEFAULT_CONCURRENCY, ...options.judgeSettings };
  const built = prepareJudge(spec, settings, { cache: false });
  const ready = prepareJudge(built.judge, settings, { store, cache: options.cache, mode: "batch" });
  try {
    const { evaluationId, result } = await runEvaluation({
      evaluation: sessionEvaluation({
        ...stored.prepared,
        judge: built.judge.descriptor,
        judgeSpec: typeof spec === "string" ? spec : built.judge.descriptor.model,
        ccmThreshold: stored.ccmThreshold,
      }),
      store,
      judge: ready.judge,
      cache: ready.cache,
      concurrency: options.concurrency,
      resume: evaluation.id,
      onProgress: options.onProgress,
      signal: options.signal,
    });
    return { ...result, evaluation_id: evaluationId };
  } finally {
    await ready.close();
    await built.close();
  }
}

/** A stored session analysis made ready to judge again: what a resume and a queue worker rebuild it from. */
export interface RebuiltSessionAnalysis {
  /** The sessions kept with it, their tool calls validated again. */
  prepared: PreparedSessionAnalysis;
  /** The judge it was started with, as the user named it (`openai:gpt-4o-mini`). */
  judge: string;
  /** The base URL that judge was reached at, when it was given one. */
  judgeBaseUrl?: string;
  ccmThreshold?: number;
}

/** Rebuilds a stored session analysis from the sessions kept with it (any status). */
export async function rebuildSessionAnalysis(
  store: Store,
  evaluation: EvaluationRow,
): Promise<RebuiltSessionAnalysis> {
  const input = (await store.evaluations.input(evaluation.id)) as
    | { sessions?: Session[]; sources?: SessionsAnalysis["sources"]; expected?: ExpectedCallsFile }
    | undefined;
  const config = evaluation.config as {
    judge?: unknown;
    ccm_threshold?: unknown;
    judge_descriptor?: { base_url?: unknown };
  };
  if (!Array.isArray(input?.sessions) || typeof config.judge !== "string")
    throw new InputError(
      `session analysis ${evaluation.id.slice(0, 8)} has no resumable input (stored by another version?)`,
    );
  const sessions = input.sessions;
  const baseUrl = config.judge_descriptor?.base_url;
  return {
    prepared: {
      sessions,
      validations: sessions.map((session) => validateToolCalls(session, compileSessionTools(session))),
      sources: input.sources ?? [],
      ...(input.expected ? { expected: input.expected } : {}),
    },
    judge: config.judge,
    ...(typeof baseUrl === "string" ? { judgeBaseUrl: baseUrl } : {}),
    ...(typeof config.ccm_threshold === "number" ? { ccmThreshold: config.ccm_threshold } : {}),
  };
}

/** A stored analysis (the latest, or by id or its first 8+ characters): `dramaturg show` for sessions. */
export function loadSessionAnalysis({ store, id }: { store: Store; id?: string }): Promise<SessionsAnalysis> {
  return loadStoredResult<SessionsAnalysis>(store, id, {
    kind: "session",
    format: SESSIONS_ANALYSIS_FORMAT,
    noun: "session analysis",
  });
}

/** One line per stored analysis, newest first: `dramaturg sessions`. */
export interface StoredSessionAnalysis {
  id: string;
  created_at: string;
  status: string;
  source: string;
  sessions: number;
  /** The sessions' agents, by id. */
  agents: string[];
  /** Each session's id and overall score, when the analysis completed. */
  scores: { session_id: string | null; overall_score: number | null; findings: number; bad_turns: number }[];
  judge: string | null;
}

export async function listSessionAnalyses({
  store,
  limit = 50,
  ...page
}: {
  store: Store;
  limit?: number;
} & Pick<
  NonNullable<Parameters<Store["evaluations"]["list"]>[0]>,
  "after" | "since" | "until" | "agent"
>): Promise<StoredSessionAnalysis[]> {
  const rows = await store.evaluations.list({ kind: "session", limit, ...page });
  const out: StoredSessionAnalysis[] = [];
  for (const row of rows) {
    const result =
      row.status === "completed"
        ? ((await store.evaluations.result(row.id)) as SessionsAnalysis | undefined)
        : undefined;
    const analyses = result?.format === SESSIONS_ANALYSIS_FORMAT ? result.analyses : [];
    out.push({
      id: row.id,
      created_at: row.created_at,
      status: row.status,
      source: row.source,
      sessions: analyses.length,
      agents: row.agents,
      scores: analyses.map((a) => ({
        session_id: a.session_id,
        overall_score: a.overall_score,
        findings: a.tool_validation.filter((f) => f.type !== "tool_error").length,
        bad_turns: a.conversation.bad_responses,
      })),
      judge: result?.judge?.spec ?? (result ? "none" : null),
    });
  }
  return out;
}

/**
 * The JSON document of an analysis, as `dramaturg session analyze --format json`, `dramaturg show ID` and the
 * server's `/api/sessions` give it: one analysis alone, with its sources (and its judge's run), or several whole.
 */
export function sessionsDocument(result: SessionsAnalysis): unknown {
  return result.analyses.length === 1 && !result.pass_k
    ? { ...result.analyses[0], sources: result.sources, ...(result.judge ? { judge_run: result.judge } : {}) }
    : result;
}
