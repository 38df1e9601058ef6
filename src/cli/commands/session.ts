// `dramaturg session analyze FILE…`: the library's analyzeSession, rendered as JSON (the seed's API
// response plus tool findings and latency), a table, or Markdown.
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { Option } from "commander";
import type { SessionAnalysis, SessionsAnalysis } from "../../sessions/index.ts";
import { examples } from "../program.ts";
import { registerStoredList } from "./stored-list.ts";

const score = (v: number | null) => (v === null ? "—" : v.toFixed(2));
const ms = (v: number | null) => (v === null ? "—" : `${Math.round(v)} ms`);

/** A plain-text table per session: scores, agents, findings, recommendations, latency. */
export function renderSessionTable(result: SessionsAnalysis): string {
  const out: string[] = [];
  for (const [i, a] of result.analyses.entries()) {
    if (i > 0) out.push("");
    out.push(`session ${a.session_id ?? i + 1}${a.task_id ? ` (task ${a.task_id})` : ""}`);
    out.push(
      `  overall ${score(a.overall_score)} · coordination ${score(a.coordination_score)} · intent drift ${score(a.intent_drift_score)} · task completed ${a.task_completion ?? "—"}`,
    );
    if (a.overall.left_out.length)
      out.push(
        `  left out of the overall: ${a.overall.left_out.map((l) => `${l.metric} (${l.reason.replaceAll("_", " ")})`).join(", ")}`,
      );
    out.push("", "  agent            overall  tool use  reasoning  handoff  response  interactions");
    for (const [id, s] of Object.entries(a.per_agent_scores))
      out.push(
        `  ${id.padEnd(16).slice(0, 16)} ${score(s.overall).padStart(7)}  ${score(s.tool_use).padStart(8)}  ${score(s.reasoning).padStart(9)}  ${score(s.handoff).padStart(7)}  ${score(s.response_quality).padStart(8)}  ${String(s.interactions_count).padStart(12)}`,
      );
    const bad = a.turn_results.filter((t) => t.is_bad);
    if (bad.length) {
      out.push("", "  bad turns:");
      for (const t of bad)
        out.push(
          `  turn ${t.turn_index}: ${t.detection_type} (${t.confidence.toFixed(2)})${t.agent_id ? ` by ${t.agent_id}` : ""}${t.reason ? ` — ${t.reason}` : ""}`,
        );
    }
    out.push(
      "",
      `  tool calls: ${a.tool_calls.total}, with findings: ${a.tool_calls.with_findings}, not checked: ${a.tool_calls.unchecked}`,
    );
    for (const f of a.tool_validation)
      out.push(
        `  ${f.severity.padEnd(6)} turn ${f.turn_index} ${f.agent_id} ${f.tool_name}: ${f.type} — ${f.message}`,
      );
    if (a.recommendations.length) {
      out.push("", "  recommendations:");
      for (const r of a.recommendations)
        out.push(
          `  - ${r.text}${r.findings.length ? ` (${r.findings.length} finding${r.findings.length === 1 ? "" : "s"})` : ""}`,
        );
    }
    const tools = Object.entries(a.latency.per_tool);
    if (tools.length) {
      out.push("", "  tool             calls  errors      p50      p95      max");
      for (const [name, t] of tools)
        out.push(
          `  ${name.padEnd(16).slice(0, 16)} ${String(t.calls).padStart(5)}  ${String(t.errors).padStart(6)}  ${ms(t.p50_ms).padStart(7)}  ${ms(t.p95_ms).padStart(7)}  ${ms(t.max_ms).padStart(7)}`,
        );
    }
    const slow = a.latency.slowest_tool_call ?? a.latency.slowest_interaction;
    if (slow)
      out.push(
        `  slowest: ${slow.agent_id}${slow.tool_name ? ` → ${slow.tool_name}` : ""} in turn ${slow.turn_index}, ${ms(slow.latency_ms)}`,
      );
  }
  if (result.judge) {
    const j = result.judge;
    out.push(
      "",
      `judge ${j.spec}: ${j.requests} request(s), ${j.calls} model call(s) (${j.calls_per_session.toFixed(1)} per session), ${j.token_usage.input_tokens + j.token_usage.output_tokens} tokens${j.errored ? `, ${j.errored} verdict(s) failed` : ""}`,
    );
  }
  if (result.pass_k)
    out.push(
      "",
      `pass^k over ${result.pass_k.tasks} task(s), ${result.pass_k.runs_per_task} runs each: ${Object.entries(
        result.pass_k.pass_k,
      )
        .map(([k, v]) => `k=${k} ${v.toFixed(2)}`)
        .join(" · ")}`,
    );
  for (const s of result.sources) for (const n of s.notes) out.push(`note: ${s.file}: ${n}`);
  return out.join("\n");
}

/** Markdown: the same as the table, for a PR comment or a report. */
export function renderSessionMarkdown(result: SessionsAnalysis): string {
  const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");
  const out: string[] = [];
  for (const [i, a] of result.analyses.entries()) {
    out.push(`## Session ${cell(a.session_id ?? String(i + 1))}`, "");
    out.push(
      `Overall **${score(a.overall_score)}** · coordination ${score(a.coordination_score)} · intent drift ${score(a.intent_drift_score)}`,
      "",
    );
    out.push(
      "| agent | overall | tool use | reasoning | handoff | response | interactions |",
      "|---|---|---|---|---|---|---|",
    );
    for (const [id, s] of Object.entries(a.per_agent_scores))
      out.push(
        `| ${cell(id)} | ${score(s.overall)} | ${score(s.tool_use)} | ${score(s.reasoning)} | ${score(s.handoff)} | ${score(s.response_quality)} | ${s.interactions_count} |`,
      );
    if (a.tool_validation.length) {
      out.push("", "| turn | agent | tool | finding | severity | detail |", "|---|---|---|---|---|---|");
      for (const f of a.tool_validation)
        out.push(
          `| ${f.turn_index} | ${cell(f.agent_id)} | ${cell(f.tool_name)} | ${f.type} | ${f.severity} | ${cell(f.message)} |`,
        );
    }
    if (a.recommendations.length) {
      out.push("");
      for (const r of a.recommendations) out.push(`- ${cell(r.text)}`);
    }
    out.push("");
  }
  return out.join("\n");
}

/** Writes an analysis in `format` to `out` or stdout (JSON: the library's document of it). */
export async function emitSessions(result: SessionsAnalysis, format: string, out?: string): Promise<void> {
  const text =
    format === "json"
      ? `${JSON.stringify((await import("../../sessions/index.ts")).sessionsDocument(result), null, 2)}\n`
      : `${format === "markdown" ? renderSessionMarkdown(result) : renderSessionTable(result)}\n`;
  if (out) {
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out}\n`);
  } else process.stdout.write(text);
}

export function registerSessionCommands(program: Command): void {
  registerStoredList(program, {
    name: "sessions",
    description: "list stored session analyses, newest first",
    noun: "session analyses",
    key: "analyses",
    load: async (store, limit) =>
      (await import("../../sessions/index.ts")).listSessionAnalyses({ store, limit }),
    header: "sessions  overall  findings  bad turns  judge",
    cells: (r) => {
      const overall = r.scores.map((x) => score(x.overall_score)).join(" ");
      const findings = r.scores.reduce((n, x) => n + x.findings, 0);
      const bad = r.scores.reduce((n, x) => n + x.bad_turns, 0);
      return `${String(r.sessions).padStart(8)}  ${overall.padStart(7)}  ${String(findings).padStart(8)}  ${String(bad).padStart(9)}  ${r.judge ?? "—"}`;
    },
  });
  const session = program
    .command("session")
    .description("analyse multi-agent sessions: tool calls, per-agent scores, bad turns");
  session
    .command("analyze")
    .description(
      "analyse sessions (our format, ReAsk's, OpenAI chat logs, OpenAI Agents SDK traces, OTLP traces) and print the analysis",
    )
    .argument("[files...]", "session files (JSON, or JSONL with one session or chat log per line)")
    .addOption(
      new Option("--from <format>", "read the files as this format (default: recognised)").choices([
        "session",
        "openai",
        "openai-agents",
        "otlp",
      ]),
    )
    .option("--tools <file>", "OpenAI-format tools for chat logs that do not carry them")
    .option(
      "--judge <judge>",
      "judge of the judged metrics (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL, fixtures:FILE); none = the deterministic parts only",
      "none",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server (Ollama, vLLM…)")
    .option("--judge-api-key-env <name>", "environment variable that holds the judge's API key")
    .option("--concurrency <n>", "judge calls in flight", "16")
    .option("--no-cache", "ask the judge even where the verdict cache has the answer")
    .option(
      "--ccm-threshold <x>",
      "word overlap (0–1) the two user messages need for a re-ask to count",
      "0.5",
    )
    .option("--db <location>", "store location (default .dramaturg; memory:// keeps nothing)")
    .option("--resume [id]", "complete the last interrupted analysis (or this one) in place")
    .option("--no-progress", "no progress bar")
    .option("--config <file>", "project file to use")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .addHelpText(
      "after",
      examples(
        "dramaturg session analyze examples/sessions/refund.session.json --judge none",
        "dramaturg session analyze examples/sessions/refund.session.json --judge fixtures:examples/sessions/refund.judge-fixtures.json",
        "OPENAI_API_KEY=… dramaturg session analyze session.json --judge openai:gpt-4o-mini --format markdown",
        "dramaturg session analyze chat-log.jsonl --tools tools.json --format json",
      ),
    )
    .action(async (files: string[], flags: SessionFlags) => {
      const { analyzeSession } = await import("../../sessions/index.ts");
      const { InputError } = await import("../../core/index.ts");
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
        throw new InputError(
          `--concurrency must be a whole number from 1 to 256, got "${flags.concurrency}"`,
        );
      const ccmThreshold = Number(flags.ccmThreshold);
      if (!(ccmThreshold >= 0 && ccmThreshold <= 1))
        throw new InputError(`--ccm-threshold must be a number from 0 to 1, got "${flags.ccmThreshold}"`);
      const [{ resolveSettings }, { withInterrupts }, { progressBar }] = await Promise.all([
        import("../settings.ts"),
        import("../interrupts.ts"),
        import("../progress.ts"),
      ]);
      const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
      const judgeSettings = { baseUrl: flags.judgeBaseUrl, apiKeyEnv: flags.judgeApiKeyEnv };
      const onProgress = progressBar(flags.resume ? "resuming" : "judging", flags.progress !== false);
      let result: SessionsAnalysis;
      if (flags.resume !== undefined) {
        if (files.length > 0)
          throw new InputError("--resume continues a stored analysis; give no files with it");
        const { resumeSessionAnalysis } = await import("../../sessions/index.ts");
        const { openStore, storeExists } = await import("../../store/index.ts");
        if (!storeExists(settings.db))
          throw new InputError("no store here to resume from", { place: settings.db });
        const store = await openStore(settings.db);
        try {
          result = await withInterrupts(
            (signal) =>
              resumeSessionAnalysis({
                store,
                id: typeof flags.resume === "string" ? flags.resume : undefined,
                judge: flags.judge === "none" ? undefined : flags.judge,
                judgeSettings,
                concurrency,
                cache: flags.cache,
                onProgress,
                signal,
              }),
            { resumeWith: "dramaturg session analyze --resume" },
          );
        } finally {
          await store.close();
        }
      } else {
        if (files.length === 0) throw new InputError("give the session files to analyse (or --resume)");
        // The run exists in the store once it has started: until then a second Ctrl-C waits for it.
        let started!: () => void;
        const resumable = new Promise<void>((resolve) => {
          started = resolve;
        });
        result = await withInterrupts(
          (signal) =>
            analyzeSession(files, {
              from: flags.from,
              tools: flags.tools,
              judge: flags.judge,
              judgeSettings,
              store: settings.db,
              concurrency,
              cache: flags.cache,
              ccmThreshold,
              onProgress: (event) => {
                if (event.type === "started") started();
                onProgress(event);
              },
              signal,
            }),
          { resumable, resumeWith: "dramaturg session analyze --resume" },
        );
      }
      if (result.judge?.errored)
        process.stderr.write(
          `dramaturg: ${result.judge.errored} judge verdict(s) failed; their metrics are null and left out of the scores\n`,
        );
      await emitSessions(result, flags.format, flags.out);
    });
}

interface SessionFlags {
  from?: string;
  tools?: string;
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  concurrency: string;
  cache: boolean;
  ccmThreshold: string;
  db?: string;
  config?: string;
  resume?: string | boolean;
  progress?: boolean;
  format: string;
  out?: string;
}

export type { SessionAnalysis };
