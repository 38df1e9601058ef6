// A call's concurrency slot is freed when the transport has its answer, before the answer is parsed
// (src/judge/answered.ts): the judge's calls on the wire still never exceed its concurrency, and a run keeps
// twice a judge's limit under way so that a freed slot has a request ready (workersFor).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAI } from "@ai-sdk/openai";
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
} from "@ai-sdk/provider";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Verdict } from "../../src/core/index.ts";
import { workersFor } from "../../src/engine/execute-plan.ts";
import { executePlan, type JudgePlan, type PlannedCall } from "../../src/engine/index.ts";
import { answered, beforeSending, gateAtTransport, whenAnswered } from "../../src/judge/answered.ts";
import type { Judge, JudgeItem, JudgeRequest, JudgeResponse } from "../../src/judge/index.ts";
import { LlmJudge } from "../../src/judge/index.ts";
import { nodeFetch } from "../../src/judge/node-fetch.ts";
import { createJudgeModel } from "../../src/judge/provider.ts";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../../src/testing/index.ts";

let fake: FakeOpenAIServer | undefined;
let plain: Server | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  plain?.closeAllConnections();
  await new Promise<void>((resolve) => (plain ? plain.close(() => resolve()) : resolve()));
  plain = undefined;
});

const item = (id: string): JudgeItem => ({
  key: { dimension: "adherence", proposition_id: id, agent_id: "marta", trial: 1 },
  kind: "score",
  claim: `Marta keeps to her persona (${id}).`,
});
const request = (id: string): JudgeRequest => ({
  items: [item(id)],
  context: { trajectory: { title: "Marta", text: "Marta acts: [TALK] Bom dia!" } },
  doubleCheck: false,
});

/** A provider model of the tests, answering with `doGenerate`. */
function testModel(
  modelId: string,
  doGenerate: (options: LanguageModelV4CallOptions) => Promise<LanguageModelV4GenerateResult>,
): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId,
    supportedUrls: {},
    doGenerate,
    doStream: () => Promise.reject(new Error("not streamed")),
  };
}

/** A provider's answer to call `n`: one verdict of `value` for proposition `p<n>`. */
function answerOf(n: number, value: number): LanguageModelV4GenerateResult {
  const text = JSON.stringify({ verdicts: [{ id: `p${n}`, reasoning: "r", value }] });
  return {
    content: [{ type: "text", text }],
    finishReason: { unified: "stop", raw: undefined },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    },
    warnings: [],
  };
}

/**
 * A provider model whose answers are the tests' to give: each call logs "start N", reports its answer to the
 * transport hook when `reports` is set, then waits until the test lets it return ("end N").
 */
function heldModel(reports: boolean) {
  const log: string[] = [];
  const waiting: (() => void)[] = [];
  let calls = 0;
  const model = testModel("held", async (options) => {
    const n = ++calls;
    log.push(`start ${n}`);
    if (reports) answered(options.abortSignal);
    await new Promise<void>((resolve) => waiting.push(resolve));
    log.push(`end ${n}`);
    return answerOf(n, 7);
  });
  const release = () => waiting.shift()?.();
  return { model, log, release };
}

/** Waits for the first call to start (the provider SDK loads with it), then lets the event loop turn a few times. */
const settle = async (log: string[]) => {
  await vi.waitFor(() => expect(log.length).toBeGreaterThan(0));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("a call's slot freed when its answer arrives", () => {
  it("goes to the next call once the transport reports the answer, before the call returns", async () => {
    const { model, log, release } = heldModel(true);
    const judge = new LlmJudge({ model, concurrency: 1 });
    const first = judge.judge(request("p1"));
    const second = judge.judge(request("p2"));
    await settle(log);
    // The first call's answer is in but not yet parsed: the second call is on the wire already.
    expect(log).toEqual(["start 1", "start 2"]);
    release();
    release();
    const verdicts = [(await first).verdicts[0]!, (await second).verdicts[0]!];
    expect(verdicts.map((v) => v.ok && v.score)).toEqual([7, 7]);
  });

  it("is held until the call returns when the transport does not report the answer", async () => {
    const { model, log, release } = heldModel(false);
    const judge = new LlmJudge({ model, concurrency: 1 });
    const first = judge.judge(request("p1"));
    const second = judge.judge(request("p2"));
    await settle(log);
    expect(log).toEqual(["start 1"]);
    release();
    await first;
    await settle(log);
    expect(log).toEqual(["start 1", "end 1", "start 2"]);
    release();
    await second;
  });

  it("nodeFetch reports the answer of the request made with a signal before it hands the response over", async () => {
    const events: string[] = [];
    plain = createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((resolve) => plain!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/v1`;
    const signal = new AbortController().signal;
    whenAnswered(signal, () => events.push("answered"));
    const response = await nodeFetch(url, { method: "POST", body: "{}", signal });
    events.push("response");
    expect(await response.json()).toEqual({ ok: true });
    // Reported once: a second report of the same signal does nothing.
    answered(signal);
    expect(events).toEqual(["answered", "response"]);
  });

  it("keeps the calls on the wire to the judge's concurrency with the provider on nodeFetch, under a run of twice as many", async () => {
    fake = await startFakeOpenAIServer({ latencyMs: 10 });
    const judge = new LlmJudge({
      model: createOpenAI({ baseURL: fake.url, apiKey: "test-key", fetch: nodeFetch }).chat("fake-model"),
      concurrency: 4,
    });
    const plan = planOf(40);
    const result = await executePlan(plan, { judge, concurrency: 4, keep: true });
    expect(result.verdicts.filter((v) => v.verdict.ok)).toHaveLength(40);
    expect(fake.stats.calls).toBe(40);
    expect(fake.stats.maxInFlight).toBe(4);
  });
});

describe("a call's slot taken at the transport, its request built", () => {
  /**
   * A provider model marked as sending through the transport gate: each call logs "built N", waits at the gate
   * as nodeFetch does, logs "sent N", reports its answer and returns.
   */
  function gatedModel() {
    const log: string[] = [];
    const answers: (() => void)[] = [];
    let calls = 0;
    const model = gateAtTransport(
      testModel("gated", async (options) => {
        const n = ++calls;
        log.push(`built ${n}`);
        await beforeSending(options.abortSignal);
        log.push(`sent ${n}`);
        await new Promise<void>((resolve) => answers.push(resolve));
        answered(options.abortSignal);
        return answerOf(n, 6);
      }),
    );
    return { model, log, answer: () => answers.shift()?.() };
  }

  it("a call builds its request while another holds the slot, and sends it when that answer arrives", async () => {
    const { model, log, answer } = gatedModel();
    const judge = new LlmJudge({ model, concurrency: 1 });
    const first = judge.judge(request("p1"));
    const second = judge.judge(request("p2"));
    await settle(log);
    // Both requests are built; only the first is sent.
    expect([...log].sort()).toEqual(["built 1", "built 2", "sent 1"]);
    answer();
    await settle(log);
    expect(log.at(-1)).toBe("sent 2");
    answer();
    const verdicts = [(await first).verdicts[0]!, (await second).verdicts[0]!];
    expect(verdicts.map((v) => v.ok && v.score)).toEqual([6, 6]);
  });

  it("a call waiting at the gate leaves when its run is interrupted, holding no slot", async () => {
    const { model, log, answer } = gatedModel();
    const judge = new LlmJudge({ model, concurrency: 1 });
    const first = judge.judge(request("p1"));
    const stop = new AbortController();
    const second = judge.judge(request("p2"), { signal: stop.signal }).catch((e: unknown) => e);
    await settle(log);
    stop.abort(new Error("interrupted"));
    expect(await second).toMatchObject({ message: "interrupted" });
    answer();
    expect((await first).verdicts[0]!.ok).toBe(true);
    // The slot the first call freed is free: a third call is sent at once.
    const third = judge.judge(request("p3"));
    await settle(log);
    expect(log.at(-1)).toBe("sent 3");
    answer();
    expect((await third).verdicts[0]!.ok).toBe(true);
  });

  it("createJudgeModel's models take their slot at nodeFetch: the wire never holds more than the concurrency", async () => {
    fake = await startFakeOpenAIServer({ latencyMs: 10 });
    for (const spec of ["openai:fake-model", "openai-compatible:fake-model"]) {
      const { model } = createJudgeModel(spec, { baseUrl: fake.url, env: { OPENAI_API_KEY: "test-key" } });
      const judge = new LlmJudge({ model, concurrency: 4 });
      const before = fake.stats.calls;
      fake.stats.maxInFlight = 0;
      const result = await executePlan(planOf(40), { judge, concurrency: 4, keep: true });
      expect(
        result.verdicts.filter((v) => v.verdict.ok),
        spec,
      ).toHaveLength(40);
      expect(fake.stats.calls - before, spec).toBe(40);
      expect(fake.stats.maxInFlight, spec).toBe(4);
    }
  });
});

/** A plan of `n` one-item calls. */
function planOf(n: number): JudgePlan<number> {
  return {
    *calls(): Generator<PlannedCall<number>> {
      for (let i = 1; i <= n; i++)
        yield {
          items: [item(`p${i}`)],
          doubleCheck: false,
          context: () => ({ trajectory: { title: "t", text: `message ${i}` } }),
          meta: [i],
        };
    },
    trivial: () => [],
  };
}

/** A judge that answers after a timer and records the most requests it had under way at once. */
function countingJudge(inFlightLimit?: number) {
  let underWay = 0;
  const seen = { most: 0 };
  const judge: Judge = {
    descriptor: { provider: "test", model: "count", prompt_version: "test" },
    ...(inFlightLimit !== undefined ? { inFlightLimit } : {}),
    async judge(req: JudgeRequest): Promise<JudgeResponse> {
      seen.most = Math.max(seen.most, ++underWay);
      await new Promise((resolve) => setTimeout(resolve, 2));
      underWay--;
      const verdicts = req.items.map((i): Verdict => ({ ok: true, key: i.key, score: 7, reasoning: "r" }));
      return { verdicts, usage: { input_tokens: 1, output_tokens: 1 }, calls: 1 };
    },
  };
  return { judge, seen };
}

describe("workersFor: how many requests a run keeps under way", () => {
  it("is twice the judge's own limit when that is no higher than the concurrency, else the concurrency", () => {
    expect(workersFor(16, 16)).toBe(32);
    expect(workersFor(16, 4)).toBe(16);
    expect(workersFor(16, 12)).toBe(24);
    expect(workersFor(16, 17)).toBe(16);
    expect(workersFor(16, undefined)).toBe(16);
    expect(workersFor(1, 1)).toBe(2);
  });

  it("executePlan keeps that many requests under way", async () => {
    for (const [limit, most] of [
      [undefined, 3],
      [3, 6],
      [5, 3],
    ] as const) {
      const { judge, seen } = countingJudge(limit);
      const result = await executePlan(planOf(30), { judge, concurrency: 3 });
      expect(result.requests).toBe(30);
      expect(seen.most, `inFlightLimit ${limit}`).toBe(most);
    }
  });
});
