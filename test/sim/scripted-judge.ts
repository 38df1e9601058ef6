// A Judge double for intervention tests: answers each item with what a function of its key, kind and
// claim returns (hand-written verdicts), and records every item it was asked.
import type { Judge, JudgeItem } from "../../src/judge/index.ts";

export type ScriptedAnswer = { value: boolean } | { score: number } | "error";

export function scriptedJudge(answer: (item: JudgeItem) => ScriptedAnswer): Judge & { asked: JudgeItem[] } {
  const asked: JudgeItem[] = [];
  return {
    asked,
    descriptor: { provider: "mock", model: "hand-written", prompt_version: "test" },
    async judge(request) {
      asked.push(...request.items);
      return {
        verdicts: request.items.map((item) => {
          const a = answer(item);
          if (a === "error")
            return { ok: false as const, key: item.key, error: { name: "JudgeError", message: "timed out" } };
          return { ok: true as const, key: item.key, reasoning: "scripted", ...a };
        }),
        usage: { input_tokens: 100, output_tokens: 10 },
        calls: request.items.length,
      };
    },
  };
}
