// Builds the judge a command asked for: replayed fixtures, or a live model through the AI SDK.
import { isAbsolute, relative } from "node:path";
import { InputError } from "../core/index.ts";
import { createJudgeModel, FixtureJudge, type Judge, LlmJudge, loadFixtures } from "../judge/index.ts";
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
  if (spec.startsWith("fixtures:")) {
    const file = spec.slice("fixtures:".length);
    // Shown in reports and stored with runs: relative to the working directory when inside it.
    const shown = relative(process.cwd(), file);
    const display = shown && !shown.startsWith("..") && !isAbsolute(shown) ? shown : file;
    return { judge: new FixtureJudge({ fixtures: loadFixtures(file), file: display }), live: false };
  }
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
