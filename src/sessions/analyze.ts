// The library's session analysis: `analyzeSession(input)` reads a session (any format an importer knows),
// validates its tools, and builds the analysis. The deterministic parts (tool validation, latency, cost,
// the formulas over what is known) need no judge: `judge: "none"`.
import { InputError, parseJsonText, readInputFile, type TokenUsage } from "../core/index.ts";
import {
  type EngineTotals,
  type JudgeOption,
  type JudgeSettings,
  openStore,
  type ProgressListener,
  prepareJudge,
  runEvaluation,
  type Store,
} from "../engine/index.ts";
import { buildAnalysis, type SessionAnalysis } from "./analysis.ts";
import { passK } from "./formulas.ts";
import type { ImportOptions } from "./importers/importer.ts";
import { type ImportedSessions, importSessions, OpenAIToolsSchema } from "./importers/index.ts";
import { type SessionJudgingOptions, sessionEvaluation } from "./judged.ts";
import type { Session } from "./session-format.ts";
import { compileSessionTools, validateToolCalls } from "./tool-validation.ts";

export interface AnalyzeSessionOptions extends SessionJudgingOptions {
  /** The importer to use (`session`, `openai`, `openai-agents`); default: recognised from the content. */
  from?: string;
  /** OpenAI-format tools for logs that do not carry them (a file path or the list). */
  tools?: string | ImportOptions["tools"];
  /**
   * The judge of the judged metrics: a spec (`openai:gpt-4o-mini`, `fixtures:FILE`…), an AI SDK model or a
   * Judge; `"none"` (the default) for the deterministic parts alone, judged metrics null and saying so.
   */
  judge?: JudgeOption | "none";
  judgeSettings?: JudgeSettings;
  /** Where the analysis is kept: an open Store or a location. Default `memory://`. */
  store?: Store | string;
  /** Judge calls in flight. Default 16. */
  concurrency?: number;
  /** The verdict cache (live judges). Default true. */
  cache?: boolean;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

export interface SessionsAnalysis {
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

/** Reads a file of sessions: JSON, or JSONL with one document (a session, a chat log) per line. */
export function readSessionFile(file: string, options: AnalyzeSessionOptions = {}): ImportedSessions {
  const text = readInputFile(file, "the session file");
  const tools = toolsOption(options.tools);
  if (!file.endsWith(".jsonl"))
    return importSessions(parseJsonText(text, file, "a session or trace"), {
      file,
      from: options.from,
      tools,
    });
  const merged: ImportedSessions = { sessions: [], from: "", notes: [] };
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return;
    const value = parseJsonText(line, file, "a session or chat log", { firstLine: i + 1 });
    const one = importSessions(value, { file: `${file}:${i + 1}`, from: options.from, tools });
    merged.sessions.push(...one.sessions);
    merged.from ||= one.from;
    merged.notes.push(...one.notes.map((n) => `line ${i + 1}: ${n}`));
  });
  return merged;
}

/** Analyses one session already read (see {@link parseSession}). Tool schemas are checked first. */
export function analyzeParsedSession(session: Session, { file }: { file?: string } = {}): SessionAnalysis {
  const tools = compileSessionTools(session, file);
  return buildAnalysis(session, { validation: validateToolCalls(session, tools) });
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
          file: "<session>",
          imported: importSessions(input, {
            file: "<session>",
            from: options.from,
            tools: toolsOption(options.tools),
          }),
        },
      ];
  // Every schema compiled (a bad one is bad input) before any analysis.
  const sessions = read.flatMap(({ file, imported }) =>
    imported.sessions.map((session) => ({ session, file, tools: compileSessionTools(session, file) })),
  );
  const validations = sessions.map(({ session, tools }) => validateToolCalls(session, tools));
  const sources = read.map(({ file, imported }) => ({
    file,
    from: imported.from,
    sessions: imported.sessions.length,
    notes: imported.notes,
  }));
  if (options.judge === undefined || options.judge === "none") {
    const runs = sessions
      .map(({ session }) => session)
      .filter(
        (s): s is Session & { task_id: string; success: boolean } =>
          s.task_id !== undefined && s.success !== undefined,
      );
    return {
      analyses: sessions.map(({ session }, i) => buildAnalysis(session, { validation: validations[i]! })),
      sources,
      pass_k: runs.length > 0 ? passK(runs) : null,
    };
  }
  return judgedAnalysis(
    sessions.map((s) => s.session),
    validations,
    sources,
    options as AnalyzeSessionOptions & { judge: JudgeOption },
  );
}

/** The judged analysis: the session kind on the run engine (judge, cache, store, progress). */
async function judgedAnalysis(
  sessions: Session[],
  validations: ReturnType<typeof validateToolCalls>[],
  sources: SessionsAnalysis["sources"],
  options: AnalyzeSessionOptions & { judge: JudgeOption },
): Promise<SessionsAnalysis> {
  const owned = typeof options.store !== "object";
  const store =
    typeof options.store === "object" ? options.store : await openStore(options.store ?? "memory://");
  // The judge's own limit follows the run's, unless its settings give one.
  const settings = { concurrency: options.concurrency ?? 16, ...options.judgeSettings };
  const ready = prepareJudge(options.judge, settings, {
    store,
    cache: options.cache,
    mode: "batch",
  });
  try {
    const { evaluationId, result } = await runEvaluation({
      evaluation: sessionEvaluation({
        sessions,
        validations,
        sources,
        judge: ready.judge.descriptor,
        judgeSpec: typeof options.judge === "string" ? options.judge : ready.judge.descriptor.model,
        ccmThreshold: options.ccmThreshold,
      }),
      store,
      judge: ready.judge,
      cache: ready.cache,
      concurrency: options.concurrency,
      onProgress: options.onProgress,
      signal: options.signal,
    });
    return { ...result, evaluation_id: evaluationId };
  } finally {
    await ready.close();
    if (owned) await store.close();
  }
}
