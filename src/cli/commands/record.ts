// `dramaturg record`: judge once with a live model writing every verdict as fixtures, replay the file
// with the fixture judge, check both give identical scores, and print the commands CI should run.
import { resolve } from "node:path";
import type { Command } from "commander";
import { formatJudgeSpec, InputError, parseJudgeSpec, shownPath } from "../../core/index.ts";
import { measurementOf, replayDifferences } from "../../regression/index.ts";
import { addEvaluationOptions, type EvalFlags } from "../evaluation-options.ts";
import { setExitCode } from "../exit-code.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { measure, setupEvaluation } from "../persona-evaluation.ts";

export interface RecordFlags extends EvalFlags {
  out: string;
}

export function registerRecordCommand(program: Command): void {
  addEvaluationOptions(
    program
      .command("record")
      .description(
        "record once live, replay in CI: judge with a live model, save every verdict as fixtures, and check the replay gives identical scores",
      )
      .argument("[transcripts...]", "transcript files; default: the project's sources"),
  )
    .requiredOption("--out <file>", "judge-fixtures file to write (dramaturg.judge-fixtures/v1)")
    .addHelpText(
      "after",
      `${examples(
        "OPENAI_API_KEY=… dramaturg record chat.json --judge openai:gpt-4o-mini --out fixtures/judge.json",
        "dramaturg record chat.json --judge openai-compatible:qwen2.5 --judge-base-url http://localhost:11434/v1 --out fixtures/judge.json",
      )}
Record once live: a real model judges and every verdict is written to --out. Replay in CI: the
fixture judge (--judge fixtures:FILE) answers from that file, with no model calls and the same
scores every time. The command replays the file itself to prove the scores match, then prints the
\`dramaturg baseline\` and \`dramaturg ci\` commands to commit and run.
`,
    )
    .action(async (transcripts: string[], flags) => setExitCode(await recordCommand(transcripts, flags)));
}

/** The flags that change what is judged, to repeat them in the replay commands. */
function scopeFlags(flags: EvalFlags): string[] {
  const out: string[] = [];
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined) out.push(name, /[\s"'$]/.test(value) ? JSON.stringify(value) : value);
  };
  add("--propositions", flags.propositions);
  add("--dimensions", flags.dimensions);
  add("--agents", flags.agents);
  add("--agent", flags.agent);
  add("--mode", flags.mode);
  add("--trials", flags.trials);
  add("--sample", flags.sample);
  add("--seed", flags.seed);
  add("--window-start", flags.windowStart);
  add("--window-end", flags.windowEnd);
  if (flags.fromStore) out.push("--from-store");
  return out;
}

export async function recordCommand(sources: string[], flags: RecordFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out });
  const setup = setupEvaluation(sources, flags);
  if (setup.settings.judge.model && parseJudgeSpec(setup.settings.judge.model).kind === "fixtures") {
    throw new InputError(
      "record needs a live judge (openai:MODEL, anthropic:MODEL or openai-compatible:MODEL); the fixtures are what it writes",
      { place: "--judge" },
    );
  }
  const out = resolve(flags.out);
  const live = await measure(setup, { record: out });
  if (live.result.totals.verdicts === 0 && live.result.totals.errored > 0) {
    process.stderr.write("dramaturg: every verdict errored; nothing worth replaying was recorded\n");
    return 3;
  }
  const model = `${live.result.judge.provider}:${live.result.judge.model}`;
  process.stdout.write(`recorded ${live.result.totals.verdicts} verdicts of ${model} to ${shownPath(out)}\n`);
  if (live.result.totals.errored > 0)
    process.stderr.write(
      `warning: ${live.result.totals.errored} verdicts errored live; they are not in the fixtures and will error in the replay too\n`,
    );

  const replaySettings = {
    ...setup.settings,
    judge: { ...setup.settings.judge, model: formatJudgeSpec({ kind: "fixtures", file: out }) },
  };
  const replay = await measure({ ...setup, settings: replaySettings });
  const differences = replayDifferences(
    measurementOf(live, process.cwd()),
    measurementOf(replay, process.cwd()),
  );
  if (differences.length) {
    process.stdout.write(`the replay differs from the live run in ${differences.length} scores:\n`);
    for (const d of differences.slice(0, 20)) process.stdout.write(`  ${d}\n`);
    return 1;
  }
  const subjects = `${live.result.runs.length} agents, ${live.result.environments.length} channels`;
  process.stdout.write(`replayed with the fixture judge: identical scores (${subjects})\n\n`);
  const args = [
    ...sources.map((s) => shownPath(resolve(s))),
    ...scopeFlags(flags),
    "--judge",
    formatJudgeSpec({ kind: "fixtures", file: shownPath(out) }),
  ]
    .join(" ")
    .trim();
  process.stdout.write(
    [
      "Commit the fixtures, then in CI (no model calls, same scores every time):",
      `  dramaturg baseline ${args}`,
      `  dramaturg ci ${args}`,
      "",
    ].join("\n"),
  );
  return 0;
}
