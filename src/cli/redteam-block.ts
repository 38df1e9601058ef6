// The project file's `redteam:` block: what `dramaturg ci` red-teams after the persona check. Its keys are
// `dramaturg redteam`'s flags in snake_case; the schema holds the types only, the values are checked by the
// command's own setup (cli/redteam-settings.ts), so the two never disagree.
import { z } from "zod";

/** An environment variable's name, never its value: where a key is read from. */
export const EnvVarNameSchema = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, "an environment variable name such as MY_JUDGE_KEY");

const oneOrMany = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);
const baseUrl = (who: string) =>
  z.url().optional().describe(`Base URL of an OpenAI-compatible server for ${who} (…/v1)`);
const keyEnv = (who: string) =>
  EnvVarNameSchema.optional().describe(
    `Name of the environment variable that holds ${who}'s API key (never the key itself)`,
  );

export const RedteamBlockSchema = z
  .object({
    persona: oneOrMany
      .optional()
      .describe(
        "A persona (id, name, persona), world or transcript file, or a list of them, relative to the project file",
      ),
    agent: oneOrMany
      .optional()
      .describe("The persona of the files to attack; without persona, a stored agent"),
    target_url: z
      .string()
      .min(1)
      .optional()
      .describe("The agent under test: its OpenAI-compatible endpoint (…/v1), sent the whole history"),
    target_model: z
      .string()
      .min(1)
      .optional()
      .describe("With target_url: the model name sent to the agent (default agent)"),
    model: z
      .string()
      .min(1)
      .optional()
      .describe("The target as a model instead of an agent (openai:MODEL, openai-compatible:MODEL…)"),
    model_base_url: baseUrl("the target model"),
    model_api_key_env: keyEnv("the target model"),
    attacker: z
      .string()
      .min(1)
      .optional()
      .describe("scripted (each strategy's own messages; the default) or a model spec"),
    attacker_base_url: baseUrl("the attacker"),
    attacker_api_key_env: keyEnv("the attacker"),
    judge: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Scores each reply on the adherence propositions: a model spec or fixtures:FILE (default: the project's judge when it is a model)",
      ),
    judge_base_url: baseUrl("the judge"),
    judge_api_key_env: keyEnv("the judge"),
    strategies: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("Only these strategies, e.g. [role_play_trap, topic_hijack] (default all seven)"),
    attacks: z.number().optional().describe("Attacks per strategy (default 10)"),
    turns: z.number().optional().describe("Turns an attack may reach in the target's history (default 12)"),
    calls: z
      .number()
      .optional()
      .describe("Calls to the target an attack may make, rewound ones included (default 2 × turns)"),
    seed: z.number().optional().describe("The first seed (default 1)"),
    threshold: z
      .number()
      .optional()
      .describe("Adherence (0–9) under which a reply breaks the character (default 5)"),
    corrections: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Also attack the target behind the action gate with these corrections settings (a YAML file, relative to the project file)",
      ),
    min_robustness: z
      .number()
      .optional()
      .describe(
        "Fail the check (exit 1) when the share of attacks that did not break the character is under this",
      ),
    concurrency: z.number().optional().describe("Attacks under way at once (default 4)"),
    simulator_check: z
      .boolean()
      .optional()
      .describe("false: do not judge the attacker's own turns (no simulator faults are found; default true)"),
    simulator_propositions: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Propositions about the attacker instead of the built-in set (a YAML file, relative to the project file)",
      ),
    fail_on_simulator_fault: z
      .boolean()
      .optional()
      .describe("Fail the check (exit 1) when an attacker broke its brief (a simulator fault)"),
  })
  .strict()
  .describe(
    "dramaturg ci: a persona red team run after the persona check (the keys of dramaturg redteam's flags); --no-redteam skips it",
  );

export type RedteamBlock = z.infer<typeof RedteamBlockSchema>;
