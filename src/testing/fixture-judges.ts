// Judges for a user's own tests, built in code: hand-written fixture verdicts without a file, and a
// judge that answers each claim by a function. Neither calls a model; both say so in their identity.
import type { Verdict } from "../core/index.ts";
import {
  FIXTURES_FORMAT,
  FixtureJudge,
  type FixtureVerdict,
  type Judge,
  type JudgeItem,
  type JudgeRequest,
  type JudgeResponse,
} from "../judge/index.ts";

/** A fixture verdict as written by hand: key fields, then `score` (0–9), `count` + `ideas`, or `value`. */
export type HandWrittenVerdict = Omit<FixtureVerdict, "reasoning"> & { reasoning?: string };

/**
 * A fixture judge over hand-written verdicts (the `dramaturg.judge-fixtures/v1` entries), no file
 * needed. A verdict without `agent_id` / `message_id` / `channel` / `trial` matches every such target.
 */
export function fixtureJudge(
  verdicts: readonly HandWrittenVerdict[],
  { note }: { note?: string } = {},
): FixtureJudge {
  return new FixtureJudge({
    fixtures: {
      format: FIXTURES_FORMAT,
      note: note ?? "hand-written in a test",
      verdicts: verdicts.map((v) => ({ ...v, reasoning: v.reasoning ?? "" })),
    },
    file: "<in-memory fixtures>",
  });
}

/** What a scripted judge answers for one claim. */
export type ScriptedAnswer =
  | { score: number; reasoning?: string }
  | { count: number; ideas?: string[]; reasoning?: string }
  | { value: boolean; reasoning?: string };

/**
 * A judge that answers every claim with `answer(item, request)`: e.g. `() => ({ score: 8 })` for a
 * transcript that should pass, or a score by proposition id. A throw becomes an errored verdict.
 */
export function scriptedJudge(answer: (item: JudgeItem, request: JudgeRequest) => ScriptedAnswer): Judge {
  return {
    descriptor: { provider: "fixtures", model: "scripted", prompt_version: "fixtures" },
    async judge(request): Promise<JudgeResponse> {
      const verdicts = request.items.map((item): Verdict => {
        try {
          const a = answer(item, request);
          const reasoning = a.reasoning ?? "";
          if ("score" in a) {
            if (!Number.isInteger(a.score) || a.score < 0 || a.score > 9)
              throw new RangeError(`a scripted score must be an integer 0–9, got ${a.score}`);
            return { ok: true, key: item.key, score: a.score, reasoning };
          }
          if ("count" in a)
            return { ok: true, key: item.key, count: a.count, ideas: a.ideas ?? [], reasoning };
          return { ok: true, key: item.key, value: a.value, reasoning };
        } catch (error) {
          return {
            ok: false,
            key: item.key,
            error: {
              name: (error as Error).name ?? "Error",
              message: (error as Error).message ?? String(error),
            },
          };
        }
      });
      return { verdicts, usage: { input_tokens: 0, output_tokens: 0 }, calls: 0 };
    },
  };
}
