// The judge a library call was given — a spec string, an AI SDK model, or a Judge — made ready to run:
// built, and put behind the store's verdict cache when it is a live model.
import type { LanguageModel } from "ai";
import { parseJudgeSpec, shownPath } from "../core/index.ts";
import {
  type CachedJudgement,
  CachingJudge,
  type CreateJudgeOptions,
  createJudge,
  isLiveJudge,
  type Judge,
  judgeOnModel,
  type VerdictCacheBackend,
} from "../judge/index.ts";
import type { Store } from "../store/index.ts";
import { DEFAULT_CONCURRENCY } from "./execute-plan.ts";

/** `"openai:gpt-4o-mini"`, `"anthropic:…"`, `"openai-compatible:…"` (with `baseUrl`), `"fixtures:FILE"`; an AI SDK model; or a Judge. */
export type JudgeOption = string | Exclude<LanguageModel, string> | Judge;

/**
 * Settings of a judge the library builds (from a spec or a model): base URL, key variable, limits. A ready
 * Judge ignores them. Their `concurrency` is a cap of the judge's own, in force only when given: without it,
 * a judge built for a run keeps as many calls in flight as the run's `concurrency` (see prepareJudge).
 */
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

/**
 * Builds the judge of a library call; with a store and `cache` (default true), live judges are cached.
 * A judge built here (from a spec or a model) keeps `concurrency` calls in flight, the run's, unless
 * `settings.concurrency` sets its own limit; a ready Judge keeps the limit it was made with.
 * `opening` is a store still opening: a new one's cache is empty, so the judge is cached without waiting
 * for it (see {@link openingCache}); an existing one's lookups wait for it (see {@link awaitedCache}).
 * Either way the run need not wait for the store before planning and hashing its cache keys.
 */
export function prepareJudge(
  option: JudgeOption,
  settings: JudgeSettings = {},
  {
    store,
    opening,
    cache = true,
    isNew = true,
    mode = "individual",
    concurrency = DEFAULT_CONCURRENCY,
  }: {
    store?: Store;
    opening?: Promise<Store>;
    /** `opening` is a store that did not exist before (default): its cache is empty. */
    isNew?: boolean;
    cache?: boolean;
    mode?: "individual" | "batch";
    /** The run's judge calls in flight: the built judge's limit when `settings` gives none. Default 16. */
    concurrency?: number;
  } = {},
): ReadyJudge {
  // One setting: the run's concurrency is the judge's too, unless the caller gave the judge a limit of its own.
  const limits: JudgeSettings = { ...settings, concurrency: settings.concurrency ?? concurrency };
  let judge: Judge;
  let owned = true;
  if (typeof option === "string") {
    const parsed = parseJudgeSpec(option);
    // A fixture file is named in missing-verdict messages as the user sees it.
    judge = createJudge(
      parsed.kind === "fixtures" ? { ...parsed, file: shownPath(parsed.file) } : parsed,
      limits,
    );
  } else if (isJudge(option)) {
    judge = option;
    owned = false;
  } else judge = judgeOnModel(option, limits);
  const inner = judge;
  const fresh = !store && opening && isNew ? openingCache(opening) : undefined;
  const backend = store?.verdictCache ?? fresh ?? (opening ? awaitedCache(opening) : undefined);
  const caching =
    isLiveJudge(judge) && cache && backend
      ? new CachingJudge({
          judge,
          backend,
          mode,
          storeFree: !store && opening !== undefined,
          // A new store's cache (openingCache) holds nothing, and its store no evaluation to reuse.
          inStore: backend !== fresh,
          // Every backend here is the store's own cache, a new store's included: a run's rerun is tallied.
          tallyRerun: true,
        })
      : undefined;
  return {
    judge: caching ?? judge,
    cache: caching,
    close: async () => {
      // Entries judged while the store opened go in before the caller closes the store.
      await fresh?.flushed();
      if (owned) await inner.close?.();
    },
  };
}

/**
 * The verdict cache of a new store while it is still being created: it finds nothing (a new store's cache
 * is empty) and keeps what it is given until the store is open, then writes it there and hands everything
 * over to the store's own cache. Losing those entries (a crash before the store opens) costs nothing but
 * a later cache miss.
 */
export function openingCache(opening: Promise<Store>): VerdictCacheBackend & { flushed(): Promise<void> } {
  let open: VerdictCacheBackend | undefined;
  let queued: CachedJudgement[] = [];
  const handedOver = opening.then(async (store) => {
    open = store.verdictCache;
    const entries = queued;
    queued = [];
    if (entries.length > 0) await open.put(entries);
  });
  // A store that fails to open fails the run elsewhere; its queued entries are simply dropped.
  handedOver.catch(() => {});
  return {
    get: (keys) => (open ? open.get(keys) : Promise.resolve(new Map())),
    put: async (entries) => {
      if (open) await open.put(entries);
      else queued.push(...entries);
    },
    flushed: () => handedOver.catch(() => {}),
  };
}

/**
 * The verdict cache of an existing store still opening: every lookup and write waits for the store, then
 * is its cache's. A run can plan its calls and hash their cache keys while the store opens (a warm rerun's
 * main-thread work, ≈ half its time), and its first lookup goes out the moment the store is open.
 */
export function awaitedCache(opening: Promise<Store>): Required<VerdictCacheBackend> {
  const cache = opening.then((store) => store.verdictCache);
  // A store that fails to open fails the run elsewhere (and every lookup with it).
  cache.catch(() => {});
  return {
    get: async (keys) => (await cache).get(keys),
    put: async (entries) => (await cache).put(entries),
    peek: async (keys) => (await cache).peek(keys),
    hit: async (entries) => (await cache).hit(entries),
  };
}
