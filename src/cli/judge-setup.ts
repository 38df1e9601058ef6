// Builds the judge a command asked for: replayed fixtures, or a live model through the AI SDK.
import { InputError } from "../core/index.ts";
import { createJudgeModel, FixtureJudge, type Judge, LlmJudge } from "../judge/index.ts";
import type { Settings } from "./settings.ts";

export interface JudgeSetup {
  judge: Judge;
  /** True for a model that costs calls (fixtures are free and deterministic). */
  live: boolean;
}

export function createJudge(settings: Settings, env: NodeJS.ProcessEnv = process.env): JudgeSetup {
  const spec = settings.judge.model;
  if (!spec)
    throw new InputError(
      "no judge given; pass --judge openai:MODEL | anthropic:MODEL | openai-compatible:MODEL | fixtures:FILE, or set judge.model in dramaturg.yaml",
      { place: "--judge" },
    );
  if (spec.startsWith("fixtures:"))
    return { judge: FixtureJudge.fromFile(spec.slice("fixtures:".length)), live: false };
  const { model, descriptor, redact } = createJudgeModel(spec, {
    baseUrl: settings.judge.base_url,
    apiKeyEnv: settings.judge.api_key_env,
    env,
  });
  const judge = new LlmJudge({
    model,
    descriptor,
    redact,
    temperature: settings.judge.temperature,
    concurrency: settings.judge.concurrency,
    maxRetries: settings.judge.retries,
    timeoutMs: settings.judge.timeout_ms,
  });
  return { judge, live: true };
}
