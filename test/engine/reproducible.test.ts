// Reproducible to the bit: the same verdicts give a byte-identical result document (ids and what the
// invocation itself cost aside) whatever produced them — one call at a time, 32 at once with the answers
// arriving scrambled, an interrupt and a resume on the same store, or a rerun that reuses the stored
// evaluation. The persona kind on the bundled ensemble demo; the session kind on copies of its example.
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contentHash, InterruptedError, type Verdict, verdictKeyString } from "../../src/core/index.ts";
import { openStore, type Store } from "../../src/engine/index.ts";
import {
  createJudge,
  type Judge,
  type JudgeCallOptions,
  type JudgeRequest,
  type JudgeResponse,
} from "../../src/judge/index.ts";
import {
  type EvalResult,
  type EvaluatePersonasOptions,
  evaluatePersonas,
  resumePersonaEvaluation,
} from "../../src/personas/index.ts";
import { analyzeSession, resumeSessionAnalysis, type SessionsAnalysis } from "../../src/sessions/index.ts";
import { scriptedJudge } from "../../src/testing/index.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ENSEMBLE = `${ROOT}examples/ensemble/`;

const hashOf = (text: string) => Number.parseInt(contentHash(text).slice(0, 8), 16);

/**
 * Another judge's answers, optionally delayed 0–7 ms by a hash of the request (so that with many calls in
 * flight they arrive in an order unlike the plan's), with the keys `failing` names errored. It describes
 * itself as a live judge, so that the store's verdict cache keeps its verdicts and a rerun can reuse them.
 */
class ReplayJudge implements Judge {
  readonly descriptor = { provider: "test", model: "ensemble-replay", prompt_version: "fixtures" };
  /** The first verdict key of each request, in the order the answers came back. */
  readonly answered: string[] = [];
  constructor(
    private readonly inner: Judge,
    private readonly options: { scramble?: boolean; failing?: (key: string) => string | undefined } = {},
  ) {}

  async judge(request: JudgeRequest, options: JudgeCallOptions = {}): Promise<JudgeResponse> {
    const first = verdictKeyString(request.items[0]!.key);
    if (this.options.scramble) await sleep(hashOf(first) % 8, undefined, { signal: options.signal });
    // One model call per request, as the live judge it stands for would make (and count as sent).
    const response = { ...(await this.inner.judge(request, options)), calls: 1 };
    this.answered.push(first);
    const failing = this.options.failing;
    if (!failing) return response;
    return {
      ...response,
      verdicts: response.verdicts.map((v): Verdict => {
        const message = failing(verdictKeyString(v.key));
        return message ? { ok: false, key: v.key, error: { name: "JudgeError", message } } : v;
      }),
    };
  }
}

const fixtureJudge = () => createJudge(`fixtures:${ENSEMBLE}judge-fixtures.json`);

/** The demo with two trials: 1,030 verdicts, among them a hard set (Inés's adherence) and ideas counts. */
const demo = (judge: Judge, store: Store): EvaluatePersonasOptions => ({
  transcript: `${ENSEMBLE}transcript.json`,
  propositions: `${ENSEMBLE}propositions`,
  judge,
  store,
  trials: 2,
});

/**
 * The result document as bytes, without its ids and what this invocation spent or was spared (requests,
 * calls, tokens, cache hits, a resume's reused verdicts): the scores, reasonings, counts and totals of
 * verdicts that the verdicts alone decide.
 */
function personaBytes(result: EvalResult): string {
  const {
    evaluation_id: _,
    runs,
    totals: { requests: __, calls: ___, token_usage: ____, cache: _____, resumed: ______, ...verdicts },
    ...rest
  } = result;
  return JSON.stringify(
    {
      ...rest,
      runs: runs.map(({ run_id: _r, token_usage: _t, ...run }) => run),
      totals: verdicts,
    },
    null,
    2,
  );
}

/** Evaluates the demo, aborting once `after` judge requests have been answered; returns the interrupt. */
async function interrupted(options: EvaluatePersonasOptions, after: number): Promise<InterruptedError> {
  const stop = new AbortController();
  const error = await evaluatePersonas({
    ...options,
    signal: stop.signal,
    onProgress: (event) => {
      if (event.type === "judged" && event.done >= after) stop.abort(new Error("Ctrl-C"));
    },
  }).catch((e: unknown) => e);
  expect(InterruptedError.isInstance(error), String(error)).toBe(true);
  return error as InterruptedError;
}

describe("a persona evaluation is the same to the bit however its verdicts arrived", () => {
  let stores: Store[] = [];
  const store = async () => {
    const opened = await openStore("memory://");
    stores.push(opened);
    return opened;
  };
  beforeEach(() => {
    stores = [];
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
  });

  it("one call at a time, 32 scrambled, interrupted and resumed, and reused give the same document", async () => {
    const inner = fixtureJudge();
    const oneByOne = new ReplayJudge(inner);
    const first = await store();
    const reference = await evaluatePersonas({ ...demo(oneByOne, first), concurrency: 1 });
    expect(reference.totals.errored).toBe(0);
    expect(reference.totals.verdicts).toBeGreaterThan(1000);

    const scrambled = new ReplayJudge(inner, { scramble: true });
    const wide = await evaluatePersonas({ ...demo(scrambled, await store()), concurrency: 32 });
    // The answers did come back in another order than one by one.
    expect(scrambled.answered).not.toEqual(oneByOne.answered);
    expect([...scrambled.answered].sort()).toEqual([...oneByOne.answered].sort());
    expect(personaBytes(wide)).toBe(personaBytes(reference));

    const halfway = await store();
    const stopped = await interrupted({ ...demo(scrambled, halfway), concurrency: 32 }, 300);
    const resumed = await resumePersonaEvaluation({
      store: halfway,
      id: stopped.evaluationId,
      judge: scrambled,
      concurrency: 32,
    });
    const reused = resumed.totals.resumed?.reused_verdicts ?? 0;
    expect(reused).toBeGreaterThan(0);
    expect(reused).toBeLessThan(resumed.totals.verdicts);
    expect(personaBytes(resumed)).toBe(personaBytes(reference));

    // The first store's evaluation, reused whole by a rerun: its verdicts copied, nothing judged.
    const again = await evaluatePersonas({ ...demo(new ReplayJudge(inner), first), concurrency: 1 });
    expect(again.totals.cache?.reused_from).toBe(reference.evaluation_id);
    expect(personaBytes(again)).toBe(personaBytes(reference));
  });

  it("errored verdicts give the same reasons and examples in any order, resumed or not", async () => {
    const inner = fixtureJudge();
    // One verdict in seven times out, each after its own number of ms: one reason, many messages.
    const failing = (key: string) => {
      const n = hashOf(key);
      return n % 7 === 0 ? `the judge did not answer within ${60_000 + (n % 997)} ms` : undefined;
    };
    const reference = await evaluatePersonas({
      ...demo(new ReplayJudge(inner, { failing }), await store()),
      concurrency: 1,
    });
    expect(reference.totals.errored).toBeGreaterThan(10);

    const scrambled = new ReplayJudge(inner, { scramble: true, failing });
    const wide = await evaluatePersonas({ ...demo(scrambled, await store()), concurrency: 32 });
    expect(personaBytes(wide)).toBe(personaBytes(reference));

    const halfway = await store();
    const stopped = await interrupted({ ...demo(scrambled, halfway), concurrency: 32 }, 300);
    const resumed = await resumePersonaEvaluation({
      store: halfway,
      id: stopped.evaluationId,
      judge: scrambled,
      concurrency: 32,
    });
    expect(personaBytes(resumed)).toBe(personaBytes(reference));
  });
});

describe("a session analysis is the same to the bit however its verdicts arrived", () => {
  const one = JSON.parse(readFileSync(`${ROOT}examples/sessions/refund.session.json`, "utf8"));
  const sessions = Array.from({ length: 24 }, (_, i) => ({ ...one, id: `refund-${i + 1}` }));
  // Scores spread over 0–9 by key, with reasonings, so that every metric and detection has a value.
  const scores = scriptedJudge((item) => {
    const key = verdictKeyString(item.key);
    return { score: hashOf(key) % 10, reasoning: `said of ${key}` };
  });

  /** The document without its id and what the judge spent on this invocation. */
  function sessionBytes(result: SessionsAnalysis): string {
    const { evaluation_id: _, judge, ...rest } = result;
    return JSON.stringify({ ...rest, judge: { spec: judge?.spec, errored: judge?.errored } }, null, 2);
  }

  it("one call at a time, 32 scrambled, and interrupted and resumed give the same document", async () => {
    const oneByOne = new ReplayJudge(scores);
    const reference = await analyzeSession(sessions, { judge: oneByOne, concurrency: 1 });
    const scrambled = new ReplayJudge(scores, { scramble: true });
    const wide = await analyzeSession(sessions, { judge: scrambled, concurrency: 32 });
    expect(scrambled.answered).not.toEqual(oneByOne.answered);
    expect(sessionBytes(wide)).toBe(sessionBytes(reference));

    const store = await openStore("memory://");
    try {
      const stop = new AbortController();
      const error = await analyzeSession(sessions, {
        judge: scrambled,
        store,
        concurrency: 32,
        signal: stop.signal,
        onProgress: (event) => {
          if (event.type === "judged" && event.done >= 20) stop.abort(new Error("Ctrl-C"));
        },
      }).catch((e: unknown) => e);
      expect(InterruptedError.isInstance(error), String(error)).toBe(true);
      const resumed = await resumeSessionAnalysis({ store, judge: scrambled, concurrency: 32 });
      expect(resumed.judge!.requests).toBeGreaterThan(0);
      expect(resumed.judge!.requests).toBeLessThan(reference.judge!.requests);
      expect(sessionBytes(resumed)).toBe(sessionBytes(reference));
    } finally {
      await store.close();
    }
  });
});
