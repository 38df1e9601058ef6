// A verdict cache in front of any judge: answers keyed by a hash of who judges, the full prompt and the
// settings that change an answer, so an unchanged rerun makes no model call. Storage is a small backend.
import { createHash, hash } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import {
  addUsage,
  stableStringify,
  type TokenUsage,
  type VerdictOk,
  verdictKeyString,
  ZERO_USAGE,
} from "../core/index.ts";
import {
  assignItemIds,
  claimsBlock,
  contextParts,
  contextPieces,
  DOUBLE_CHECK_MESSAGE,
  groupConversations,
  systemPrompt,
} from "./prompt.ts";
import type {
  Judge,
  JudgeCallOptions,
  JudgeContext,
  JudgeDescriptor,
  JudgeRequest,
  JudgeResponse,
  VerdictKind,
} from "./types.ts";

/**
 * Changes whenever the way keys are computed changes, so old entries are simply never found again. Part of
 * an evaluation's fingerprint too: an evaluation judged under other keys is not reused.
 */
export const VERDICT_CACHE_KEY_VERSION = "dramaturg.verdict-cache/v2";
const KEY_VERSION = VERDICT_CACHE_KEY_VERSION;

/** Most keys sent to the backend in one lookup. */
const LOOKUP_BATCH = 1_000;

/** What the judge answered for one item: the verdict's fields without its key. */
export interface CachedAnswer {
  score?: number;
  count?: number;
  ideas?: string[];
  value?: boolean;
  reasoning: string;
}

/** One cached judgement. Nothing secret: the key is a hash, provider and model are public names. */
export interface CachedJudgement {
  key: string;
  provider: string;
  model: string;
  value: CachedAnswer;
  /** This item's share of the tokens its call cost. */
  usage?: TokenUsage;
}

/**
 * Where cached judgements live. The store's `verdictCache` repository satisfies it as it is; a Map in a
 * test does too. `get` may count the lookups it answers as hits; `peek`, when present, never does; `hit`,
 * when present with `peek`, counts a hit for each entry a peek found, as `get` would have.
 */
export interface VerdictCacheBackend {
  get(keys: readonly string[]): Promise<ReadonlyMap<string, CachedJudgement>>;
  put(entries: readonly CachedJudgement[]): Promise<void>;
  peek?(keys: readonly string[]): Promise<ReadonlyMap<string, CachedJudgement>>;
  hit?(entries: readonly CachedJudgement[]): Promise<void>;
}

/** What the cache did for one judge since it was created (the `cache` totals of an evaluation result). */
export interface VerdictCacheCounters {
  /** Verdicts served from the cache. */
  hits: number;
  /** Verdicts the inner judge had to give (every item of a request that was not fully cached). */
  misses: number;
  /** Model calls the served requests would have made (one per conversation, two with double-check). */
  saved_calls: number;
  /** Tokens the served verdicts cost when they were first judged. */
  saved_tokens: TokenUsage;
  /** Requests answered entirely from the cache. */
  served_requests: number;
}

/** What the cache would answer for a set of requests, without judging or counting anything. */
export interface VerdictCachePeek {
  /** Requests the cache answers entirely, and the verdicts in them. */
  requests: number;
  verdicts: number;
  /** Model calls and tokens those requests would have cost. */
  saved_calls: number;
  saved_tokens: TokenUsage;
  /** Per request, in the order given: whether the cache answers it entirely. */
  served: boolean[];
}

/** The judge settings that change an answer and are not visible in its descriptor or its prompt. */
export interface VerdictCacheSettings {
  /** `individual` or `batch`. Batching already shows in the prompt; the mode is keyed all the same. */
  mode?: string;
}

export interface CachingJudgeOptions extends VerdictCacheSettings {
  /** The judge asked on a miss; its descriptor is this judge's descriptor. */
  judge: Judge;
  backend: VerdictCacheBackend;
  /**
   * The backend answers without waiting for a store (it is a new store's, empty while it opens): a run
   * need not wait for the store before its first call.
   */
  storeFree?: boolean;
  /** The backend is the store's own verdict cache (see CacheInUse.inStore). */
  inStore?: boolean;
  /**
   * Also count what a rerun of the same requests would be served (see {@link CachingJudge.rerun}): on for
   * the store's own cache, a new store's included, so that a run's rerun can be reused whole.
   */
  tallyRerun?: boolean;
}

/**
 * The cache keys of a request's items, in item order: a sha256 of the key version, the judge's provider,
 * model, base URL, prompt version and temperature, the mode, double-check, the complete prompt of every
 * conversation the request becomes (system prompt and user message, exactly as sent), and the item's
 * prompt id, kind and verdict key (trial included, so N trials are N entries).
 */
export function verdictCacheKeys(
  request: JudgeRequest,
  descriptor: JudgeDescriptor,
  settings: VerdictCacheSettings = {},
): string[] {
  return keysAfter(keyHeader(descriptor, settings, request.doubleCheck), request);
}

/** The digest of what a key covers before the request's prompt: the judge, its settings, double-check. */
function keyHeader(
  descriptor: JudgeDescriptor,
  settings: VerdictCacheSettings,
  doubleCheck: boolean,
): string {
  const header = stableStringify({
    version: KEY_VERSION,
    provider: descriptor.provider,
    model: descriptor.model,
    base_url: descriptor.base_url ?? null,
    prompt_version: descriptor.prompt_version,
    temperature: descriptor.temperature ?? null,
    mode: settings.mode ?? null,
    double_check: doubleCheck,
  });
  return sha256(doubleCheck ? `${header}\u0000${DOUBLE_CHECK_MESSAGE}` : header);
}

/**
 * The keys of a request's items. Each is one sha256 of: the header digest, then per conversation its kind,
 * the digest of its system prompt, its claims block and the digest of the context blocks (the user message
 * is contextBlocks + "\n\n" + claimsBlock, see prompt.ts, so this covers the full prompt), then the item's
 * prompt id, kind and verdict key. A digest stands for a long text that requests share.
 */
function keysAfter(header: string, request: JudgeRequest, lineDigests = new Map<string, string>()): string[] {
  let prompt = header;
  const context = contextDigest(request.context, lineDigests);
  for (const { kind, items } of groupConversations(request))
    prompt += `\u0000${kind}\u0000${systemDigest(kind)}\u0000${claimsBlock(kind, items)}\u0000${context}`;
  const ids = assignItemIds(request.items);
  return request.items.map((item, i) =>
    sha256(`${prompt}\n${ids[i]}\n${item.kind}\n${verdictKeyString(item.key)}`),
  );
}

// The rendered context of a target is shared by its requests, so its digest is kept per context object
// (for as long as the object lives), with the fields it was made from: a changed context is hashed again.
// The digest is made from the text's pieces, never from the whole text (see contextPieces). A trajectory
// given as lines is digested as the list of its lines' digests: consecutive windows share most lines, and
// each line is digested once per judge (its `lineDigests`), so a warm rerun hashes kilobytes per context,
// not tens. The two forms are marked apart, so a list of digests can never pass for a trajectory's text.
const contextDigests = new WeakMap<JudgeContext, { parts: unknown[]; digest: string }>();
const systemDigests = new Map<VerdictKind, string>();

function contextDigest(context: JudgeContext, lineDigests: Map<string, string>): string {
  const parts = contextParts(context);
  const seen = contextDigests.get(context);
  if (seen?.parts.every((p, i) => p === parts[i])) return seen.digest;
  const hasher = createHash("sha256");
  const { lines } = context.trajectory;
  if (lines) {
    // Each line's digest is kept as a 32-character latin1 string: joined and fed back as latin1 they are
    // the very bytes of the digests laid end to end, without a buffer per line or a copy to concatenate.
    let digests = "";
    for (const line of lines) {
      let digest = lineDigests.get(line);
      if (digest === undefined) lineDigests.set(line, (digest = hash("sha256", line, "latin1")));
      digests += digest;
    }
    // The trajectory's block is left out of the pieces below, so its title is digested here.
    const asLines = { ...context, trajectory: { title: context.trajectory.title, text: "" } };
    hasher.update("lines\u0000").update(context.trajectory.title).update("\u0000").update(digests, "latin1");
    for (const piece of contextPieces(asLines)) hasher.update(piece);
  } else {
    hasher.update("text\u0000");
    for (const piece of contextPieces(context)) hasher.update(piece);
  }
  const digest = hasher.digest("hex");
  contextDigests.set(context, { parts, digest });
  return digest;
}

function systemDigest(kind: VerdictKind): string {
  let digest = systemDigests.get(kind);
  if (digest === undefined) systemDigests.set(kind, (digest = sha256(systemPrompt(kind))));
  return digest;
}

function sha256(text: string): string {
  return hash("sha256", text, "hex");
}

/** Model calls a request costs when nothing fails: one per conversation, a second turn with double-check. */
/**
 * Keys a judge remembers to tally a rerun (see CachingJudge.rerun): ≈ 100 bytes each, so at most ≈ 5 MB.
 * A larger run is reused from its first warm rerun on, not from itself.
 */
const RERUN_KEYS = 50_000;

function callsOf(request: JudgeRequest): number {
  return groupConversations(request).length * (request.doubleCheck ? 2 : 1);
}

/**
 * Wraps a judge with a verdict cache. A request is served from the cache only when every item is cached
 * (then no model call at all); otherwise the inner judge judges the whole request, because a batch prompt
 * is what the cached answers were given to, and each ok verdict it returns is stored. Errored verdicts are
 * never stored. Call {@link CachingJudge.prefetch} before a large run to look every key up in bulk.
 */
export class CachingJudge implements Judge {
  readonly descriptor: JudgeDescriptor;
  readonly inFlightLimit?: number;
  private readonly inner: Judge;
  private readonly backend: VerdictCacheBackend;
  private readonly settings: VerdictCacheSettings;
  /** Entries found by `prefetch` (hits already counted in the backend) for requests not judged yet. */
  private readonly memory = new Map<string, CachedJudgement>();
  /** Keys by request object: prefetch computes them, judge() reuses them (requests are not mutated). */
  private readonly keys = new WeakMap<JudgeRequest, string[]>();
  /** The key header per double-check setting: a judge's descriptor and settings do not change. */
  private readonly headers = new Map<boolean, string>();
  /** Digests of trajectory lines, each computed once for all the windows that share the line. */
  private readonly lineDigests = new Map<string, string>();
  /** Requests of a prefetch still under way, and the lookup of the chunk each belongs to. */
  private readonly prefetching = new WeakMap<JudgeRequest, Promise<void>>();
  /** Keys `prefetch` looked up: a key in here but not in `memory` is known to be missing. */
  private readonly looked = new Set<string>();
  private readonly tally = noneCounted();

  /**
   * What a rerun would be served, while every request is one the cache will answer whole: the keys this
   * judge stored so far (a key stored twice may have changed its answer), or undefined once one is not.
   */
  private rerunKeys: Set<string> | undefined;
  private readonly rerunTally = noneCounted();

  /** See {@link CachingJudgeOptions.storeFree}. */
  readonly storeFree: boolean;
  /** See {@link CachingJudgeOptions.inStore}. */
  readonly inStore: boolean;

  constructor({
    judge,
    backend,
    mode,
    storeFree = false,
    inStore = false,
    tallyRerun = false,
  }: CachingJudgeOptions) {
    this.inner = judge;
    this.backend = backend;
    this.storeFree = storeFree;
    this.inStore = inStore;
    if (tallyRerun) this.rerunKeys = new Set();
    this.settings = { mode };
    this.descriptor = judge.descriptor;
    this.inFlightLimit = judge.inFlightLimit;
  }

  /** What the cache has done so far. */
  get counters(): VerdictCacheCounters {
    return copyOf(this.tally);
  }

  /**
   * The counters a rerun of every request judged so far would end with, when the cache will serve it
   * whole: each request was served, or judged with every verdict ok and stored under a key this judge had
   * not stored before. Undefined otherwise (a verdict errored or was not stored, a key came twice, more
   * than {@link RERUN_KEYS} keys were stored), or when the rerun is not tallied. Entries replaced or deleted
   * by anyone else meanwhile are the caller's to rule out (the store's cache generation).
   */
  get rerun(): VerdictCacheCounters | undefined {
    return this.rerunKeys && copyOf(this.rerunTally);
  }

  /**
   * Adds what the cache served to the counters and the rerun's tally: a request answered here, or a reuse
   * of a whole stored evaluation (its hits counted in bulk).
   */
  countServed(served: VerdictCacheCounters): void {
    for (const tally of [this.tally, this.rerunTally]) countInto(tally, served);
  }

  /** The cache keys of a request's items, as this judge computes them. */
  keysOf(request: JudgeRequest): string[] {
    let keys = this.keys.get(request);
    if (keys) return keys;
    let header = this.headers.get(request.doubleCheck);
    if (!header)
      this.headers.set(
        request.doubleCheck,
        (header = keyHeader(this.descriptor, this.settings, request.doubleCheck)),
      );
    this.keys.set(request, (keys = keysAfter(header, request, this.lineDigests)));
    return keys;
  }

  /**
   * Looks up every key of many requests in bulk (one backend call per chunk of about 1,000 keys) and keeps
   * what it finds in memory, so the requests that follow need no lookup of their own. With a backend that
   * can `peek`, hits are counted in the store only for the requests the cache will answer entirely.
   *
   * The lookups are pipelined: this thread computes the next chunk's keys while the store looks up the
   * last one, and a `judge()` call for a request given here waits only for its own chunk. So a run can
   * start at once, beside the prefetch, and score (and store) the first answers while later keys are
   * still being hashed. The promise settles when every chunk has; it rejects with the first failed
   * lookup (the requests of a failed chunk are then looked up by `judge()` itself).
   */
  async prefetch(requests: readonly JudgeRequest[]): Promise<void> {
    const chunks: JudgeRequest[][] = [];
    let keys = LOOKUP_BATCH;
    for (const request of requests) {
      if (keys + request.items.length > LOOKUP_BATCH) {
        chunks.push([]);
        keys = 0;
      }
      chunks.at(-1)!.push(request);
      keys += request.items.length;
    }
    // Every request waits for its chunk from now on, whether or not its keys are computed yet.
    const settle: (() => void)[] = [];
    for (const chunk of chunks) {
      const settled = new Promise<void>((resolve) => settle.push(resolve));
      for (const request of chunk) this.prefetching.set(request, settled);
    }
    const lookups: Promise<void>[] = [];
    const hits: CachedJudgement[] = [];
    try {
      for (const [i, chunk] of chunks.entries()) {
        const looked = this.prefetchChunk(
          chunk.map((r) => this.keysOf(r)),
          hits,
        );
        lookups.push(looked);
        void looked.then(settle[i], settle[i]);
        // Let the answers that arrived be scored before hashing on.
        if (i + 1 < chunks.length) await nextTurn();
      }
    } finally {
      // Chunks never looked up (a key could not be computed) stop waiting: judge() looks them up itself.
      for (const resolve of settle.slice(lookups.length)) resolve();
    }
    const outcomes = await Promise.allSettled(lookups);
    // What the chunks found for requests they answer entirely, counted in one statement for them all.
    if (hits.length > 0) await this.backend.hit!(hits);
    const failed = outcomes.find((o) => o.status === "rejected");
    if (failed) throw failed.reason;
  }

  /**
   * Looks up one chunk's keys and keeps the entries of the requests the cache answers entirely; with a
   * backend that can `hit`, adds them to `hits`, which the prefetch records at its end.
   */
  private async prefetchChunk(keysByRequest: readonly string[][], hits: CachedJudgement[]): Promise<void> {
    const wanted = [...new Set(keysByRequest.flat())].filter((k) => !this.looked.has(k));
    let keep: Iterable<[string, CachedJudgement]>;
    if (!this.backend.peek) keep = await lookup(wanted, (batch) => this.backend.get(batch));
    else {
      const found = await lookup(wanted, (batch) => this.backend.peek!(batch));
      const has = (key: string) => found.has(key) || this.memory.has(key);
      const served = [...new Set(keysByRequest.filter((keys) => keys.every(has)).flat())].filter((k) =>
        found.has(k),
      );
      if (this.backend.hit) {
        // The peek already read these entries: only their hits remain to be recorded.
        keep = served.map((key) => [key, found.get(key)!]);
        for (const key of served) hits.push(found.get(key)!);
      } else {
        // The counting lookup returns the same entries; it is what records the hits.
        keep = await lookup(served, (batch) => this.backend.get(batch));
      }
    }
    // Entries are kept before their keys are marked as looked up, so that no request finds a key looked
    // up and its entry absent.
    for (const [key, entry] of keep) this.memory.set(key, entry);
    for (const key of wanted) this.looked.add(key);
  }

  /** How many of these requests and verdicts the cache would answer now. Counts no hit, calls no model. */
  async peek(requests: readonly JudgeRequest[]): Promise<VerdictCachePeek> {
    const keysByRequest = requests.map((r) => this.keysOf(r));
    const unknown = [...new Set(keysByRequest.flat())].filter((k) => !this.memory.has(k));
    const found = await lookup(unknown, (batch) =>
      (this.backend.peek ?? this.backend.get).call(this.backend, batch),
    );
    const entryOf = (key: string) => this.memory.get(key) ?? found.get(key);
    const result: VerdictCachePeek = {
      requests: 0,
      verdicts: 0,
      saved_calls: 0,
      saved_tokens: { ...ZERO_USAGE },
      served: [],
    };
    keysByRequest.forEach((keys, i) => {
      const entries = keys.map(entryOf);
      const served = entries.every((e) => e !== undefined);
      result.served.push(served);
      if (!served) return;
      result.requests++;
      result.verdicts += keys.length;
      result.saved_calls += callsOf(requests[i]!);
      for (const e of entries) result.saved_tokens = addUsage(result.saved_tokens, e!.usage ?? ZERO_USAGE);
    });
    return result;
  }

  async judge(request: JudgeRequest, options: JudgeCallOptions = {}): Promise<JudgeResponse> {
    const prefetched = this.prefetching.get(request);
    if (prefetched) {
      await prefetched;
      this.prefetching.delete(request);
    }
    const keys = this.keysOf(request);
    const cached = await this.cached(keys);
    // What prefetch kept for this request is used now: a run holds the entries of the requests ahead of
    // its workers, not of every request it made. A key that comes again asks the backend again.
    for (const key of keys) {
      this.memory.delete(key);
      this.looked.delete(key);
    }
    if (cached) {
      this.countServed(servedBy(request, cached));
      return {
        verdicts: request.items.map((item, i) => ({ ok: true, key: item.key, ...cached[i]!.value })),
        usage: { ...ZERO_USAGE },
        calls: 0,
      };
    }
    const response = await this.inner.judge(request, options);
    this.tally.misses += request.items.length;
    const shares = splitUsage(response.usage, request.items.length);
    const entries: CachedJudgement[] = [];
    response.verdicts.forEach((verdict, i) => {
      if (!verdict.ok || verdict.trivial) return;
      entries.push({
        key: keys[i]!,
        provider: this.descriptor.provider,
        model: this.descriptor.model,
        value: answerOf(verdict),
        usage: shares[i]!,
      });
    });
    if (entries.length > 0) await this.backend.put(entries);
    this.tallyRerun(request, keys, entries);
    return response;
  }

  /** Counts a judged request as a rerun would be served it, or ends the rerun's tally (see `rerun`). */
  private tallyRerun(
    request: JudgeRequest,
    keys: readonly string[],
    stored: readonly CachedJudgement[],
  ): void {
    const seen = this.rerunKeys;
    if (!seen) return;
    if (stored.length !== keys.length || seen.size + keys.length > RERUN_KEYS) {
      this.rerunKeys = undefined;
      return;
    }
    for (const key of keys) {
      if (seen.has(key)) {
        this.rerunKeys = undefined;
        return;
      }
      seen.add(key);
    }
    countInto(this.rerunTally, servedBy(request, stored));
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  /** The entries of every key, in order, or undefined when any is missing (hits counted once, here or in prefetch). */
  private async cached(keys: readonly string[]): Promise<CachedJudgement[] | undefined> {
    const inMemory = keys.map((k) => this.memory.get(k));
    if (inMemory.every((e) => e !== undefined)) return inMemory as CachedJudgement[];
    // Prefetch already looked for the missing ones: no need to ask again.
    if (keys.every((k, i) => inMemory[i] !== undefined || this.looked.has(k))) return undefined;
    const missing = keys.filter((_, i) => inMemory[i] === undefined);
    if (this.backend.peek) {
      const seen = await this.backend.peek(missing);
      if (!missing.every((k) => seen.has(k))) return undefined;
      if (this.backend.hit) {
        await this.backend.hit([...new Set(missing)].map((k) => seen.get(k)!));
        return keys.map((k, i) => inMemory[i] ?? seen.get(k)!);
      }
    }
    const found = await this.backend.get(missing);
    const entries = keys.map((k) => this.memory.get(k) ?? found.get(k));
    return entries.every((e) => e !== undefined) ? (entries as CachedJudgement[]) : undefined;
  }
}

/**
 * What the cache would answer for these requests of a judge known only by its descriptor (a dry run
 * builds no judge and needs no API key). Counts no hit and calls nothing.
 */
export function peekVerdictCache({
  requests,
  descriptor,
  backend,
  mode,
}: {
  requests: readonly JudgeRequest[];
  descriptor: JudgeDescriptor;
  backend: VerdictCacheBackend;
  mode?: string;
}): Promise<VerdictCachePeek> {
  const unjudged: Judge = {
    descriptor,
    judge: () => Promise.reject(new Error("a cache peek never judges")),
  };
  return new CachingJudge({ judge: unjudged, backend, mode }).peek(requests);
}

/** A verdict's answer fields (no key, no flags). */
function answerOf(verdict: VerdictOk): CachedAnswer {
  const answer: CachedAnswer = { reasoning: verdict.reasoning };
  if (verdict.score !== undefined) answer.score = verdict.score;
  if (verdict.count !== undefined) answer.count = verdict.count;
  if (verdict.ideas !== undefined) answer.ideas = [...verdict.ideas];
  if (verdict.value !== undefined) answer.value = verdict.value;
  return answer;
}

/** What serving a request from these entries counts: its verdicts as hits, its calls and tokens as saved. */
function servedBy(request: JudgeRequest, entries: readonly CachedJudgement[]): VerdictCacheCounters {
  let saved_tokens: TokenUsage = { ...ZERO_USAGE };
  for (const e of entries) saved_tokens = addUsage(saved_tokens, e.usage ?? ZERO_USAGE);
  return { hits: entries.length, misses: 0, saved_calls: callsOf(request), saved_tokens, served_requests: 1 };
}

function noneCounted(): VerdictCacheCounters {
  return { hits: 0, misses: 0, saved_calls: 0, saved_tokens: { ...ZERO_USAGE }, served_requests: 0 };
}

function copyOf(tally: VerdictCacheCounters): VerdictCacheCounters {
  return { ...tally, saved_tokens: { ...tally.saved_tokens } };
}

function countInto(tally: VerdictCacheCounters, served: VerdictCacheCounters): void {
  tally.hits += served.hits;
  tally.misses += served.misses;
  tally.saved_calls += served.saved_calls;
  tally.served_requests += served.served_requests;
  tally.saved_tokens = addUsage(tally.saved_tokens, served.saved_tokens);
}

/** Whole-token shares of a request's usage, one per item, summing to the total. */
function splitUsage(usage: TokenUsage, parts: number): TokenUsage[] {
  const share = (total: number, i: number) => Math.floor(total / parts) + (i < total % parts ? 1 : 0);
  return Array.from({ length: parts }, (_, i) => ({
    input_tokens: share(usage.input_tokens, i),
    output_tokens: share(usage.output_tokens, i),
  }));
}

async function lookup(
  keys: readonly string[],
  fetch: (batch: readonly string[]) => Promise<ReadonlyMap<string, CachedJudgement>>,
): Promise<Map<string, CachedJudgement>> {
  const found = new Map<string, CachedJudgement>();
  for (let i = 0; i < keys.length; i += LOOKUP_BATCH)
    for (const [key, entry] of await fetch(keys.slice(i, i + LOOKUP_BATCH))) found.set(key, entry);
  return found;
}
