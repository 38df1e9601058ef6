// `dramaturg baseline`: evaluate, mark the runs as baselines, and write one golden file per agent (plus
// `_environments.json` for the channels) that `dramaturg ci` compares against.
import type { Command } from "commander";
import { shownPath } from "../../core/index.ts";
import { readEnvironmentBaseline } from "../../regression/index.ts";
import { writeBaselineFiles } from "../baseline-files.ts";
import { addEvaluationOptions, type EvalFlags } from "../evaluation-options.ts";
import { setExitCode } from "../exit-code.ts";
import { ENSEMBLE_DEMO_ARGS, examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { evaluate, measure, setupEvaluation } from "../persona-evaluation.ts";

export interface BaselineFlags extends EvalFlags {
  out?: string;
}

export function registerBaselineCommand(program: Command): void {
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
        `dramaturg baseline ${ENSEMBLE_DEMO_ARGS} --out examples/ensemble/baselines`,
        "dramaturg baseline --agents ines,dov --trials 3",
      ),
    )
    .action(async (transcripts: string[], flags) => setExitCode(await baselineCommand(transcripts, flags)));
}

export async function baselineCommand(sources: string[], flags: BaselineFlags): Promise<number> {
  checkOutputPaths({}, { "--out": flags.out });
  const setup = setupEvaluation(sources, { ...flags, baselines: flags.out ?? flags.baselines });
  const dir = setup.settings.baselines;
  // An unreadable `_environments.json` is bad input: say so before judging anything.
  const previousEnvironments = readEnvironmentBaseline(dir);
  if (flags.dryRun) {
    await evaluate(setup, { dryRun: {} });
    return 0;
  }
  const measured = await measure(setup, { baseline: true });
  const { result } = measured;
  if (result.totals.verdicts === 0 && result.totals.errored > 0) {
    process.stderr.write("dramaturg: every verdict errored; no baseline written\n");
    return 3;
  }
  for (const line of writeBaselineFiles(measured, dir, previousEnvironments))
    process.stdout.write(`${line}\n`);
  if (result.totals.errored > 0)
    process.stderr.write(
      `warning: ${result.totals.errored} verdicts errored and are left out of these baselines; consider running again\n`,
    );
  for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
  process.stdout.write(
    `baseline runs marked in the store (evaluation ${result.evaluation_id.slice(0, 8)}); commit ${shownPath(dir)}/ so \`dramaturg ci\` can compare against it\n`,
  );
  return 0;
}
