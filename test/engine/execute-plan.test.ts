// executePlan's order of work per worker: answers that came over the network (in a later turn of the event
// loop) are handed on (aggregated, written) after the worker's next call has gone out; answers given at once
// (by a judge in this process) are handed on before it.
import { describe, expect, it } from "vitest";
import type { Verdict } from "../../src/core/index.ts";
import { executePlan, type JudgePlan, type PlannedCall } from "../../src/engine/index.ts";
import type { Judge, JudgeRequest, JudgeResponse } from "../../src/judge/index.ts";

/** A plan of `n` one-item calls, numbered from 1 in their metadata. */
function planOf(n: number): JudgePlan<number> {
  return {
    *calls(): Generator<PlannedCall<number>> {
      for (let i = 1; i <= n; i++)
        yield {
          items: [
            {
              kind: "score",
              claim: `claim ${i}`,
              key: { dimension: "adherence", proposition_id: `p${i}`, trial: 1 },
            },
          ],
          doubleCheck: false,
          context: () => ({ trajectory: { title: "t", text: `message ${i}` } }),
          meta: [i],
        };
    },
    trivial: () => [],
  };
}

/** Answers every item 7, after a timer (as over the network) or at once, logging each request. */
function loggingJudge(log: string[], overNetwork: boolean): Judge {
  return {
    descriptor: { provider: "test", model: "log", prompt_version: "test" },
    async judge(request: JudgeRequest): Promise<JudgeResponse> {
      log.push(`call ${request.items[0]!.claim.slice("claim ".length)}`);
      if (overNetwork) await new Promise((resolve) => setTimeout(resolve, 1));
      const verdicts = request.items.map(
        (item): Verdict => ({ ok: true, key: item.key, score: 7, reasoning: "fine" }),
      );
      return { verdicts, usage: { input_tokens: 1, output_tokens: 1 }, calls: 1 };
    },
  };
}

async function order(overNetwork: boolean): Promise<string[]> {
  const log: string[] = [];
  const result = await executePlan(planOf(3), {
    judge: loggingJudge(log, overNetwork),
    concurrency: 1,
    onVerdicts: (verdicts) => {
      for (const v of verdicts) log.push(`handled ${v.meta}`);
    },
  });
  expect(result.requests).toBe(3);
  return log;
}

describe("executePlan, one worker", () => {
  it("makes its next call before it hands on answers that came over the network, in order", async () => {
    expect(await order(true)).toEqual(["call 1", "call 2", "handled 1", "call 3", "handled 2", "handled 3"]);
  });

  it("hands on answers given at once (a judge in this process) before its next call", async () => {
    expect(await order(false)).toEqual(["call 1", "handled 1", "call 2", "handled 2", "call 3", "handled 3"]);
  });
});
