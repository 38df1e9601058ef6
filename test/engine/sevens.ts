// A test judge's answer: every item scored 7 (a count item counts one idea), one call, no tokens.
import type { Verdict } from "../../src/core/index.ts";
import type { JudgeRequest, JudgeResponse } from "../../src/judge/index.ts";

export function sevens(request: JudgeRequest): JudgeResponse {
  const verdicts = request.items.map(
    (item): Verdict =>
      item.kind === "count"
        ? { ok: true, key: item.key, count: 1, ideas: ["one"], reasoning: "counted" }
        : { ok: true, key: item.key, score: 7, reasoning: "fine" },
  );
  return { verdicts, usage: { input_tokens: 0, output_tokens: 0 }, calls: 1 };
}
