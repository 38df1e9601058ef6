// `dramaturg population generate PROFILE|FILE --size N --seed S --out DIR`: the population factory (sampling
// dimensions, a plan, one persona per person) writing a population folder; `--record`/`--replay` keep every
// model answer in a cassette. `dramaturg population check DIR` reads a folder as an experiment would.
import type { Command } from "commander";
import { InputError } from "../../core/index.ts";
import { setExitCode } from "../exit-code.ts";
import { wholeFlag } from "../flags.ts";
import { examples } from "../help-examples.ts";
import { checkOutputPaths } from "../output-paths.ts";

interface GenerateFlags {
  size?: string;
  seed?: string;
  out?: string;
  model?: string;
  modelBaseUrl?: string;
  modelApiKeyEnv?: string;
  fragment: string[];
  concurrency?: string;
  record?: string;
  replay?: string;
}

const PROFILES = "average-customers, difficult-customers, political-compass";

export function registerPopulationCommand(program: Command): void {
  const population = program
    .command("population")
    .description("generate populations of personas, and check population folders")
    .addHelpText(
      "after",
      examples(
        "dramaturg population generate average-customers --size 20 --seed 7 --out people/ --model openai:gpt-4o-mini --record people.cassette.json",
        "dramaturg population generate average-customers --size 20 --seed 7 --out people/ --replay people.cassette.json",
        "dramaturg population check people/",
      ),
    );
  population
    .command("generate")
    .description("generate a population: sampling dimensions, a plan, then one persona per person")
    .argument(
      "<profile>",
      `a built-in profile (${PROFILES}) or a profile file (dramaturg.population-profile/v1)`,
    )
    .option("--size <n>", "how many people (required)")
    .option("--seed <n>", "fixes the composition: what each person draws from the plan, and the order", "0")
    .option("--out <dir>", "the population folder to write: new or empty (required)")
    .option(
      "--model <spec>",
      "the model (openai:MODEL, anthropic:MODEL, openai-compatible:MODEL); not with --replay",
    )
    .option("--model-base-url <url>", "base URL of an OpenAI-compatible server for the model")
    .option("--model-api-key-env <var>", "environment variable holding the model's API key")
    .option(
      "--fragment <name|file>",
      "merge a persona fragment into every person (a built-in name or a dramaturg.persona-fragment/v1 file); repeatable",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option("--concurrency <n>", "model calls in flight at once (default 16)")
    .option("--record <file>", "record every model answer in this cassette")
    .option("--replay <file>", "answer every call from this cassette: no model is called")
    .addHelpText(
      "after",
      examples(
        "OPENAI_API_KEY=… dramaturg population generate political-compass --size 20 --seed 42 --out compass/ --model openai:gpt-4o-mini --record compass.cassette.json",
        "dramaturg population generate political-compass --size 20 --seed 42 --out compass/ --replay compass.cassette.json",
        "dramaturg population generate nurses.profile.yaml --size 8 --out nurses/ --model openai-compatible:llama3.1 --model-base-url http://127.0.0.1:11434/v1",
      ),
    )
    .action(async (profile: string, flags: GenerateFlags) => {
      setExitCode(await populationGenerateCommand(profile, flags));
    });
  population
    .command("check")
    .description("read a population folder and its manifest as an experiment would, and list its people")
    .argument("<dir>", "a population folder: one persona file per person, optionally _population.yaml")
    .addHelpText(
      "after",
      examples("dramaturg population check compass/", "dramaturg population check my-hand-written-people/"),
    )
    .action(async (dir: string) => {
      setExitCode(await populationCheckCommand(dir));
    });
}

export async function populationGenerateCommand(profileArg: string, flags: GenerateFlags): Promise<number> {
  checkOutputPaths({ "--record": flags.record }, { "--out": flags.out });
  const [
    { resolvePopulationProfile, resolvePersonaFragment },
    { generatePopulation, MAX_POPULATION_SIZE },
    { assertEmptyFolder, writePopulation },
    { Cassette, createJudgeModel },
  ] = await Promise.all([
    import("../../experiments/population-profile.ts"),
    import("../../experiments/population-factory.ts"),
    import("../../experiments/population.ts"),
    import("../../judge/index.ts"),
  ]);
  // Everything is read and checked before a model is called or a file written.
  const size = wholeFlag(flags.size, "--size", 1);
  if (size === undefined) throw new InputError("--size is required: how many people to generate");
  if (size > MAX_POPULATION_SIZE)
    throw new InputError(`expected at most ${MAX_POPULATION_SIZE} people, got ${size}`, { place: "--size" });
  const seed = Number(flags.seed ?? "0");
  if (!Number.isInteger(seed))
    throw new InputError(`expected a whole number, got "${flags.seed}"`, { place: "--seed" });
  const concurrency = wholeFlag(flags.concurrency, "--concurrency", 1);
  if (flags.out === undefined) throw new InputError("--out is required: the population folder to write");
  if (flags.record !== undefined && flags.replay !== undefined)
    throw new InputError("--record and --replay exclude each other: give one cassette");
  if (flags.replay !== undefined && flags.model !== undefined)
    throw new InputError("--replay answers every call from the cassette: leave out --model");
  const profile = resolvePopulationProfile(profileArg);
  const fragments = flags.fragment.map(resolvePersonaFragment);
  assertEmptyFolder(flags.out);
  const cassette =
    flags.replay !== undefined
      ? Cassette.replay(flags.replay)
      : flags.record !== undefined
        ? Cassette.record(flags.record)
        : undefined;
  if (flags.replay === undefined && flags.model === undefined)
    throw new InputError("--model is required (unless --replay gives every answer)");
  const built =
    flags.model !== undefined
      ? createJudgeModel(flags.model, {
          baseUrl: flags.modelBaseUrl,
          apiKeyEnv: flags.modelApiKeyEnv,
          probe: {
            role: "persona model",
            fix: "check that the server is running and the model's base URL (--model-base-url), then try again",
          },
        })
      : undefined;

  const progress = process.stderr.isTTY
    ? (done: number, total: number) =>
        process.stderr.write(`\rpersonas ${done}/${total}${done === total ? "\n" : ""}`)
    : undefined;
  const generated = await generatePopulation({
    profile,
    size,
    seed,
    fragments,
    cassette,
    ...(built ? { model: built.model, descriptor: built.descriptor, redact: built.redact } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(progress ? { onPersona: progress } : {}),
  });
  writePopulation(flags.out, generated.manifest, generated.people);
  cassette?.save();

  const { manifest } = generated;
  const model = manifest.model ? `${manifest.model.provider}:${manifest.model.model}` : "?";
  const lines = [
    `wrote ${generated.people.length} people to ${flags.out} (profile ${manifest.profile}, seed ${seed}, model ${model})`,
    `  ${manifest.dimensions?.length ?? 0} sampling dimensions`,
  ];
  for (const segment of manifest.segments ?? []) {
    const proposed = segment.plan.reduce((sum, d) => sum + d.proposed_quantity, 0);
    lines.push(
      `  ${segment.name}: ${segment.size} people from ${segment.plan.length} directives${proposed !== segment.size && segment.size > 0 ? ` (the model proposed ${proposed}; fitted to ${segment.size})` : ""}`,
    );
  }
  const tokens = generated.usage.input_tokens + generated.usage.output_tokens;
  lines.push(
    flags.replay !== undefined
      ? `  replayed ${generated.calls} answers from ${flags.replay}: no model called`
      : `  ${generated.calls} model calls, ${tokens} tokens`,
  );
  if (flags.record !== undefined) lines.push(`  recorded every answer in ${flags.record}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

export async function populationCheckCommand(dir: string): Promise<number> {
  const { loadPopulation } = await import("../../experiments/population.ts");
  const population = loadPopulation(dir);
  const { manifest, people } = population;
  const about = manifest
    ? `manifest ${manifest.profile ?? "hand-written"}${manifest.seed !== undefined ? `, seed ${manifest.seed}` : ""}`
    : "no manifest";
  const width = Math.max(...people.map((p) => p.id.length));
  const lines = [`${dir}: ${people.length} people (${about})`];
  for (const p of people) lines.push(`  ${p.id.padEnd(width)}  ${p.name}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
