// An AI SDK mock model that answers with the given lines in turn (the last one from then on): a scripted
// simulated user for the conversation tests. It records each call's options.
import { MockLanguageModelV4 } from "ai/test";

export function scriptedTextModel(...lines: string[]): MockLanguageModelV4 & { calls: unknown[] } {
  const calls: unknown[] = [];
  let n = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      calls.push(options);
      return {
        content: [{ type: "text", text: lines[Math.min(n++, lines.length - 1)]! }],
        finishReason: { unified: "stop", raw: undefined },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 5, text: 5, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  return Object.assign(model, { calls });
}
