// `dramaturg simulate WORLD.yml`: runs a world of persona agents, writes its transcript and stores the run as
// a `simulation` evaluation (its messages, gate checks and result), which `simulations` lists and `show` reprints.
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { renderSimulation } from "../../sim/simulation-report.ts";
import { setExitCode } from "../exit-code.ts";
import { addModelServerOptions, type ModelServerFlags, wholeFlag } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";
import { registerStoredList } from "../stored-list.ts";

interface SimulateFlags extends ModelServerFlags {
  steps?: string;
  out?: string;
}

export function registerSimulateCommand(program: Command): void {
  registerStoredList(program, {
    name: "simulations",
    description: "list stored world simulations, newest first",
    noun: "simulations",
    key: "simulations",
    kind: async () => (await import("../../sim/index.ts")).simulationKind,
  });
  addModelServerOptions(
    program
      .command("simulate")
      .description("run a world of persona agents (dramaturg.world/v1), print its transcript and store it")
      .argument("<world>", "world file (YAML; `dramaturg schema world`)")
      .option(
        "--model <spec>",
        "the agents' model (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL); default: the world's",
      ),
  )
    .option(
      "--judge <spec>",
      "judges the action gate and intervention preconditions (a model spec, or fixtures:FILE)",
    )
    .option("--judge-base-url <url>", "base URL of an OpenAI-compatible server for the judge")
    .option("--judge-api-key-env <var>", "environment variable holding the judge's API key")
    .option("--steps <n>", "steps to run (default: the world's)")
    .option("--seed <n>", "seed of the sequential_random order (default: the world's)")
    .option("--out <file>", "write the transcript (JSON) here instead of stdout")
    .option("--db <location>", "store location (default .dramaturg; memory:// keeps nothing)")
    .option("--config <file>", "project file to use")
    .addHelpText(
      "after",
      examples(
        "OPENAI_API_KEY=… dramaturg simulate examples/worlds/harbour.yml --model openai:gpt-4o-mini --judge openai:gpt-4o-mini --out harbour.json",
        "dramaturg simulate world.yml --model openai-compatible:llama3.1 --model-base-url http://127.0.0.1:11434/v1 --steps 3",
      ),
    )
    .action(async (world: string, flags: SimulateFlags) => {
      setExitCode(await simulateCommand(world, flags));
    });
}

export async function simulateCommand(worldPath: string, flags: SimulateFlags): Promise<number> {
  checkOutputPaths({ "--out": flags.out });
  const [{ loadWorldFile }, corrections, { createJudge }, { resolveSettings }, { openStore, storeExists }] =
    await Promise.all([
      import("../../sim/index.ts"),
      import("../../corrections/index.ts"),
      import("../../judge/index.ts"),
      import("../settings.ts"),
      import("../../store/index.ts"),
    ]);
  // Everything is read and checked before a new store is created or a model is called.
  const loaded = loadWorldFile(worldPath);
  const steps = wholeFlag(flags.steps, "--steps", 1);
  const seed = wholeFlag(flags.seed, "--seed", 0);
  const { settings } = resolveSettings({ flags: { db: flags.db }, projectFile: flags.config });
  // An existing store's agent settings win, so it is opened first; a new one only once the input is good.
  let store = storeExists(settings.db) ? await openStore(settings.db) : undefined;
  try {
    const world = await corrections.resolveWorldCorrections(loaded, {
      store,
      project: settings.corrections,
    });
    const judge = flags.judge
      ? createJudge(flags.judge, { baseUrl: flags.judgeBaseUrl, apiKeyEnv: flags.judgeApiKeyEnv })
      : undefined;
    try {
      corrections.requireWorldJudge(world, judge);
      store ??= await openStore(settings.db);
      const run = await corrections.runSimulation(loaded, {
        store,
        source: worldPath,
        projectCorrections: settings.corrections,
        model: flags.model,
        modelSettings: { baseUrl: flags.modelBaseUrl, apiKeyEnv: flags.modelApiKeyEnv },
        judge,
        steps,
        seed,
      });
      const text = `${JSON.stringify(run.transcript, null, 2)}\n`;
      if (flags.out) writeFileSync(flags.out, text);
      else process.stdout.write(text);
      process.stderr.write(renderSimulation({ ...run.document, evaluation_id: run.evaluation_id }));
      process.stderr.write(
        `${flags.out ? `wrote ${flags.out}; ` : ""}stored in ${store.location} (dramaturg show ${run.evaluation_id.slice(0, 8)})\n`,
      );
      return 0;
    } finally {
      await judge?.close?.();
    }
  } finally {
    await store?.close();
  }
}
