// Prices (USD per million tokens) for the cost line of a dry run. A small built-in table that the
// project file's `prices` extends or overrides; unknown models show tokens without a cost.

import { formatJudgeSpec, parseJudgeSpec } from "../core/index.ts";

export interface Price {
  input_per_million: number;
  output_per_million: number;
}

/** List prices as published by the providers; check yours, and override them in dramaturg.yaml. */
export const BUILTIN_PRICES: Readonly<Record<string, Price>> = {
  "openai:gpt-4o-mini": { input_per_million: 0.15, output_per_million: 0.6 },
  "openai:gpt-4o": { input_per_million: 2.5, output_per_million: 10 },
  "openai:gpt-4.1-mini": { input_per_million: 0.4, output_per_million: 1.6 },
  "openai:gpt-4.1-nano": { input_per_million: 0.1, output_per_million: 0.4 },
  "openai:gpt-4.1": { input_per_million: 2, output_per_million: 8 },
  "anthropic:claude-3-5-haiku-latest": { input_per_million: 0.8, output_per_million: 4 },
  "anthropic:claude-haiku-4-5": { input_per_million: 1, output_per_million: 5 },
  "anthropic:claude-sonnet-4-5": { input_per_million: 3, output_per_million: 15 },
};

/** The price of a judge spec's model: the project's own, else the built-in one; fixtures are free. */
export function priceFor(spec: string, extra: Readonly<Record<string, Price>>): Price | undefined {
  const parsed = parseJudgeSpec(spec);
  if (parsed.kind === "fixtures") return { input_per_million: 0, output_per_million: 0 };
  const key = formatJudgeSpec(parsed);
  return extra[key] ?? BUILTIN_PRICES[key];
}

export function cost(usage: { input_tokens: number; output_tokens: number }, price: Price): number {
  return (
    (usage.input_tokens * price.input_per_million + usage.output_tokens * price.output_per_million) /
    1_000_000
  );
}
