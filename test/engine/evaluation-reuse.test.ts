// An unchanged evaluation whose every verdict the cache served is reused whole by a rerun: its verdicts are
// copied in one statement, and the result and stored rows are those the per-verdict path gives, ids aside.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentHash, type Verdict, verdictKeyString } from "../../src/core/index.ts";
import { runEvaluation, type Store } from "../../src/engine/index.ts";
import {
  CachingJudge,
  type Judge,
  type JudgeDescriptor,
  type JudgeRequest,
  type JudgeResponse,
} from "../../src/judge/index.ts";
import {
  type EvalResult,
  type PreparedPersonaEvaluation,
  personaEvaluation,
  preparePersonaEvaluation,
} from "../../src/personas/index.ts";
import { openStore, type ScoreRow } from "../../src/store/index.ts";
import { openPgliteStore } from "../../src/store/open-sql-store.ts";
import { useTempDir } from "../temp-dir.ts";

const dir = fileURLToPath(new URL("../fixtures/hand-scored/", import.meta.url));

/** Scores each item by a hash of its verdict key (so trials differ), spends tokens, and errors the items asked to. */
class KeyedJudge implements Judge {
  requests = 0;
  constructor(
    readonly descriptor: JudgeDescriptor = { provider: "test", model: "keyed", prompt_version: "v1" },
    private readonly failing = new Set<string>(),
  ) {}
  async judge(request: JudgeRequest): Promise<JudgeResponse> {
    this.requests++;
    const verdicts = request.items.map((item): Verdict => {
      const key = verdictKeyString(item.key);
      if (this.failing.has(item.key.proposition_id))
        return { ok: false, key: item.key, error: { name: "JudgeError", message: "timed out" } };
      const n = Number.parseInt(contentHash(key).slice(0, 6), 16);
      return item.kind === "count"
        ? { ok: true, key: item.key, count: n % 4, ideas: [`idea ${n % 7}`], reasoning: `counted ${key}` }
        : { ok: true, key: item.key, score: n % 10, reasoning: `scored ${key}` };
    });
    return {
      verdicts,
      usage: { input_tokens: 100 * request.items.length + 7, output_tokens: 10 * request.items.length },
      calls: 1,
    };
  }
}

async function prepared(options: { trials?: number; mode?: "individual" | "batch" } = {}) {
  return preparePersonaEvaluation({
    transcript: `${dir}transcript.json`,
    propositions: `${dir}propositions`,
    ...options,
  });
}

/** Runs an evaluation through the store's verdict cache, as the library and the CLI do. */
async function run(
  store: Store,
  input: PreparedPersonaEvaluation,
  judge: Judge,
  options: { record?: string; inStore?: boolean } = {},
) {
  const inStore = options.inStore ?? true;
  // As prepareJudge builds it: the store's own cache tallies what a rerun would be served.
  const caching = new CachingJudge({
    judge,
    backend: store.verdictCache,
    mode: input.config.mode,
    inStore,
    tallyRerun: inStore,
  });
  const { evaluationId, result } = await runEvaluation({
    evaluation: personaEvaluation({ ...input, judge: caching.descriptor }),
    store,
    judge: caching,
    cache: caching,
    concurrency: 4,
    record: options.record,
  });
  return { evaluationId, result, counters: caching.counters };
}

/** A result without what differs between any two evaluations: their ids. */
function normalized(result: EvalResult) {
  const { reused_from: _, ...cache } = result.totals.cache ?? { hits: 0, misses: 0, saved_calls: 0 };
  return JSON.parse(
    JSON.stringify({
      ...result,
      evaluation_id: "id",
      runs: result.runs.map((r) => ({ ...r, run_id: "run" })),
      totals: { ...result.totals, cache },
    }),
  );
}

/** Stored rows without ids and times; each row's run named by its agent. */
async function storedRows(store: Store, evaluationId: string) {
  const runs = await store.runs.list({ evaluation: evaluationId });
  const agentOf = new Map(runs.map((r) => [r.id, r.agent_id]));
  const rows = await store.scores.forEvaluation(evaluationId);
  return rows.map(({ id: _, evaluation_id: __, created_at: ___, evaluation_run_id, ...row }: ScoreRow) => ({
    ...row,
    run_agent: evaluation_run_id === null ? null : agentOf.get(evaluation_run_id),
  }));
}

for (const backend of ["memory", "PGlite"] as const) {
  describe(`reusing an unchanged evaluation (${backend})`, () => {
    let store: Store;
    beforeAll(async () => {
      store = backend === "memory" ? await openStore("memory://") : await openPgliteStore(undefined);
    });
    afterAll(async () => {
      await store.close();
    });

    it("a cold run's first rerun reuses it, with the result, runs and rows the per-verdict path gives", async () => {
      const input = await prepared();
      const cold = await run(store, input, new KeyedJudge());
      expect(cold.result.totals.calls).toBeGreaterThan(0);
      // The per-verdict rerun, through a cache that is not the store's own (which never reuses).
      const warmJudge = new KeyedJudge();
      const warm = await run(store, input, warmJudge, { inStore: false });
      expect(warmJudge.requests).toBe(0);
      expect(warm.result.totals.cache?.reused_from).toBeUndefined();
      expect(warm.result.totals.cache?.misses).toBe(0);
      const hitsBefore = (await store.verdictCache.stats()).hits;
      const reusedJudge = new KeyedJudge();
      const reused = await run(store, input, reusedJudge);
      expect(reused.result.totals.cache?.reused_from).toBe(cold.evaluationId);
      expect(reusedJudge.requests).toBe(0);
      await expectSameAsPerVerdict(reused, warm, hitsBefore);
    });

    it("a warm rerun is reused by the next, with the result, runs and rows the per-verdict path gives", async () => {
      const input = await prepared();
      // Judged again from an empty cache, through a cache that is not the store's: no rerun figures kept.
      await store.verdictCache.clear();
      const cold = await run(store, input, new KeyedJudge(), { inStore: false });
      expect(cold.result.totals.calls).toBeGreaterThan(0);
      const warmJudge = new KeyedJudge();
      // The cold run cannot be reused: the first rerun takes the per-verdict path.
      const warm = await run(store, input, warmJudge);
      expect(warm.result.totals.cache?.reused_from).toBeUndefined();
      expect(warm.result.totals.cache?.misses).toBe(0);
      const hitsBefore = (await store.verdictCache.stats()).hits;
      const reusedJudge = new KeyedJudge();
      const reused = await run(store, input, reusedJudge);
      expect(reused.result.totals.cache?.reused_from).toBe(warm.evaluationId);
      expect(reusedJudge.requests).toBe(0);
      await expectSameAsPerVerdict(reused, warm, hitsBefore);
    });

    /** The reused rerun says and stores what the per-verdict one did, ids aside. */
    async function expectSameAsPerVerdict(
      reused: Awaited<ReturnType<typeof run>>,
      warm: Awaited<ReturnType<typeof run>>,
      hitsBefore: number,
    ) {
      expect(normalized(reused.result)).toEqual(normalized(warm.result));
      expect(reused.result.runs.map((r) => r.run_id)).not.toEqual(warm.result.runs.map((r) => r.run_id));
      expect(await storedRows(store, reused.evaluationId)).toEqual(
        await storedRows(store, warm.evaluationId),
      );
      // The stored evaluation, its result document and its runs say the same as the rerun's.
      const [a, b] = [
        await store.evaluations.get(warm.evaluationId),
        await store.evaluations.get(reused.evaluationId),
      ];
      expect(b).toMatchObject({
        status: "completed",
        errored: a!.errored,
        cache: a!.cache,
        token_usage: a!.token_usage,
      });
      expect(await store.evaluations.result(reused.evaluationId)).toEqual(
        JSON.parse(JSON.stringify(reused.result)),
      );
      const runsOf = async (id: string) =>
        (await store.runs.list({ evaluation: id }))
          .map((r) => [r.agent_id, r.status, r.overall_score, r.dimension_scores, r.errored, r.token_usage])
          .sort();
      expect(await runsOf(reused.evaluationId)).toEqual(await runsOf(warm.evaluationId));
      // Hits are counted as the per-verdict path counts them: in the store's tally and the cache's counters.
      expect((await store.verdictCache.stats()).hits - hitsBefore).toBe(warm.result.totals.cache!.hits);
      expect(reused.counters).toMatchObject({
        hits: warm.counters.hits,
        misses: 0,
        saved_calls: warm.counters.saved_calls,
        saved_tokens: warm.counters.saved_tokens,
      });
    }

    it("more trials are not reused: each trial is judged", async () => {
      await run(store, await prepared(), new KeyedJudge());
      await run(store, await prepared(), new KeyedJudge());
      const judge = new KeyedJudge();
      const more = await run(store, await prepared({ trials: 2 }), judge);
      expect(more.result.totals.cache?.reused_from).toBeUndefined();
      expect(judge.requests).toBeGreaterThan(0);
    });

    it("another judge model is not reused", async () => {
      await run(store, await prepared(), new KeyedJudge());
      await run(store, await prepared(), new KeyedJudge());
      const other = await run(
        store,
        await prepared(),
        new KeyedJudge({ provider: "test", model: "other", prompt_version: "v1" }),
      );
      expect(other.result.totals.cache?.reused_from).toBeUndefined();
      expect(other.result.totals.cache?.misses).toBeGreaterThan(0);
    });

    it("after the cache lost entries, even another model's, nothing is reused until a rerun is warm again", async () => {
      const input = await prepared();
      await run(store, input, new KeyedJudge());
      await run(store, input, new KeyedJudge());
      expect((await run(store, input, new KeyedJudge())).result.totals.cache?.reused_from).toBeDefined();
      await store.verdictCache.clear({ model: "nobody" });
      const afterClear = await run(store, input, new KeyedJudge());
      expect(afterClear.result.totals.cache?.reused_from).toBeUndefined();
      expect(afterClear.result.totals.cache?.hits).toBeGreaterThan(0);
      // That rerun was itself warm, at the new generation: the next one reuses it.
      expect((await run(store, input, new KeyedJudge())).result.totals.cache?.reused_from).toBe(
        afterClear.evaluationId,
      );
      await store.verdictCache.clear();
      const judge = new KeyedJudge();
      const emptied = await run(store, input, judge);
      expect(emptied.result.totals.cache?.reused_from).toBeUndefined();
      expect(emptied.result.totals.cache?.hits).toBe(0);
      expect(judge.requests).toBeGreaterThan(0);
    });

    it("an evaluation with errored verdicts is not reused: the rerun judges them again", async () => {
      const input = await prepared({ mode: "batch" });
      const [firstCall] = input.plan.calls();
      const failing = new KeyedJudge(undefined, new Set(firstCall!.items.map((i) => i.key.proposition_id)));
      const first = await run(store, input, failing);
      expect(first.result.totals.errored).toBeGreaterThan(0);
      const judge = new KeyedJudge();
      const rerun = await run(store, input, judge);
      expect(rerun.result.totals.cache?.reused_from).toBeUndefined();
      expect(rerun.result.totals.errored).toBe(0);
      expect(judge.requests).toBeGreaterThan(0);
    });

    it("a recording run and a cache that is not the store's never reuse", async () => {
      const input = await prepared();
      await run(store, input, new KeyedJudge());
      await run(store, input, new KeyedJudge());
      const folder = recordings();
      const recorded = await run(store, input, new KeyedJudge(), { record: `${folder}/fixtures.json` });
      expect(recorded.result.totals.cache?.reused_from).toBeUndefined();
      const apart = await run(store, input, new KeyedJudge(), { inStore: false });
      expect(apart.result.totals.cache?.reused_from).toBeUndefined();
      expect(apart.result.totals.cache?.hits).toBeGreaterThan(0);
    });

    it("a reuse that fails leaves the new evaluation failed, with no verdict copied", async () => {
      const input = await prepared({ trials: 3 });
      await run(store, input, new KeyedJudge());
      await run(store, input, new KeyedJudge());
      const broken: Store = {
        ...store,
        runs: {
          ...store.runs,
          // Fails once the verdicts are copied, as a crash between statements would.
          complete: () => Promise.reject(new Error("disk full")),
        },
      };
      const caching = new CachingJudge({
        judge: new KeyedJudge(),
        backend: store.verdictCache,
        inStore: true,
      });
      const evaluation = personaEvaluation({ ...input, judge: caching.descriptor });
      await expect(
        runEvaluation({ evaluation, store: broken, judge: caching, cache: caching }),
      ).rejects.toThrow("disk full");
      const [latest] = await store.evaluations.list({ limit: 1 });
      expect(latest!.status).toBe("failed");
      expect(latest!.error).toBe("disk full");
      const copyFailing: Store = {
        ...store,
        scores: { ...store.scores, copy: () => Promise.reject(new Error("copy refused")) },
      };
      await expect(
        runEvaluation({
          evaluation: personaEvaluation({ ...input, judge: caching.descriptor }),
          store: copyFailing,
          judge: caching,
          cache: caching,
        }),
      ).rejects.toThrow("copy refused");
      const [again] = await store.evaluations.list({ limit: 1 });
      expect(again!.status).toBe("failed");
      expect(await store.scores.forEvaluation(again!.id)).toEqual([]);
    });
  });
}

const recordings = useTempDir("dramaturg-reuse-");

describe("an evaluation's fingerprint", () => {
  const judge: JudgeDescriptor = { provider: "test", model: "keyed", prompt_version: "v1" };
  const fingerprint = (input: PreparedPersonaEvaluation, descriptor = judge) =>
    personaEvaluation({ ...input, judge: descriptor }).fingerprint!();

  it("is the same for the same evaluation, and not its source's name", async () => {
    const input = await prepared();
    expect(fingerprint(input)).toBe(fingerprint(await prepared()));
    expect(fingerprint({ ...input, config: { ...input.config, source: "elsewhere.json" } })).toBe(
      fingerprint(input),
    );
  });

  it("changes with the transcript, the propositions, the mode and the trials", async () => {
    const input = await prepared();
    const base = fingerprint(input);
    expect(fingerprint({ ...input, config: { ...input.config, transcript_hash: "other" } })).not.toBe(base);
    expect(fingerprint({ ...input, propositions: { ...input.propositions, hash: "other" } })).not.toBe(base);
    expect(fingerprint(await prepared({ mode: "batch" }))).not.toBe(base);
    expect(fingerprint(await prepared({ trials: 2 }))).not.toBe(base);
  });

  it("changes with the judge's model, base URL, prompt version and temperature", async () => {
    const input = await prepared();
    const base = fingerprint(input);
    for (const changed of [
      { model: "other" },
      { base_url: "http://127.0.0.1:1/v1" },
      { prompt_version: "v2" },
      { temperature: 0.5 },
    ])
      expect(fingerprint(input, { ...judge, ...changed })).not.toBe(base);
  });
});
