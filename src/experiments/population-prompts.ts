// The factory's prompts and the structured answers it asks for: sampling dimensions, a sampling plan, and
// one persona per person. Answer schemas are what the provider enforces and zod checks; every field is
// required (null where absent), so the same schema works in providers' strict JSON-schema modes.
import { z } from "zod";
import { contentHash, escapeDelimiters } from "../core/index.ts";
import type { Characteristics } from "./population.ts";
import type { PopulationProfile, PopulationSegment } from "./population-profile.ts";

/**
 * A string with something in it. Checked here rather than as `minLength`, which providers' strict JSON-schema
 * modes do not all accept.
 */
const text = z.string().refine((s) => s.trim() !== "", { message: "a text that is not empty" });

const RangeAnswerSchema = z.object({ min: z.number(), max: z.number() });

export const DimensionsAnswerSchema = z
  .object({
    dimensions: z
      .array(
        z.object({
          name: text.describe("An attribute of one person: age, occupation, openness, religion…"),
          values: z
            .array(
              z.object({
                value: text.describe("A concrete, self-contained value"),
                share: z
                  .number()
                  .min(0)
                  .max(1)
                  .nullable()
                  .describe("Share of people with this value, when known; null otherwise"),
              }),
            )
            .describe("Categorical values; empty when the dimension is a numeric range"),
          range: RangeAnswerSchema.nullable().describe("A numeric range (age, income), or null"),
        }),
      )
      .min(1),
  })
  .superRefine((answer, ctx) => {
    const seen = new Set<string>();
    answer.dimensions.forEach((d, i) => {
      const key = d.name.trim().toLowerCase();
      if (seen.has(key))
        ctx.addIssue({
          code: "custom",
          path: ["dimensions", i, "name"],
          message: `duplicate dimension "${d.name}"`,
        });
      seen.add(key);
      if (d.values.length > 0 === (d.range !== null))
        ctx.addIssue({
          code: "custom",
          path: ["dimensions", i],
          message: "a dimension has either values or a range, exactly one",
        });
      if (d.range && d.range.min > d.range.max)
        ctx.addIssue({ code: "custom", path: ["dimensions", i, "range"], message: "min above max" });
    });
  });

export const PlanAnswerSchema = z
  .object({
    directives: z
      .array(
        z.object({
          subpopulation: text.describe("A short label a reader recognises"),
          quantity: z.number().int().min(0).describe("People to draw from this subpopulation"),
          values: z
            .array(
              z.object({
                dimension: text,
                options: z
                  .array(text)
                  .describe("One value, or several that all fit (one is drawn); empty when a range is given"),
                range: RangeAnswerSchema.nullable().describe("A numeric range to draw from, or null"),
              }),
            )
            .min(1),
        }),
      )
      .min(1),
  })
  .superRefine((answer, ctx) => {
    answer.directives.forEach((d, i) => {
      d.values.forEach((v, j) => {
        if (v.options.length > 0 === (v.range !== null))
          ctx.addIssue({
            code: "custom",
            path: ["directives", i, "values", j],
            message: "a value has either options or a range, exactly one",
          });
        if (v.range && v.range.min > v.range.max)
          ctx.addIssue({
            code: "custom",
            path: ["directives", i, "values", j, "range"],
            message: "min above max",
          });
      });
    });
  });

const LevelSchema = z.object({
  level: z.enum(["low", "medium", "high"]),
  note: text.describe("One sentence on how the trait shows"),
});

export const PersonaAnswerSchema = z.object({
  name: text.describe("A realistic full name"),
  age: z.number().int().min(0).max(120),
  gender: text,
  nationality: text,
  residence: text,
  education: text,
  occupation: z.object({
    title: text,
    organization: text,
    description: text.describe("What the work is like for them, in the second person"),
  }),
  personality: z.object({
    traits: z.array(text).min(1),
    big_five: z.object({
      openness: LevelSchema,
      conscientiousness: LevelSchema,
      extraversion: LevelSchema,
      agreeableness: LevelSchema,
      neuroticism: LevelSchema,
    }),
  }),
  style: text.describe("How they speak and write: register, mannerisms, favourite turns of phrase"),
  long_term_goals: z.array(text),
  preferences: z.object({
    interests: z.array(text),
    likes: z.array(text),
    dislikes: z.array(text),
  }),
  beliefs: z.array(text),
  skills: z.array(text),
  behaviors: z.array(text),
  health: text,
  relationships: z.array(z.object({ name: text, description: text })),
  other_facts: z.array(text),
});

export type DimensionsAnswer = z.output<typeof DimensionsAnswerSchema>;
export type PlanAnswer = z.output<typeof PlanAnswerSchema>;
export type PersonaAnswer = z.output<typeof PersonaAnswerSchema>;

/** Output names, as providers label structured answers. */
export const POPULATION_ANSWER_NAMES = {
  dimensions: "sampling_dimensions",
  plan: "sampling_plan",
  persona: "persona",
} as const;

const DIMENSIONS_SYSTEM = `You design the sampling space of a synthetic population for social simulations. From a description of a population, list the dimensions along which its people differ: attributes that each single person has.
- A dimension is an attribute of one person, never a statistic of the group ("age", not "average age").
- Categorical values are concrete and self-contained, preferably whole phrases ("rents a small flat and struggles with the rent"), not bare labels; numeric attributes (age, income) are a range.
- When the description states or implies proportions, give each value its share of people (the shares of one dimension add up to 1); otherwise the share is null.
- Cover both poles and the extremes: positive and negative traits, the advantaged and the struggling, the common and the rare.
- Besides what the description stresses, always include the Big Five personality traits, political beliefs, economic beliefs, financial situation, tastes and cultural background.
- Prefer many specific dimensions with many values to a few broad ones.`;

const PLAN_SYSTEM = `You plan how to sample a synthetic population. Given its description and its sampling dimensions, split it into complementary subpopulations that together approximate its real composition. For each subpopulation give:
- a short label a reader recognises ("retired rural homeowners with conservative views");
- its values on the dimensions, as many dimensions as apply: for each, either options copied in full from that dimension's values (several options mean any of them fits) or a numeric range within the dimension's range;
- how many people to draw from it, in proportion to its presumed share of the population (guess when unknown).
The quantities add up to exactly the requested number of people. Use as many subpopulations as the number allows, and mix positive and negative traits realistically.`;

const PERSONA_SYSTEM = `You write persona specifications for the people of a social simulation. Each person is realistic, specific and consistent: never a caricature or a stereotype, with flaws as well as strengths, opinions that may be unpopular, a concrete history and a voice of their own. Ordinary jobs are as welcome as unusual ones.`;

const PERSONA_RULES = `Write this person's persona. Honour every sampled characteristic and invent everything else to fit them; details may go beyond the population's description but never contradict it. Give a realistic full name that fits their gender, age and background, not a placeholder. Each Big Five level is low, medium or high, with one sentence on how it shows. Give at least 5 personality traits, 5 beliefs, 5 behaviours, 3 interests, likes and dislikes each, 3 skills, 2 long-term goals, 2 relationships and 3 other facts, all specific to this person.`;

/** Hash of every prompt sentence: a population records it, so a changed prompt is visible. */
export const POPULATION_PROMPT_VERSION = contentHash([
  DIMENSIONS_SYSTEM,
  PLAN_SYSTEM,
  PERSONA_SYSTEM,
  PERSONA_RULES,
]);

export interface StagePrompt {
  system: string;
  user: string;
}

function described(profile: PopulationProfile): string {
  return `The population:\n<description>\n${escapeDelimiters(profile.description)}\n</description>`;
}

function segmentLine(profile: PopulationProfile, segment: PopulationSegment): string[] {
  if (profile.segments.length === 1 && segment.description === undefined) return [];
  return [
    `This part of it, "${segment.name}"${segment.description ? `: ${escapeDelimiters(segment.description)}` : "."}`,
  ];
}

export function dimensionsPrompt(profile: PopulationProfile): StagePrompt {
  return {
    system: DIMENSIONS_SYSTEM,
    user: [described(profile), "List its sampling dimensions."].join("\n\n"),
  };
}

export function planPrompt(
  profile: PopulationProfile,
  segment: PopulationSegment,
  size: number,
  dimensions: DimensionsAnswer,
): StagePrompt {
  return {
    system: PLAN_SYSTEM,
    user: [
      described(profile),
      ...segmentLine(profile, segment),
      `Its sampling dimensions (JSON):\n${JSON.stringify(dimensions.dimensions)}`,
      `Plan a sample of exactly ${size} ${size === 1 ? "person" : "people"}.`,
    ].join("\n\n"),
  };
}

export function personaPrompt(
  profile: PopulationProfile,
  segment: PopulationSegment,
  person: { number: number; of: number; subpopulation: string; characteristics: Characteristics },
  takenNames: readonly string[] = [],
): StagePrompt {
  const lines = [
    described(profile),
    ...(profile.particularities
      ? [`What every person in it has in common: ${escapeDelimiters(profile.particularities)}`]
      : []),
    ...segmentLine(profile, segment),
    `Person ${person.number} of ${person.of}, from the subpopulation "${escapeDelimiters(person.subpopulation)}". Their sampled characteristics (JSON):\n${JSON.stringify(person.characteristics)}`,
    PERSONA_RULES,
  ];
  if (takenNames.length > 0)
    lines.push(
      `These names belong to other people of the population; choose another: ${takenNames.join("; ")}.`,
    );
  return { system: PERSONA_SYSTEM, user: lines.join("\n\n") };
}
