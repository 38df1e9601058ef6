// Registers the regression-harness commands (baseline, ci, record, history) and the baseline formats'
// schemas, so program.ts needs one import and one line for all of them.
import { type Command, Option } from "commander";
import { examples, setExitCode } from "../program.ts";
import { baselineCommand } from "./baseline.ts";
import { ciCommand } from "./ci.ts";
import { addEvaluationOptions } from "./eval.ts";
import { historyCommand } from "./history.ts";
import { recordCommand } from "./record.ts";

// A re-export, not a definition: program.ts reads it while this module may still be loading (import cycle).
export { BASELINE_JSON_SCHEMAS as HARNESS_SCHEMAS } from "../../harness/index.ts";

const DEMO =
  "examples/ensemble/transcript.json --propositions examples/ensemble/propositions --judge fixtures:examples/ensemble/judge-fixtures.json";

export function registerHarnessCommands(program: Command): void {
  addEvaluationOptions(
    program
      .command("baseline")
      .description(
        "evaluate and write golden baselines: one <agent_id>.json per agent and _environments.json per channel",
      )
      .argument("[transcripts...]", "transcript files; default: the project's sources"),
  )
    .option("--out <dir>", "baselines folder (default: baselines in dramaturg.yaml, else ./baselines)")
    .addHelpText(
      "after",
      examples(
        "dramaturg baseline",
        `dramaturg baseline ${DEMO} --out examples/ensemble/baselines`,
        "dramaturg baseline --agents ines,dov --trials 3",
      ),
    )
    .action(async (transcripts: string[], flags) => setExitCode(await baselineCommand(transcripts, flags)));

  addEvaluationOptions(
    program
      .command("ci")
      .description(
        "evaluate the agents that have baselines and fail (exit 1) when a dimension fell more than the threshold",
      )
      .argument("[transcripts...]", "transcript files; default: the project's sources"),
  )
    .option("--baselines <dir>", "baselines folder (default: baselines in dramaturg.yaml, else ./baselines)")
    .option("--threshold <points>", "a drop of more than this many points is a regression (default 1.0)")
    .option("--markdown <file>", "write a pull-request comment (Markdown) here")
    .option("--junit <file>", "write JUnit XML here (one test case per agent × dimension)")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .addHelpText(
      "after",
      `${examples(
        "dramaturg ci",
        `dramaturg ci ${DEMO} --baselines examples/ensemble/baselines --markdown persona-check.md --junit persona-check.xml`,
        "dramaturg ci --trials 3 --threshold 1.5 --format json",
      )}
A stale baseline (persona, propositions or judge changed) is reported, not compared, and does not fail.
With --trials N a drop fails only when every trial is below baseline − threshold.
Exit codes: 0 no regression · 1 regression · 2 bad input or baselines · 3 could not complete
`,
    )
    .action(async (transcripts: string[], flags) => setExitCode(await ciCommand(transcripts, flags)));

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

  program
    .command("history")
    .description("an agent's scores over its stored runs: sparkline and table, or JSON")
    .requiredOption("--agent <id>", "the agent")
    .option("--dimension <dimension>", "adherence, consistency or fluency (default: the overall score)")
    .addOption(new Option("--format <format>", "output format").choices(["table", "json"]).default("table"))
    .option("--limit <n>", "the last N runs", "30")
    .option("--db <location>", "store location (default .dramaturg)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg history --agent dov",
        "dramaturg history --agent ines --dimension adherence --format json",
      ),
    )
    .action(async (flags) => setExitCode(await historyCommand(flags)));
}
