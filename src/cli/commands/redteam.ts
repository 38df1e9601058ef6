// `dramaturg redteam`: a persona red team (the library's runRedteam). Each of the seven strategies attacks the
// target N times, the attacker rewinding refused turns; each reply is scored on the persona's adherence
// propositions and the first under --threshold breaks the character. Prints success rate and turns to break
// per strategy, with and without the corrections gate (--corrections); exit 1 when --min-robustness is given
// and the plain target's robustness (1 − success rate) is under it, or with --fail-on-simulator-fault when an
// attacker broke its brief (each attacker is checked as a simulated user; --no-simulator-check skips it), 2 bad
// input, 3 a model could not answer.
import { writeFileSync } from "node:fs";
import { type Command, Option } from "commander";
import { setExitCode } from "../exit-code.ts";
import { addModelServerOptions } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { REDTEAM_DEFAULTS, type RedteamFlags } from "../redteam-settings.ts";
import { emitStored, runStored } from "../stored-run.ts";

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerRedteamCommand(program: Command): void {
  const command = program
    .command("redteam")
    .description(
      "a persona red team: seven attack strategies with backtracking, success rate and turns to break, with and without the gate",
    )
    .option(
      "--persona <file>",
      "a persona (id, name, persona) or a world or transcript file (repeatable)",
      collect,
    )
    .option("--agent <id>", "the persona of the files to attack; without --persona, a stored agent", collect)
    .option(
      "--target-url <url>",
      "the agent under test: its OpenAI-compatible endpoint (…/v1), sent the whole history",
    )
    .option("--target-model <name>", "with --target-url: the model name sent to the agent (default agent)")
    .option(
      "--model <spec>",
      "the target as a model instead of an agent (openai:MODEL, openai-compatible:MODEL…)",
    );
  addModelServerOptions(command)
    .option(
      "--attacker <spec>",
      "the attacker: scripted (each strategy's own messages, refusals by rule) or a model spec",
      REDTEAM_DEFAULTS.attacker,
    )
    .option("--attacker-base-url <url>", "base URL of an OpenAI-compatible server for the attacker")
    .option("--attacker-api-key-env <name>", "environment variable that holds the attacker's API key")
    .option(
      "--judge <spec>",
      "scores each reply on the adherence propositions (a model spec, or fixtures:FILE)",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the judge")
    .option("--judge-api-key-env <name>", "environment variable that holds the judge's API key")
    .option("--strategy <id>", "only this strategy (repeatable; default all seven)", collect)
    .option("--attacks <n>", "attacks per strategy, seeds --seed … --seed + n − 1", REDTEAM_DEFAULTS.attacks)
    .option("--turns <n>", "turns an attack may reach in the target's history", REDTEAM_DEFAULTS.turns)
    .option(
      "--calls <n>",
      "calls to the target an attack may make, rewound ones included (default 2 × --turns)",
    )
    .option("--seed <n>", "the first seed", REDTEAM_DEFAULTS.seed)
    .option(
      "--threshold <x>",
      "adherence (0–9) under which a reply breaks the character",
      REDTEAM_DEFAULTS.threshold,
    )
    .option(
      "--corrections <file>",
      "also attack the target behind the action gate with these corrections settings (YAML: gate_adherence_enabled…)",
    )
    .option(
      "--min-robustness <x>",
      "exit 1 when the share of attacks that did not break the character is under this",
    )
    .option(
      "--fail-on-simulator-fault",
      "exit 1 when an attacker broke its brief (a simulator fault, left out of the scores)",
    )
    .option(
      "--no-simulator-check",
      "do not judge the attacker's own messages (saves one judge request per attack; no simulator faults are found)",
    )
    .option(
      "--simulator-propositions <file>",
      "propositions about the attacker to check it on (YAML, converse's format; default: the built-in set)",
    )
    .option("--concurrency <n>", "attacks under way at once", REDTEAM_DEFAULTS.concurrency)
    .option(
      "--resume",
      "continue the latest red-team run that did not complete (the same flags), running only the attacks it lacks",
    )
    .addOption(
      new Option("--format <format>", "output format")
        .choices(["table", "markdown", "json"])
        .default("table"),
    )
    .option("--out <file>", "write the output to a file instead of stdout")
    .option(
      "--junit <file>",
      "also write JUnit XML here: a test case per arm × strategy and one for the robustness, failing as the exit code does",
    )
    .option(
      "--db <location>",
      "store location: the run is kept there, and --agent reads agents from it (default .dramaturg; memory:// keeps nothing)",
    )
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "npm run demo:redteam",
        "OPENAI_API_KEY=… dramaturg redteam --persona persona.yml --target-url http://127.0.0.1:8081/v1 --attacker openai:gpt-4o-mini --judge openai:gpt-4o-mini",
        "dramaturg redteam --agent jim --model openai:gpt-4o-mini --judge openai:gpt-4o-mini --corrections gate.yml --min-robustness 0.8",
      ),
    )
    .action(async (flags: RedteamFlags) => {
      setExitCode(await redteamCommand(flags));
    });
}

export async function redteamCommand(flags: RedteamFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out, "--junit": flags.junit });
  const [{ redteamSetup }, redteam] = await Promise.all([
    import("../redteam-settings.ts"),
    import("../../redteam/index.ts"),
  ]);
  const { options, minRobustness, judge, db, source, exportRules } = await redteamSetup(flags);
  const { result, location } = await runStored(db, "attacks", judge, (store, onProgress) =>
    redteam.runStoredRedteam({ ...options, store, source, resume: flags.resume === true, onProgress }),
  );
  const { evaluation_id: id, ...document } = result;
  const text =
    flags.format === "json"
      ? `${JSON.stringify(redteam.RedteamResultSchema.parse(document), null, 2)}\n`
      : flags.format === "markdown"
        ? redteam.renderRedteamMarkdown(document)
        : redteam.renderRedteamTable(document);
  emitStored(text, flags.out, location, id);
  if (flags.junit) {
    writeFileSync(flags.junit, redteam.renderRedteamJunit(document, { minRobustness }));
    process.stderr.write(`wrote ${flags.junit}\n`);
  }
  const { exportAfterRun } = await import("../score-export.ts");
  // An export that could not complete (3) stands unless the check itself failed (1).
  let code = await exportAfterRun(exportRules, { command: "redteam", db, evaluationIds: [id] });
  const shortfall = redteam.robustnessShortfall(document, minRobustness);
  if (shortfall !== undefined) {
    process.stderr.write(`dramaturg: ${shortfall}\n`);
    code = 1;
  }
  const faults = document.simulated_user?.faults ?? 0;
  if (flags.failOnSimulatorFault && faults > 0) {
    process.stderr.write(
      `dramaturg: ${faults} attack${faults === 1 ? "" : "s"} left out: the attacker broke its brief (a simulator fault)\n`,
    );
    code = 1;
  }
  return code;
}
