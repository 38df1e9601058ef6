// executePlan's order of work per worker: a call's answers are handed on (aggregated, written) after the
// worker's next call has gone out, not before; answers that cost no model call are handed on at once.
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

/** Answers every item 7 after a turn of the event loop, logging each request; `calls` model calls each. */
function loggingJudge(log: string[], calls: number): Judge {
  return {
    descriptor: { provider: "test", model: "log", prompt_version: "test" },
    async judge(request: JudgeRequest): Promise<JudgeResponse> {
      log.push(`call ${request.items[0]!.claim.slice("claim ".length)}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      const verdicts = request.items.map(
        (item): Verdict => ({ ok: true, key: item.key, score: 7, reasoning: "fine" }),
      );
      return { verdicts, usage: { input_tokens: 1, output_tokens: 1 }, calls };
    },
  };
}

async function order(calls: number): Promise<string[]> {
  const log: string[] = [];
  const result = await executePlan(planOf(3), {
    judge: loggingJudge(log, calls),
    concurrency: 1,
    onVerdicts: (verdicts) => {
      for (const v of verdicts) log.push(`handled ${v.meta}`);
    },
  });
  expect(result.requests).toBe(3);
  return log;
}

describe("executePlan, one worker", () => {
  it("makes its next call before it hands on the answers of the last one, in order", async () => {
    expect(await order(1)).toEqual(["call 1", "call 2", "handled 1", "call 3", "handled 2", "handled 3"]);
  });

  it("hands on answers that cost no model call (a cache's) before its next call", async () => {
    expect(await order(0)).toEqual(["call 1", "handled 1", "call 2", "handled 2", "call 3", "handled 3"]);
  });
});
