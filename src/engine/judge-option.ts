// The judge a library call was given — a spec string, an AI SDK model, or a Judge — made ready to run:
// built, and put behind the store's verdict cache when it is a live model.
import type { LanguageModel } from "ai";
import { parseJudgeSpec, shownPath } from "../core/index.ts";
import { CachingJudge, createJudge, isLiveJudge, type Judge, LlmJudge } from "../judge/index.ts";
import type { Store } from "../store/index.ts";

/** `"openai:gpt-4o-mini"`, `"anthropic:…"`, `"openai-compatible:…"` (with `baseUrl`), `"fixtures:FILE"`; an AI SDK model; or a Judge. */
export type JudgeOption = string | Exclude<LanguageModel, string> | Judge;

/** Settings of a judge the library builds (from a spec or a model); a ready Judge ignores them. */
export interface JudgeSettings {
  /** Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio). */
  baseUrl?: string;
  /** The environment variable holding the API key, instead of OPENAI_API_KEY / ANTHROPIC_API_KEY. */
  apiKeyEnv?: string;
  temperature?: number;
  /** Model calls in flight at once. Default 8. */
  concurrency?: number;
  /** Retries per call (429, 5xx, timeouts, malformed answers). Default 4. */
  retries?: number;
  /** Per-call time limit in ms. Default 60000. */
  timeoutMs?: number;
  /** Where keys are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface ReadyJudge {
  judge: Judge;
  /** The spec it was built from, when it was given as one (stored with the evaluation). */
  spec?: string;
  /** A model that costs calls (not a fixture replay): it gets the verdict cache. */
  live: boolean;
  /** The cache in front of it, when there is one. */
  cache?: CachingJudge;
  /** Closes what this built (a Judge given ready-made is the caller's to close). */
  close(): Promise<void>;
}

function isJudge(value: unknown): value is Judge {
  return typeof value === "object" && value !== null && typeof (value as Judge).judge === "function";
}

/** Builds the judge of a library call; with a store and `cache` (default true), live judges are cached. */
export function prepareJudge(
  option: JudgeOption,
  settings: JudgeSettings = {},
  {
    store,
    cache = true,
    mode = "individual",
  }: { store?: Store; cache?: boolean; mode?: "individual" | "batch" } = {},
): ReadyJudge {
  let judge: Judge;
  let owned = true;
  let spec: string | undefined;
  if (typeof option === "string") {
    spec = option;
    const parsed = parseJudgeSpec(option);
    // A fixture file is named in missing-verdict messages as the user sees it.
    judge = createJudge(parsed.kind === "fixtures" ? { ...parsed, file: shownPath(parsed.file) } : parsed, {
      baseUrl: settings.baseUrl,
      apiKeyEnv: settings.apiKeyEnv,
      env: settings.env,
      temperature: settings.temperature,
      concurrency: settings.concurrency,
      retries: settings.retries,
      timeoutMs: settings.timeoutMs,
    });
  } else if (isJudge(option)) {
    judge = option;
    owned = false;
  } else {
    judge = new LlmJudge({
      model: option,
      temperature: settings.temperature,
      concurrency: settings.concurrency,
      maxRetries: settings.retries,
      timeoutMs: settings.timeoutMs,
    });
  }
  const live = isLiveJudge(judge);
  const inner = judge;
  const caching =
    live && cache && store ? new CachingJudge({ judge, backend: store.verdictCache, mode }) : undefined;
  return {
    judge: caching ?? judge,
    spec,
    live,
    cache: caching,
    close: async () => {
      if (owned) await inner.close?.();
    },
  };
}
