// Scripted answers for the population factory's three model stages, deterministic functions of the prompt:
// as an AI SDK mock model for the library tests, and as a responder of the fake OpenAI server for the CLI's.
import { createHash } from "node:crypto";
import { MockLanguageModelV4 } from "ai/test";

const FIRST = [
  "Ana",
  "Bruno",
  "Carla",
  "Dmitri",
  "Efua",
  "Farid",
  "Greta",
  "Hiro",
  "Ines",
  "Jonas",
  "Kemi",
  "Lars",
];
const LAST = [
  "Silva",
  "Okafor",
  "Novak",
  "Tanaka",
  "Berg",
  "Haddad",
  "Moreau",
  "Quispe",
  "Larsen",
  "Adeyemi",
];

/** The dimensions every profile gets: a range, and categorical values with and without shares. */
export const SCRIPTED_DIMENSIONS = {
  dimensions: [
    { name: "age", values: [], range: { min: 18, max: 80 } },
    {
      name: "occupation",
      values: [
        { value: "nurse on night shifts", share: 0.3 },
        { value: "owner of a small hardware shop", share: 0.3 },
        { value: "retired bus driver", share: 0.4 },
      ],
      range: null,
    },
    {
      name: "openness",
      values: [
        { value: "low", share: null },
        { value: "high", share: null },
      ],
      range: null,
    },
  ],
};

/** A plan of three directives proposing 5 + 4 + 3 = 12 people, whatever size was asked: the factory fits it. */
export const SCRIPTED_PLAN = {
  directives: [
    {
      subpopulation: "cautious older workers",
      quantity: 5,
      values: [
        { dimension: "age", options: [], range: { min: 50, max: 64 } },
        { dimension: "occupation", options: ["nurse on night shifts", "retired bus driver"], range: null },
        { dimension: "openness", options: ["low"], range: null },
      ],
    },
    {
      subpopulation: "curious young shopkeepers",
      quantity: 4,
      values: [
        { dimension: "age", options: [], range: { min: 18, max: 30 } },
        { dimension: "occupation", options: ["owner of a small hardware shop"], range: null },
        { dimension: "openness", options: ["high"], range: null },
      ],
    },
    {
      subpopulation: "retirees",
      quantity: 3,
      values: [
        { dimension: "age", options: [], range: { min: 65, max: 80 } },
        { dimension: "occupation", options: ["retired bus driver"], range: null },
        { dimension: "openness", options: ["low", "high"], range: null },
      ],
    },
  ],
};

function hashOf(text: string): number {
  return createHash("sha256").update(text).digest().readUInt32BE(0);
}

export interface ScriptOptions {
  /** The name of a person, from the prompt; default a name fixed by the person's number and traits. */
  nameFor?: (prompt: string, person: number) => string;
  /** An answer to send instead of the scripted one, by output name and how many such calls came before. */
  instead?: (outputName: string | undefined, before: number) => Record<string, unknown> | undefined;
}

/** A persona answering the prompt: its name and age follow from the person's number and characteristics. */
export function scriptedPersona(prompt: string, { nameFor }: ScriptOptions = {}): Record<string, unknown> {
  const person = Number(/Person (\d+) of \d+/.exec(prompt)?.[1] ?? "0");
  const characteristics = JSON.parse(/characteristics \(JSON\):\n(.*)/.exec(prompt)?.[1] ?? "{}") as Record<
    string,
    unknown
  >;
  const h = hashOf(prompt.replace(/These names belong.*$/s, ""));
  const name = nameFor?.(prompt, person) ?? `${FIRST[person % FIRST.length]} ${LAST[h % LAST.length]}`;
  const level = (l: "low" | "medium" | "high") => ({ level: l, note: `Shows it ${l}ly.` });
  return {
    name,
    age: typeof characteristics.age === "number" ? characteristics.age : 40,
    gender: h % 2 === 0 ? "female" : "male",
    nationality: "American",
    residence: "Dayton, Ohio",
    education: "High school",
    occupation: {
      title: String(characteristics.occupation ?? "clerk"),
      organization: "Local employer",
      description: "You keep things running.",
    },
    personality: {
      traits: ["Patient", "Dry humour"],
      big_five: {
        openness: level(characteristics.openness === "high" ? "high" : "low"),
        conscientiousness: level("medium"),
        extraversion: level("medium"),
        agreeableness: level("high"),
        neuroticism: level("low"),
      },
    },
    style: "Short sentences.",
    long_term_goals: ["Retire near the lake"],
    preferences: { interests: ["Fishing"], likes: ["Coffee"], dislikes: ["Queues"] },
    beliefs: ["Hard work pays"],
    skills: ["Fixing engines"],
    behaviors: ["Arrives early"],
    health: "Good",
    relationships: [{ name: "Sam", description: "Neighbour" }],
    other_facts: [`Person ${person} of the scripted population`],
  };
}

/** The answer to one factory call, by its structured output's name and its user prompt. */
export function scriptedPopulationAnswer(
  outputName: string | undefined,
  prompt: string,
  options: ScriptOptions = {},
  before = 0,
): Record<string, unknown> {
  const instead = options.instead?.(outputName, before);
  if (instead) return instead;
  if (outputName === "sampling_dimensions") return SCRIPTED_DIMENSIONS;
  if (outputName === "sampling_plan") return SCRIPTED_PLAN;
  if (outputName === "persona") return scriptedPersona(prompt, options);
  throw new Error(`unexpected structured output "${outputName}"`);
}

export interface ScriptedPopulationModel extends MockLanguageModelV4 {
  /** User prompts in call order. */
  prompts: string[];
  /** Most calls in flight at once. */
  maxInFlight: number;
}

/**
 * A mock model answering the factory's calls. Each call waits a few ms (a hash of its prompt), so answers
 * arrive out of call order, as they would from a real model.
 */
export function scriptedPopulationModel(options: ScriptOptions = {}): ScriptedPopulationModel {
  const prompts: string[] = [];
  const callsByOutput = new Map<string | undefined, number>();
  let inFlight = 0;
  const model = new MockLanguageModelV4({
    provider: "scripted",
    modelId: "population-v1",
    doGenerate: async (call) => {
      const user = call.prompt
        .filter((m) => m.role === "user")
        .map((m) => (m.content as Array<{ type: string; text?: string }>).map((p) => p.text ?? "").join(""))
        .join("\n");
      prompts.push(user);
      inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, hashOf(user) % 7));
        const name = call.responseFormat?.type === "json" ? call.responseFormat.name : undefined;
        const before = callsByOutput.get(name) ?? 0;
        callsByOutput.set(name, before + 1);
        const text = JSON.stringify(scriptedPopulationAnswer(name, user, options, before));
        return {
          content: [{ type: "text", text }],
          finishReason: { unified: "stop", raw: undefined },
          usage: {
            inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 50, text: 50, reasoning: undefined },
          },
          warnings: [],
        };
      } finally {
        inFlight--;
      }
    },
  });
  const state = Object.assign(model, { prompts, maxInFlight: 0 });
  return state;
}
