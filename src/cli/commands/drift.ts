// `dramaturg drift`: persona drift turn by turn (the library's runDrift). A conversation of N turns per
// persona, probe instruction and seed; after turns 2, 4, … a probe is asked in a fork of it and its answer
// checked. Prints stability per turn per persona with its interval and the first turn under --bar; exit 1
// when --min-stability is given and a probed turn is under it, 2 bad input, 3 the target could not answer.
import { type Command, Option } from "commander";
import type { DriftFlags } from "../drift-settings.ts";
import { setExitCode } from "../exit-code.ts";
import { addModelServerOptions } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { emitStored, runStored } from "../stored-run.ts";
import { addTargetOptions } from "../target-flags.ts";

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerDriftCommand(program: Command): void {
  const command = program
    .command("drift")
    .description(
      "persona drift turn by turn: forked probes along a self-chat or a simulated user, stability per turn",
    )
    .option(
      "--persona <file>",
      "a persona (id, name, persona) or a world or transcript file: its agents (repeatable)",
      collect,
    )
    .option(
      "--agent <id>",
      "only this persona of the files; without --persona, a stored agent (repeatable)",
      collect,
    );
  addTargetOptions(command, {
    targetUrl: "the agent under test: its OpenAI-compatible endpoint (…/v1), asked over the whole history",
    userModel:
      "the simulated user's model, with --partner user (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL)",
  })
    .option("--target-model <name>", "with --target-url: the model name sent to the agent (default agent)")
    .option(
      "--model <spec>",
      "the target as a model instead of an agent (openai:MODEL, openai-compatible:MODEL…)",
    );
  addModelServerOptions(command)
    .addOption(
      new Option("--partner <who>", "the other side: the same persona (self-chat) or a simulated user")
        .choices(["self", "user"])
        .default("self"),
    )
    .option(
      "--judge <spec>",
      "checks the probes written as judge propositions (a model spec, or fixtures:FILE)",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the judge")
    .option("--judge-api-key-env <name>", "environment variable that holds the judge's API key")
    .option("--turns <n>", "turns of each conversation; probes after turns 2, 4, … up to it", "16")
    .option(
      "--seeds <k>",
      "conversations per persona and probe instruction, seeds --seed … --seed + k − 1",
      "3",
    )
    .option("--seed <n>", "the first seed", "1")
    .option("--probes <file>", "probes in YAML (`dramaturg schema drift-probes`; default: the built-in 23)")
    .option(
      "--bar <x>",
      "stability under which a turn counts as drifted: the first such turn is reported",
      "0.8",
    )
    .option("--min-stability <x>", "exit 1 when a persona's stability at a probed turn is under this")
    .option("--concurrency <n>", "conversations under way at once", "4")
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "markdown", "json"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .option(
      "--db <location>",
      "store location: the run is kept there, and --agent reads agents from it (default .dramaturg; memory:// keeps nothing)",
    )
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "dramaturg drift --persona persona.yml --target-url http://127.0.0.1:8081/v1 --turns 16 --seeds 3",
        "OPENAI_API_KEY=… dramaturg drift --persona examples/worlds/office-brainstorm.yml --agent jim --model openai:gpt-4o-mini --min-stability 0.7",
        "dramaturg drift --agent ines --model openai:gpt-4o-mini --partner user --user-model openai:gpt-4o-mini --format json",
      ),
    )
    .action(async (flags: DriftFlags) => {
      setExitCode(await driftCommand(flags));
    });
}

export async function driftCommand(flags: DriftFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out });
  const [{ driftSetup }, redteam] = await Promise.all([
    import("../drift-settings.ts"),
    import("../../redteam/index.ts"),
  ]);
  const { options, minStability, judge, db, source, exportRules } = await driftSetup(flags);
  const { result, location } = await runStored(db, "conversations", judge, (store, onProgress) =>
    redteam.runStoredDrift({ ...options, store, source, onProgress }),
  );
  const { evaluation_id: id, ...document } = result;
  const text =
    flags.format === "json"
      ? `${JSON.stringify(redteam.DriftResultSchema.parse(document), null, 2)}\n`
      : flags.format === "markdown"
        ? redteam.renderDriftMarkdown(document)
        : redteam.renderDriftTable(document);
  emitStored(text, flags.out, location, id);
  const { exportAfterRun } = await import("../score-export.ts");
  const exported = await exportAfterRun(exportRules, { command: "drift", db, evaluationIds: [id] });
  if (minStability === undefined) return exported;
  const under = result.personas.flatMap((persona) =>
    persona.curve
      .filter((p) => p.checked > 0 && p.passed < minStability * p.checked)
      .map((p) => `${persona.name} at turn ${p.turn} (${p.stability!.toFixed(2)})`),
  );
  if (under.length === 0) return exported;
  process.stderr.write(`dramaturg: stability under ${minStability}: ${under.join(", ")}\n`);
  return 1;
}
