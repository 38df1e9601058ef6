// `dramaturg converse JOB.yml…`: the library's runConversation per job, both passes side by side, the
// assertions with their actual values, the composite; exit 1 when a job's score is under --min-score.
import { writeFileSync } from "node:fs";
import { type Command, Option } from "commander";
import type { ConversationResult } from "../../conversations/index.ts";
import { examples, setExitCode } from "../program.ts";
import { registerStoredList } from "./stored-list.ts";

const num = (v: number | null | undefined, digits = 2) =>
  v === null || v === undefined ? "—" : v.toFixed(digits);

/** A job's score: the mean of its passes' composites (the reference's command-line score), or null. */
export function jobScore(result: ConversationResult): number | null {
  const scores = result.passes.map((p) => p.composite.score).filter((s): s is number => s !== null);
  return scores.length === result.passes.length && scores.length > 0
    ? scores.reduce((a, b) => a + b, 0) / scores.length
    : null;
}

export function renderConversationTable(results: readonly ConversationResult[]): string {
  const out: string[] = [];
  for (const r of results) {
    out.push(
      `${r.job}: score ${num(jobScore(r))}${r.difference !== null ? ` (with facts − without: ${num(r.difference)})` : ""}`,
    );
    for (const p of r.passes) {
      const c = p.composite;
      const ended =
        p.transcript.ended === "agent_failed"
          ? `the agent failed: ${p.transcript.error}`
          : p.transcript.ended.replace("_", " ");
      out.push(
        `  ${p.pass.replace("_", " ")}: composite ${num(c.score)} = timing ${num(c.timing)}, tasks ${num(c.task)}, assertions ${num(c.assertions)}, penalty ${num(c.penalty)}${c.formula === "without-assertions" ? " (no assertions: (timing + 2·task) / 3)" : ""}`,
      );
      out.push(
        `    ${p.transcript.turns.length} messages, ended: ${ended}, failed requests: ${p.transcript.failures}, tone ${num(p.tone)}`,
      );
      for (const t of p.tasks)
        out.push(`    task ${num(t.score)}  ${t.task}${t.reasoning ? ` — ${t.reasoning}` : ""}`);
      for (const a of p.assertions)
        out.push(
          `    ${a.passed ? "PASS" : "FAIL"} ×${a.weight}  ${a.label}${a.actual !== undefined ? `  actual ${JSON.stringify(a.actual)}` : ""}${a.expected !== undefined ? `, expected ${JSON.stringify(a.expected)}` : ""}${a.error ? `  (${a.error})` : ""}`,
        );
    }
  }
  return out.join("\n");
}

interface ConverseFlags {
  targetUrl?: string;
  userModel: string;
  userBaseUrl?: string;
  userApiKeyEnv?: string;
  judge: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  passes: "both" | "without" | "with";
  minScore?: string;
  seed: string;
  concurrency: string;
  progress?: boolean;
  format: string;
  out?: string;
  db?: string;
  config?: string;
}

export function registerConverseCommand(program: Command): void {
  registerStoredList(program, {
    name: "conversations",
    description: "list stored conversation runs, newest first",
    noun: "conversations",
    key: "conversations",
    load: async (store, limit) =>
      (await import("../../conversations/index.ts")).listConversationResults({ store, limit }),
    header: "without facts  with facts  job",
    cells: (r) => {
      const score = (pass: string) => num(r.passes.find((p) => p.pass === pass)?.score ?? null);
      return `${score("without_facts").padStart(13)}  ${score("with_facts").padStart(10)}  ${r.job}`;
    },
  });
  program
    .command("converse")
    .description("run conversation jobs against a live agent with a simulated user, and score them")
    .argument("<jobs...>", "conversation job files (YAML; `dramaturg schema conversation`)")
    .option("--target-url <url>", "the agent's endpoint (default: each job's target.url)")
    .requiredOption(
      "--user-model <spec>",
      "the simulated user's model (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL)",
    )
    .option("--user-base-url <url>", "base URL of an OpenAI-compatible server for the simulated user")
    .option("--user-api-key-env <name>", "environment variable that holds the simulated user's API key")
    .requiredOption("--judge <spec>", "the transcript scorer (a model spec, or fixtures:FILE)")
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the scorer")
    .option("--judge-api-key-env <name>", "environment variable that holds the scorer's API key")
    .addOption(
      new Option("--passes <which>", "which passes to run")
        .choices(["both", "without", "with"])
        .default("both"),
    )
    .option("--concurrency <n>", "jobs run at once", "1")
    .option("--no-progress", "no live progress")
    .option("--min-score <x>", "exit 1 when a job's score (the mean of its passes) is under this")
    .option("--seed <n>", "chooses the greetings (a rerun greets the same way)", "1")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--out <file>", "write the output to a file instead of stdout")
    .option("--db <location>", "store location (default .dramaturg; memory:// keeps nothing)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "OPENAI_API_KEY=… dramaturg converse jobs/reminders.yml --user-model openai:gpt-4o-mini --judge openai:gpt-4o-mini --min-score 0.7",
        "dramaturg converse job.yml --target-url http://127.0.0.1:8081/v1 --user-model openai-compatible:llama3.1 --user-base-url http://127.0.0.1:11434/v1 --judge fixtures:verdicts.json",
      ),
    )
    .action(async (jobs: string[], flags: ConverseFlags) => {
      const [
        { runConversation, loadConversationJob },
        { createJudgeModel },
        { InputError },
        { resolveSettings },
      ] = await Promise.all([
        import("../../conversations/index.ts"),
        import("../../judge/index.ts"),
        import("../../core/index.ts"),
        import("../settings.ts"),
      ]);
      const minScore = flags.minScore === undefined ? undefined : Number(flags.minScore);
      if (minScore !== undefined && !(minScore >= -1 && minScore <= 1))
        throw new InputError(`--min-score must be a number from -1 to 1, got "${flags.minScore}"`);
      const seed = Number(flags.seed);
      if (!Number.isInteger(seed)) throw new InputError(`--seed must be a whole number, got "${flags.seed}"`);
      // Every job file is checked before anything runs: a mistake in the third stops the first too.
      const loaded = jobs.map((file) => ({ file, job: loadConversationJob(file) }));
      const userModel = createJudgeModel(flags.userModel, {
        baseUrl: flags.userBaseUrl,
        apiKeyEnv: flags.userApiKeyEnv,
      }).model;
      const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
        throw new InputError(`--concurrency must be a whole number from 1 to 64, got "${flags.concurrency}"`);
      // One store for every job: a PGlite folder is opened once, whatever the concurrency.
      const { openStore } = await import("../../store/index.ts");
      const store = await openStore(settings.db);
      const results: ConversationResult[] = new Array(loaded.length);
      // Live progress on a terminal: which job and pass is at which exchange.
      const live = process.stderr.isTTY === true && flags.progress !== false;
      let finished = 0;
      const draw = (text: string) => {
        if (live) process.stderr.write(`\r\x1b[2K${text}`);
      };
      try {
        let next = 0;
        const worker = async () => {
          while (next < loaded.length) {
            const i = next++;
            const { file, job } = loaded[i]!;
            results[i] = await runConversation(job, {
              userModel,
              judge: flags.judge,
              judgeSettings: { baseUrl: flags.judgeBaseUrl, apiKeyEnv: flags.judgeApiKeyEnv },
              targetUrl: flags.targetUrl,
              passes: flags.passes,
              seed,
              store,
              name: file,
              onTurn: (pass, turn, of) =>
                draw(
                  `jobs ${finished}/${loaded.length} · ${file} ${pass.replace("_", " ")}: exchange ${turn}/${of}`,
                ),
            });
            finished++;
            draw(`jobs ${finished}/${loaded.length}`);
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, loaded.length) }, worker));
      } finally {
        if (live) process.stderr.write("\r\x1b[2K");
        await store.close();
      }
      const text =
        flags.format === "json"
          ? `${JSON.stringify(results.length === 1 ? results[0] : { jobs: results }, null, 2)}\n`
          : `${renderConversationTable(results)}\n`;
      if (flags.out) {
        writeFileSync(flags.out, text);
        process.stderr.write(`wrote ${flags.out}\n`);
      } else process.stdout.write(text);
      if (minScore !== undefined && results.some((r) => (jobScore(r) ?? Number.NEGATIVE_INFINITY) < minScore))
        setExitCode(1);
    });
}
