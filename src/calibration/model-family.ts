// Model families, for the self-preference warning: a judge tends to favour text written by a model of its
// own family, so a calibration whose judge shares the evaluated agents' family says so.

/** Model-name prefixes of each family, matched on the model id without provider or path (`llama3.1:8b`). */
const FAMILIES: readonly [RegExp, string][] = [
  [/^(gpt|chatgpt|o[1-9]\b|o[1-9]-|text-davinci)/, "OpenAI GPT"],
  [/^claude/, "Anthropic Claude"],
  [/^(gemini|gemma)/, "Google Gemini/Gemma"],
  [/^(llama|codellama)/, "Meta Llama"],
  [/^(mistral|mixtral|ministral|codestral|magistral|devstral)/, "Mistral"],
  [/^(qwen|qwq)/, "Qwen"],
  [/^deepseek/, "DeepSeek"],
  [/^phi/, "Microsoft Phi"],
  [/^(command|aya)/, "Cohere Command"],
  [/^grok/, "xAI Grok"],
];

/** Providers a spec may start with (`openai:gpt-4o-mini`), dropped before the family is looked up. */
const PROVIDER_PREFIX = /^(openai-compatible|openai|anthropic|ollama|vllm|google|mistral|groq):/;

/**
 * The family of a model (`"openai:gpt-4o-mini"`, `"gpt-4o-mini"`, `"meta-llama/Llama-3.1-8B-Instruct"`,
 * `"llama3.1:8b"`), or undefined when it is not one we know (a fixture judge, a private model).
 */
export function modelFamily(model: string): string | undefined {
  const id = model.trim().toLowerCase().replace(PROVIDER_PREFIX, "");
  const name = id.slice(id.lastIndexOf("/") + 1);
  return FAMILIES.find(([pattern]) => pattern.test(name))?.[1];
}

/**
 * The self-preference warning of a judge over agents whose models are known, or undefined when none shares
 * the judge's family.
 */
export function selfPreferenceWarning(
  judge: { provider: string; model: string } | null,
  agents: readonly { id: string; model?: string }[],
): string | undefined {
  if (!judge) return undefined;
  const family = modelFamily(judge.model);
  if (!family) return undefined;
  const same = agents.filter((a) => a.model !== undefined && modelFamily(a.model) === family);
  if (same.length === 0) return undefined;
  return `self-preference: the judge (${judge.provider}:${judge.model}) is of the ${family} family, like the model of ${same
    .map((a) => `${a.id} (${a.model})`)
    .join(", ")}; a judge tends to favour its own family's text, so compare with a judge of another family`;
}
