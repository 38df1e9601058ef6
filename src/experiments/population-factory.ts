// The population factory, after TinyTroupe's TinyPersonFactory: from a profile, (1) the model lists the
// sampling dimensions, (2) plans each segment as subpopulation directives whose quantities are then fitted
// to sum exactly to the segment's size, (3) the plan is flattened into one set of characteristics per
// person, drawn and shuffled with the seed, and (4) the model writes one persona per person, in parallel
// under the concurrency limit. Names are made unique in population order, and fragments are merged last.
// Every answer can go through a cassette: a population recorded once is generated again, byte for byte,
// with no model at all.
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { LanguageModel } from "ai";
import { z } from "zod";
import {
  addUsage,
  DEFAULT_CONCURRENCY,
  InputError,
  seededRandom,
  type TokenUsage,
  ZERO_USAGE,
} from "../core/index.ts";
import { type Cassette, judgeOnModel, unreachableModel } from "../judge/index.ts";
import {
  type Characteristics,
  type PlanDirective,
  POPULATION_FORMAT,
  type PopulationManifest,
  personContentHash,
  personSlug,
  type SamplingDimension,
} from "./population.ts";
import {
  fragmentRecord,
  mergePersonaFragment,
  type PersonaFragment,
  type PopulationProfile,
  type PopulationSegment,
} from "./population-profile.ts";
import {
  type DimensionsAnswer,
  DimensionsAnswerSchema,
  dimensionsPrompt,
  type PersonaAnswer,
  PersonaAnswerSchema,
  type PlanAnswer,
  PlanAnswerSchema,
  POPULATION_ANSWER_NAMES,
  POPULATION_PROMPT_VERSION,
  personaPrompt,
  planPrompt,
  type StagePrompt,
} from "./population-prompts.ts";

/** Most people one population may have. */
export const MAX_POPULATION_SIZE = 10_000;

/** Times a person is written again when their name is taken, before the name gets a number. */
const RENAME_ATTEMPTS = 2;

/** The cassette tapes: the stages' answers, and who answered them (so a replay writes the same manifest). */
const POPULATION_TAPE = "population";
const MODEL_TAPE = "model";

const ModelDescriptorSchema = z
  .object({ provider: z.string().min(1), model: z.string().min(1), base_url: z.string().optional() })
  .strict();

export type ModelDescriptor = z.output<typeof ModelDescriptorSchema>;

export interface GeneratePopulationOptions {
  /** Who the people are: a built-in or loaded profile (`resolvePopulationProfile`). */
  profile: PopulationProfile;
  /** How many people, 1 to 10,000. */
  size: number;
  /** Fixes the composition: the options and values each person draws from the plan, and their order. Default 0. */
  seed?: number;
  /** The model that answers every stage; not needed when `cassette` replays. */
  model?: LanguageModel;
  /** Who the model is, for the manifest (never a key). Default: the model's own provider and id. */
  descriptor?: ModelDescriptor;
  /** Removes the model's key from error text (`createJudgeModel` gives one). */
  redact?: (text: string) => string;
  /** Records every answer, or replays them with no model (then the recorded model is the manifest's). */
  cassette?: Cassette;
  /** Fragments merged into every person after the profile's and the segment's. */
  fragments?: readonly PersonaFragment[];
  /** Model calls in flight at once. Default 16. */
  concurrency?: number;
  /** Retries of one call (transport failures, answers that do not fit the schema). Default 4. */
  retries?: number;
  /** Time limit of one model call, in ms. Default 60000. */
  timeoutMs?: number;
  /** Sampling temperature. Default: the provider's. */
  temperature?: number;
  signal?: AbortSignal;
  /** Called whenever a persona is written: how many so far, of how many. */
  onPersona?: (done: number, total: number) => void;
}

/** A person as the factory wrote them: a world's agent. */
export interface GeneratedPerson {
  id: string;
  name: string;
  persona: Record<string, unknown>;
}

export interface GeneratedPopulation {
  manifest: PopulationManifest;
  /** In population order (the seeded shuffle), as the manifest lists them. */
  people: GeneratedPerson[];
  /** Model calls made (retries included; replayed ones count as made). */
  calls: number;
  usage: TokenUsage;
}

/** One person's place in the plan, before their persona is written. */
interface Sample {
  segment: PopulationSegment;
  directive: number;
  subpopulation: string;
  characteristics: Characteristics;
}

/** Generates a population; nothing is written (see `writePopulation`). Model failures throw (exit code 3). */
export async function generatePopulation(options: GeneratePopulationOptions): Promise<GeneratedPopulation> {
  const { profile, size, seed = 0, cassette, signal } = options;
  if (!Number.isInteger(size) || size < 1 || size > MAX_POPULATION_SIZE)
    throw new InputError(`expected a population size from 1 to ${MAX_POPULATION_SIZE}, got ${size}`);
  if (!Number.isInteger(seed)) throw new InputError(`expected a whole number as the seed, got ${seed}`);
  const { model, descriptor } = await stageModel(options);
  const judge = judgeOnModel(
    model,
    {
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      retries: options.retries,
      timeoutMs: options.timeoutMs,
      temperature: options.temperature,
    },
    { descriptor, ...(options.redact ? { redact: options.redact } : {}) },
  );
  const spent = { calls: 0, usage: ZERO_USAGE };
  const ask = async <T>(prompt: StagePrompt, schema: z.ZodType<T>, name: string): Promise<T> => {
    const result = await judge.ask({
      system: prompt.system,
      messages: [{ role: "user", content: prompt.user }],
      schema,
      name,
      signal,
    });
    spent.calls += result.calls;
    spent.usage = addUsage(spent.usage, result.usage);
    return result.output;
  };

  try {
    const dimensions = await ask(
      dimensionsPrompt(profile),
      DimensionsAnswerSchema,
      POPULATION_ANSWER_NAMES.dimensions,
    );
    const sizes = apportion(
      profile.segments.map((s) => s.share),
      size,
    );
    const plans = await Promise.all(
      profile.segments.map((segment, i) =>
        sizes[i] === 0
          ? Promise.resolve<PlanAnswer>({ directives: [] })
          : ask(
              planPrompt(profile, segment, sizes[i]!, dimensions),
              PlanAnswerSchema,
              POPULATION_ANSWER_NAMES.plan,
            ),
      ),
    );
    const fitted = plans.map((plan, i) => fitPlan(plan, sizes[i]!));
    const samples = flatten(profile.segments, fitted, plans, seed);

    let done = 0;
    const personaOf = async (sample: Sample, index: number, taken: readonly string[] = []) => {
      const answer = await ask(
        personaPrompt(profile, sample.segment, { number: index + 1, of: samples.length, ...sample }, taken),
        PersonaAnswerSchema,
        POPULATION_ANSWER_NAMES.persona,
      );
      return { ...answer, name: answer.name.trim() };
    };
    const written = await Promise.all(
      samples.map(async (sample, i) => {
        const answer = await personaOf(sample, i);
        options.onPersona?.(++done, samples.length);
        return answer;
      }),
    );
    const named = await uniqueNames(written, (i, taken) => personaOf(samples[i]!, i, taken));

    const extra = options.fragments ?? [];
    const people = named.map((answer, i): GeneratedPerson => {
      const sample = samples[i]!;
      let persona: Record<string, unknown> = { ...answer };
      for (const fragment of [...profile.fragments, ...sample.segment.fragments, ...extra])
        persona = mergePersonaFragment(persona, fragment.persona);
      return { id: personSlug(answer.name), name: answer.name, persona };
    });

    const manifest: PopulationManifest = {
      format: POPULATION_FORMAT,
      profile: profile.name,
      description: profile.description,
      size,
      seed,
      model: descriptor,
      prompt_version: POPULATION_PROMPT_VERSION,
      fragments: [...profile.fragments, ...extra].map(fragmentRecord),
      dimensions: manifestDimensions(dimensions),
      segments: profile.segments.map((segment, i) => ({
        name: segment.name,
        size: sizes[i]!,
        ...(segment.description !== undefined ? { description: segment.description } : {}),
        fragments: segment.fragments.map(fragmentRecord),
        plan: fitted[i]!,
      })),
      people: people.map((person, i) => ({
        file: `${person.id}.yaml`,
        id: person.id,
        name: person.name,
        content_hash: personContentHash(person),
        segment: samples[i]!.segment.name,
        directive: samples[i]!.directive,
        characteristics: samples[i]!.characteristics,
      })),
    };
    return { manifest, people, calls: spent.calls, usage: spent.usage };
  } catch (error) {
    // A replay that misses says so, rather than as the judge's wrapped failure.
    throw cassette?.firstMiss ?? error;
  }
}

/**
 * `total` split in proportion to whole-number `weights`, summing to `total` exactly (largest remainders,
 * ties to the earlier). Exact integer arithmetic, so the split never depends on rounding. All-zero weights
 * count as equal.
 */
export function apportion(weights: readonly number[], total: number): number[] {
  if (weights.length === 0) return [];
  const w = weights.some((x) => x > 0)
    ? weights.map((x) => Math.max(0, Math.floor(x)))
    : weights.map(() => 1);
  const sum = w.reduce((a, b) => a + b, 0);
  const shares = w.map((x) => Math.floor((x * total) / sum));
  let left = total - shares.reduce((a, b) => a + b, 0);
  const order = w
    .map((x, i) => ({ i, remainder: (x * total) % sum }))
    .sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    shares[i]!++;
    left--;
  }
  return shares;
}

/** The plan as the manifest keeps it: directives numbered, quantities fitted to `size`. */
export function fitPlan(plan: PlanAnswer, size: number): PlanDirective[] {
  const quantities = apportion(
    plan.directives.map((d) => d.quantity),
    size,
  );
  return plan.directives.map((d, i) => ({
    id: i + 1,
    subpopulation: d.subpopulation,
    quantity: quantities[i]!,
    proposed_quantity: d.quantity,
    sampled_values: Object.fromEntries(
      d.values.map((v) => [
        v.dimension,
        v.range ? { min: v.range.min, max: v.range.max } : v.options.length === 1 ? v.options[0]! : v.options,
      ]),
    ),
  }));
}

/**
 * One sample per person: each directive's quantity of draws (an option among several, a value in a range),
 * segment by segment, then the whole list shuffled — all with the one seeded generator, so the seed fixes
 * the composition and the order.
 */
function flatten(
  segments: readonly PopulationSegment[],
  fitted: readonly PlanDirective[][],
  plans: readonly PlanAnswer[],
  seed: number,
): Sample[] {
  const random = seededRandom(seed);
  const samples: Sample[] = [];
  segments.forEach((segment, s) => {
    fitted[s]!.forEach((directive, d) => {
      const values = plans[s]!.directives[d]!.values;
      for (let n = 0; n < directive.quantity; n++)
        samples.push({
          segment,
          directive: directive.id,
          subpopulation: directive.subpopulation,
          characteristics: Object.fromEntries(values.map((v) => [v.dimension, draw(v, random)])),
        });
    });
  });
  for (let i = samples.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [samples[i], samples[j]] = [samples[j]!, samples[i]!];
  }
  return samples;
}

function draw(
  value: PlanAnswer["directives"][number]["values"][number],
  random: () => number,
): string | number {
  if (value.range) {
    const { min, max } = value.range;
    if (Number.isInteger(min) && Number.isInteger(max)) return min + Math.floor(random() * (max - min + 1));
    return Math.round((min + random() * (max - min)) * 100) / 100;
  }
  return value.options.length === 1
    ? value.options[0]!
    : value.options[Math.floor(random() * value.options.length)]!;
}

/**
 * Names unique by slug, settled in population order: a person whose name an earlier person has is written
 * again, told the names taken, up to twice; a name still taken then gets a number (`Ana Silva (2)`).
 * Sequential and in order, so the result, and every prompt, depends on nothing but the answers.
 */
async function uniqueNames(
  answers: readonly PersonaAnswer[],
  rewrite: (index: number, taken: readonly string[]) => Promise<PersonaAnswer>,
): Promise<PersonaAnswer[]> {
  const kept: PersonaAnswer[] = [];
  const taken = new Set<string>();
  for (const [i, first] of answers.entries()) {
    let answer = first;
    for (let attempt = 0; taken.has(personSlug(answer.name)) && attempt < RENAME_ATTEMPTS; attempt++) {
      const others = [...kept, ...answers.slice(i + 1)].map((a) => a.name);
      answer = await rewrite(i, [...new Set(others)]);
    }
    let name = answer.name;
    for (let n = 2; taken.has(personSlug(name)); n++) name = `${answer.name} (${n})`;
    taken.add(personSlug(name));
    kept.push(name === answer.name ? answer : { ...answer, name });
  }
  return kept;
}

function manifestDimensions(answer: DimensionsAnswer): SamplingDimension[] {
  return answer.dimensions.map((d) =>
    d.range
      ? { name: d.name, range: { min: d.range.min, max: d.range.max } }
      : {
          name: d.name,
          values: d.values.map((v) =>
            v.share === null ? { value: v.value } : { value: v.value, share: v.share },
          ),
        },
  );
}

/**
 * The model the stages run on, and who it is. Through a cassette, the descriptor is recorded on a tape of
 * its own (an answer to a fixed prompt), so that a replay, which has no model, writes the same manifest.
 */
async function stageModel(
  options: GeneratePopulationOptions,
): Promise<{ model: LanguageModel; descriptor: ModelDescriptor }> {
  const { cassette } = options;
  if (cassette?.mode === "replay") {
    const { wrapLanguageModel } = await import("ai");
    const descriptor = await replayDescriptor(cassette);
    const model = wrapLanguageModel({
      model: unreachableModel(descriptor.provider, descriptor.model),
      middleware: cassette.middleware(POPULATION_TAPE),
    });
    return { model, descriptor };
  }
  const { model } = options;
  if (model === undefined)
    throw new InputError("the population factory needs a model, except when it replays a cassette");
  const descriptor = options.descriptor ?? describe(model);
  if (!cassette) return { model, descriptor };
  if (typeof model === "string")
    throw new InputError(
      `a cassette records a model object, not the gateway id "${model}": pass the provider's model`,
    );
  const { wrapLanguageModel } = await import("ai");
  await recordDescriptor(cassette, descriptor);
  return {
    model: wrapLanguageModel({ model, middleware: cassette.middleware(POPULATION_TAPE) }),
    descriptor,
  };
}

function describe(model: LanguageModel): ModelDescriptor {
  return typeof model === "string"
    ? { provider: "gateway", model }
    : { provider: model.provider, model: model.modelId };
}

const DESCRIPTOR_PROMPT = "Which model answered the population factory's calls?";

async function descriptorCall(cassette: Cassette, inner: LanguageModelV4): Promise<string> {
  const { wrapLanguageModel } = await import("ai");
  const model = wrapLanguageModel({ model: inner, middleware: cassette.middleware(MODEL_TAPE) });
  const result = await model.doGenerate({ prompt: [{ role: "system", content: DESCRIPTOR_PROMPT }] });
  return result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}

async function recordDescriptor(cassette: Cassette, descriptor: ModelDescriptor): Promise<void> {
  const text = JSON.stringify(descriptor);
  const self: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: descriptor.provider,
    modelId: descriptor.model,
    supportedUrls: {},
    doGenerate: async () => ({
      content: [{ type: "text", text }],
      finishReason: { unified: "stop", raw: undefined },
      usage: {
        inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 0, text: 0, reasoning: undefined },
      },
      warnings: [],
    }),
    doStream: () => Promise.reject(new Error("the descriptor is never streamed")),
  };
  await descriptorCall(cassette, self);
}

async function replayDescriptor(cassette: Cassette): Promise<ModelDescriptor> {
  const notRecorded = () =>
    new InputError(
      "no population recorded here; expected a cassette written by dramaturg population generate --record",
      { file: cassette.file },
    );
  let text: string;
  try {
    text = await descriptorCall(cassette, unreachableModel("cassette", "population"));
  } catch {
    throw notRecorded();
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw notRecorded();
  }
  const parsed = ModelDescriptorSchema.safeParse(value);
  if (!parsed.success) throw notRecorded();
  return parsed.data;
}
