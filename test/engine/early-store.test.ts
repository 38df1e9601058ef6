// A new evaluation without a verdict cache judges while its store is still opening: the first judge
// request does not wait for the store, and every verdict still lands in it once it is open.
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { StoreError } from "../../src/core/index.ts";
import { openingCache, runEvaluation, type Store } from "../../src/engine/index.ts";
import { CachingJudge, type Judge, type JudgeRequest, type JudgeResponse } from "../../src/judge/index.ts";
import { personaEvaluation, preparePersonaEvaluation } from "../../src/personas/index.ts";
import { openStore } from "../../src/store/index.ts";
import { sevens } from "./sevens.ts";

const dir = fileURLToPath(new URL("../fixtures/hand-scored/", import.meta.url));

/** Scores every item 7 and says when it was first asked. */
class FirstCallJudge implements Judge {
  readonly descriptor = { provider: "test", model: "first-call", prompt_version: "test" };
  firstCall?: number;
  requests = 0;
  private called!: () => void;
  readonly calledOnce = new Promise<void>((resolve) => {
    this.called = resolve;
  });
  async judge(request: JudgeRequest): Promise<JudgeResponse> {
    this.requests++;
    this.firstCall ??= performance.now();
    this.called();
    return sevens(request);
  }
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function prepared() {
  return preparePersonaEvaluation({
    transcript: `${dir}transcript.json`,
    propositions: `${dir}propositions`,
  });
}

describe("a store still opening", () => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
  });

  it("does not delay the first judge request, and every verdict lands in the store once it opens", async () => {
    const store = await openStore("memory://");
    stores.push(store);
    const opening = deferred<Store>();
    const judge = new FirstCallJudge();
    const input = await prepared();
    const run = runEvaluation({
      evaluation: personaEvaluation({ ...input, judge: judge.descriptor }),
      store: opening.promise,
      judge,
      concurrency: 2,
    });
    // The judge is asked while the store has not opened yet (the open is only released below).
    const first = await Promise.race([
      judge.calledOnce.then(() => "judged"),
      new Promise((resolve) => setTimeout(() => resolve("waited for the store"), 5_000)),
    ]);
    expect(first).toBe("judged");
    // One round of answers waits for the store alone; then each worker waits with its answer (making
    // one more call meanwhile), as for any commit: a kill loses at most three rounds of calls (six with
    // two workers) before the store opens, and no more are made.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(judge.requests).toBe(6);
    opening.resolve(store);
    const { evaluationId, result } = await run;
    const summary = await store.scores.summary(evaluationId);
    expect(summary.errored).toBe(0);
    expect(summary.ok + summary.trivial).toBe(result.totals.verdicts);
    expect(summary.ok).toBeGreaterThanOrEqual(judge.requests);
    expect((await store.evaluations.get(evaluationId))?.status).toBe("completed");
  });

  it("fails the run with the store's error when the store cannot open", async () => {
    const opening = deferred<Store>();
    const judge = new FirstCallJudge();
    const input = await prepared();
    const run = runEvaluation({
      evaluation: personaEvaluation({ ...input, judge: judge.descriptor }),
      store: opening.promise,
      judge,
      concurrency: 2,
    });
    await judge.calledOnce;
    const error = new StoreError("cannot open the store");
    opening.reject(error);
    await expect(run).rejects.toBe(error);
  });

  it("with a verdict cache the run waits for the store before judging", async () => {
    const store = await openStore("memory://");
    stores.push(store);
    const opening = deferred<Store>();
    const judge = new FirstCallJudge();
    const input = await prepared();
    const run = runEvaluation({
      evaluation: personaEvaluation({ ...input, judge: judge.descriptor }),
      store: opening.promise,
      judge,
      cache: {
        counters: {
          hits: 0,
          misses: 0,
          saved_calls: 0,
          saved_tokens: { input_tokens: 0, output_tokens: 0 },
          served_requests: 0,
        },
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(judge.requests).toBe(0);
    opening.resolve(store);
    await run;
    expect(judge.requests).toBeGreaterThan(0);
  });

  it("with a new store's cache the run judges while the store opens, and the cache gets every answer", async () => {
    const store = await openStore("memory://");
    stores.push(store);
    const opening = deferred<Store>();
    const judge = new FirstCallJudge();
    const backend = openingCache(opening.promise);
    const cache = new CachingJudge({ judge, backend, mode: "individual", storeFree: true });
    const input = await prepared();
    const run = runEvaluation({
      evaluation: personaEvaluation({ ...input, judge: judge.descriptor }),
      store: opening.promise,
      judge: cache,
      cache,
      concurrency: 2,
    });
    await judge.calledOnce;
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Three rounds (see above).
    expect(judge.requests).toBe(6);
    opening.resolve(store);
    await run;
    await backend.flushed();
    // Every answer judged before and after the open is in the store's cache: a rerun judges nothing.
    const entries = (await store.verdictCache.stats()).entries;
    expect(entries).toBe(cache.counters.misses);
    const again = new FirstCallJudge();
    const rerun = new CachingJudge({ judge: again, backend: store.verdictCache, mode: "individual" });
    await runEvaluation({
      evaluation: personaEvaluation({ ...input, judge: judge.descriptor }),
      store,
      judge: rerun,
      cache: rerun,
    });
    expect(again.requests).toBe(0);
    expect(rerun.counters.hits).toBe(entries);
  });
});
