// The judge a library call was given — a spec string, an AI SDK model, or a Judge — made ready to run:
// built, and put behind the store's verdict cache when it is a live model.
import type { LanguageModel } from "ai";
import { parseJudgeSpec, shownPath } from "../core/index.ts";
import {
  CachingJudge,
  type CreateJudgeOptions,
  createJudge,
  isLiveJudge,
  type Judge,
  judgeOnModel,
} from "../judge/index.ts";
import type { Store } from "../store/index.ts";

/** `"openai:gpt-4o-mini"`, `"anthropic:…"`, `"openai-compatible:…"` (with `baseUrl`), `"fixtures:FILE"`; an AI SDK model; or a Judge. */
export type JudgeOption = string | Exclude<LanguageModel, string> | Judge;

/** Settings of a judge the library builds (from a spec or a model): base URL, key variable, limits. A ready Judge ignores them. */
export type JudgeSettings = CreateJudgeOptions;

export interface ReadyJudge {
  judge: Judge;
  /** The cache in front of it, when there is one (live judges only: see isLiveJudge). */
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
  if (typeof option === "string") {
    const parsed = parseJudgeSpec(option);
    // A fixture file is named in missing-verdict messages as the user sees it.
    judge = createJudge(
      parsed.kind === "fixtures" ? { ...parsed, file: shownPath(parsed.file) } : parsed,
      settings,
    );
  } else if (isJudge(option)) {
    judge = option;
    owned = false;
  } else judge = judgeOnModel(option, settings);
  const inner = judge;
  const caching =
    isLiveJudge(judge) && cache && store
      ? new CachingJudge({ judge, backend: store.verdictCache, mode })
      : undefined;
  return {
    judge: caching ?? judge,
    cache: caching,
    close: async () => {
      if (owned) await inner.close?.();
    },
  };
}
