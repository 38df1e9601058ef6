// A stand-in judge for benchmarks: answers every item instantly with a deterministic score and no model
// call, so a benchmark through it measures Dramaturg's own overhead (planning, execution, the store).
import type { Verdict } from "../src/core/index.ts";
import type { Judge, JudgeDescriptor, JudgeRequest, JudgeResponse } from "../src/judge/index.ts";

/** FNV-1a over a string: a cheap, stable hash for picking scores. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Not a real judge: it never reads the context. Scores are a hash of the verdict key, 0–9. */
export class InstantJudge implements Judge {
  readonly descriptor: JudgeDescriptor = {
    provider: "bench",
    model: "instant",
    prompt_version: "bench-instant",
  };
  requests = 0;

  async judge(request: JudgeRequest): Promise<JudgeResponse> {
    this.requests++;
    const verdicts = request.items.map((item): Verdict => {
      const h = fnv1a(`${item.key.proposition_id}|${item.key.message_id ?? item.key.channel ?? ""}`);
      if (item.kind === "count")
        return { ok: true, key: item.key, count: h % 5, ideas: [], reasoning: "Stand-in count." };
      if (item.kind === "check")
        return { ok: true, key: item.key, value: h % 2 === 0, reasoning: "Stand-in check." };
      return {
        ok: true,
        key: item.key,
        score: h % 10,
        reasoning: "Stand-in verdict from the instant judge.",
      };
    });
    return { verdicts, usage: { input_tokens: 0, output_tokens: 0 }, calls: 1 };
  }
}
