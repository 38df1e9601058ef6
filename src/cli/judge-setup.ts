// Builds the judge a command asked for: replayed fixtures, or a live model through the AI SDK, and puts
// the verdict cache in front of a live one unless the settings turn it off.

import { InputError, shownPath } from "../core/index.ts";
import {
  CachingJudge,
  createJudgeModel,
  FixtureJudge,
  type Judge,
  type JudgeDescriptor,
  LlmJudge,
  loadFixtures,
  PROMPT_VERSION,
  type VerdictCacheBackend,
} from "../judge/index.ts";
import type { Settings } from "./settings.ts";

export interface JudgeSetup {
  judge: Judge;
  /** True for a model that costs calls (fixtures are free and deterministic). */
  live: boolean;
}

/** The judge spec of these settings; none given is bad usage, with the forms a spec can take. */
export function requireJudgeSpec(settings: Pick<Settings, "judge">): string {
  const spec = settings.judge.model;
  if (!spec)
    throw new InputError(
      "no judge given; pass --judge openai:MODEL | anthropic:MODEL | openai-compatible:MODEL | fixtures:FILE, or set judge.model in dramaturg.yaml",
      { place: "--judge" },
    );
  return spec;
}

export function createJudge(settings: Settings, env: NodeJS.ProcessEnv = process.env): JudgeSetup {
  const spec = requireJudgeSpec(settings);
  if (spec.startsWith("fixtures:")) {
    const file = spec.slice("fixtures:".length);
    // The file is shown in reports and stored with runs.
    return { judge: new FixtureJudge({ fixtures: loadFixtures(file), file: shownPath(file) }), live: false };
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

/**
 * The judge to run with: a live judge behind the verdict cache (`backend` is the store's `verdictCache`),
 * or the judge itself when it is a fixture judge or `settings.cache` is false (`--no-cache`).
 */
export function withVerdictCache(
  setup: JudgeSetup,
  backend: VerdictCacheBackend,
  settings: Pick<Settings, "cache" | "judge">,
): { judge: Judge; cache?: CachingJudge } {
  if (!setup.live || !settings.cache) return { judge: setup.judge };
  const cache = new CachingJudge({ judge: setup.judge, backend, mode: settings.judge.mode });
  return { judge: cache, cache };
}

/**
 * The descriptor the live judge of these settings would have, without its API key (dry runs, which key
 * the verdict cache by it). Undefined for a fixture judge or none.
 */
export function describeLiveJudge(settings: Pick<Settings, "judge">): JudgeDescriptor | undefined {
  const spec = settings.judge.model;
  if (!spec || spec.startsWith("fixtures:")) return undefined;
  // Any variable "is set" here: the model object is only described, never called.
  const anyKey = new Proxy({}, { get: () => "dry-run" }) as Record<string, string>;
  const { descriptor } = createJudgeModel(spec, {
    baseUrl: settings.judge.base_url,
    apiKeyEnv: settings.judge.api_key_env,
    env: anyKey,
  });
  return { ...descriptor, temperature: settings.judge.temperature, prompt_version: PROMPT_VERSION };
}
