// `dramaturg session analyze FILE…`: the library's analyzeSession, rendered as JSON (the seed's API
// response plus tool findings and latency), a table, or Markdown.
import { type Command, Option } from "commander";
import { SESSION_FORMATS } from "../../sessions/session-formats.ts";
import { setExitCode } from "../exit-code.ts";
import { CONCURRENCY_HELP } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { writeHtmlReportAfter } from "../html-report.ts";
import { checkOutputPaths } from "../output-paths.ts";
import type { SessionFlags } from "../session-analysis.ts";
import { registerStoredList } from "../stored-list.ts";

export function registerSessionCommands(program: Command): void {
  registerStoredList(program, {
    name: "sessions",
    description: "list stored session analyses, newest first",
    noun: "session analyses",
    key: "analyses",
    kind: async () => (await import("../../sessions/index.ts")).sessionKind,
  });
  const session = program
    .command("session")
    .description("analyse multi-agent sessions: tool calls, per-agent scores, bad turns");
  session
    .command("analyze")
    .description(
      "analyse sessions (our format, ReAsk's, OpenAI chat logs, OpenAI Agents SDK, OTLP, Langfuse and LangSmith traces, τ-bench, τ²-bench and Inspect logs) and print the analysis",
    )
    .argument(
      "[files...]",
      "session files (JSON, JSONL with one session or chat log per line, or an Inspect .eval log)",
    )
    .addOption(
      new Option("--from <format>", "read the files as this format (default: recognised)").choices(
        SESSION_FORMATS,
      ),
    )
    .option(
      "--success-reward <x>",
      "τ-bench, τ²-bench and Inspect: the reward (an Inspect sample's first score) at which a run succeeded, for pass^k (default 1: τ-bench's rule, Inspect's C)",
    )
    .option("--tools <file>", "OpenAI-format tools for chat logs that do not carry them")
    .option(
      "--expect <file>",
      "the calls expected of the sessions (dramaturg.expected-calls/v1): strict, unordered, subset, superset or in-order",
    )
    .option(
      "--judge <judge>",
      "judge of the judged metrics (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL, fixtures:FILE); none = the deterministic parts only",
      "none",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server (Ollama, vLLM…)")
    .option("--judge-api-key-env <name>", "environment variable that holds the judge's API key")
    .option("--concurrency <n>", CONCURRENCY_HELP)
    .option("--no-cache", "ask the judge even where the verdict cache has the answer")
    .option(
      "--ccm-threshold <x>",
      "word overlap (0–1) the two user messages need for a re-ask to count",
      "0.5",
    )
    .option("--db <location>", "store location (default .dramaturg; memory:// keeps nothing)")
    .option("--resume [id]", "complete the last interrupted analysis (or this one) in place")
    .option(
      "--queue",
      "store the analysis and queue its judge calls for `dramaturg worker`s (needs --db postgres://…), then wait for it",
    )
    .option("--detach", "with --queue: print the analysis's id and return without waiting")
    .option("--no-progress", "no progress bar")
    .option("--config <file>", "project file to use")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "json", "markdown", "html"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout (html: the report file)")
    .addHelpText(
      "after",
      examples(
        "dramaturg session analyze examples/sessions/refund.session.json --judge none",
        "dramaturg session analyze examples/sessions/refund.session.json --judge fixtures:examples/sessions/refund.judge-fixtures.json",
        "OPENAI_API_KEY=… dramaturg session analyze session.json --judge openai:gpt-4o-mini --format markdown",
        "dramaturg session analyze chat-log.jsonl --tools tools.json --format json",
        "dramaturg session analyze historical_trajectories/gpt-4o-airline.json   # τ-bench: pass^k as published",
        "dramaturg session analyze logs/2026-03-02T09-00-00_task.eval   # Inspect: pass^k over the epochs",
        "dramaturg session analyze sessions/*.json --judge openai:gpt-4o-mini --db postgres://… --queue",
      ),
    )
    .action(async (files: string[], flags: SessionFlags) => {
      checkOutputPaths({ "--out": flags.out });
      const { sessionAnalysisSetup, runSessionAnalysis, emitSessions } = await import(
        "../session-analysis.ts"
      );
      const setup = sessionAnalysisSetup(files, flags);
      const analysis = await runSessionAnalysis(setup);
      if ("detached" in analysis) {
        process.stdout.write(`${analysis.detached}\n`);
        return;
      }
      const { result, kept } = analysis;
      if (result.judge?.errored)
        process.stderr.write(
          `dramaturg: ${result.judge.errored} judge verdict(s) failed; their metrics are null and left out of the scores\n`,
        );
      if (flags.format !== "html") await emitSessions(result, flags.format, flags.out);
      else {
        if (result.evaluation_id === undefined) throw new Error("the analysis was not stored");
        await writeHtmlReportAfter(kept, setup.db, { evaluationIds: [result.evaluation_id], out: flags.out });
        if (flags.out) await emitSessions(result, "table");
      }
      if (setup.exportRules.length > 0) {
        const { exportAfterRun } = await import("../score-export.ts");
        const code = await exportAfterRun(setup.exportRules, {
          command: "session",
          db: setup.db,
          evaluationIds: [result.evaluation_id],
        });
        if (code) setExitCode(code);
      }
    });
}
