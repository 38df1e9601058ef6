// Builds the judge a command asked for, from its settings, through the library's `createJudge`, and
// puts the verdict cache in front of a live one unless the settings turn it off.

import { InputError, JUDGE_SPEC_FORMS, parseJudgeSpec } from "../core/index.ts";
import {
  CachingJudge,
  createJudgeModel,
  createJudge as createLibraryJudge,
  isLiveJudge,
  type Judge,
  type JudgeDescriptor,
  PROMPT_VERSION,
  type VerdictCacheBackend,
} from "../judge/index.ts";
import { shownPath } from "./paths.ts";
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
      `no judge given; pass --judge ${JUDGE_SPEC_FORMS}, or set judge.model in dramaturg.yaml`,
      { place: "--judge" },
    );
  return spec;
}

/** The judge of these settings (their spec, base URL, key variable and call limits). */
export function createJudge(settings: Settings, env: NodeJS.ProcessEnv = process.env): JudgeSetup {
  const spec = parseJudgeSpec(requireJudgeSpec(settings));
  const judge = createLibraryJudge(
    // Missing-verdict messages name the file as the user sees it.
    spec.kind === "fixtures" ? { kind: "fixtures", file: shownPath(spec.file) } : spec,
    {
      baseUrl: settings.judge.base_url,
      apiKeyEnv: settings.judge.api_key_env,
      env,
      temperature: settings.judge.temperature,
      concurrency: settings.judge.concurrency,
      retries: settings.judge.retries,
      timeoutMs: settings.judge.timeout_ms,
    },
  );
  return { judge, live: isLiveJudge(judge) };
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
  if (!settings.judge.model) return undefined;
  const spec = parseJudgeSpec(settings.judge.model);
  if (spec.kind === "fixtures") return undefined;
  // Any variable "is set" here: the model object is only described, never called.
  const anyKey = new Proxy({}, { get: () => "dry-run" }) as Record<string, string>;
  const { descriptor } = createJudgeModel(spec, {
    baseUrl: settings.judge.base_url,
    apiKeyEnv: settings.judge.api_key_env,
    env: anyKey,
  });
  return { ...descriptor, temperature: settings.judge.temperature, prompt_version: PROMPT_VERSION };
}
