// A scenario's survey: questions every agent answers on its own after the session (TinyTroupe's market-research
// notebooks ask each simulated person "would you buy …?"), each answer read from the agent's reply by a fixed
// rule, so the same replies give the same answers on every run and no model stands between the agent and its
// answer. The answers are what `dramaturg validate` compares with real people's (`empirical`).
import { z } from "zod";
import { scaleRange } from "../core/index.ts";

/** The kinds of answer a survey question takes (a subset of `validate`'s: rankings are not read from replies). */
export const SURVEY_ANSWER_KINDS = ["numeric", "ordinal", "categorical", "binary"] as const;
export type SurveyAnswerKind = (typeof SURVEY_ANSWER_KINDS)[number];

export const SurveyQuestionSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, "a name of letters, digits and _ (not starting with a digit)")
      .describe("The question's name: its column in the answers and in `validate`"),
    prompt: z.string().min(1).describe("What each agent is asked, on its own, after the last step"),
    kind: z.enum(SURVEY_ANSWER_KINDS),
    scale: z
      .string()
      .refine((s) => scaleRange(s) !== undefined, { message: "expected a range of integers such as 1-5" })
      .optional()
      .describe("Ordinal: the scale's points, such as 1-5"),
    options: z
      .array(z.string().min(1))
      .min(2)
      .optional()
      .describe("Categorical: the answers a reply may give"),
    empirical: z
      .object({
        file: z
          .string()
          .min(1)
          .describe("Real people's answers (CSV, JSON, JSONL), relative to the scenario file"),
        column: z.string().min(1).describe("The file's column holding this question's answers"),
      })
      .strict()
      .optional()
      .describe("Real answers to validate each arm's against (`dramaturg validate`)"),
  })
  .strict()
  .superRefine((q, ctx) => {
    const need = (key: "scale" | "options", kind: SurveyAnswerKind) => {
      if (q.kind === kind && q[key] === undefined)
        ctx.addIssue({ code: "custom", path: [key], message: `expected ${key} for ${kind} questions` });
      if (q.kind !== kind && q[key] !== undefined)
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `${key} is for ${kind} questions, not ${q.kind}`,
        });
    };
    need("scale", "ordinal");
    need("options", "categorical");
  });
export type SurveyQuestion = z.output<typeof SurveyQuestionSchema>;

const NUMBER = /-?\d+(?:\.\d+)?/g;
const YES_NO = /\b(yes|no|true|false)\b/i;

/**
 * The answer a reply gives to a question, as `validate` reads a cell; null when it gives none. The rule, the
 * same for every reply: a numeric question takes the reply's first number; an ordinal one its first number that
 * is a point of the scale; a binary one its first yes, no, true or false; a categorical one the option named
 * earliest (whole words, any case; the longer option where two start at the same place).
 */
export function surveyAnswer(question: SurveyQuestion, reply: string): string | null {
  switch (question.kind) {
    case "numeric":
      return reply.match(NUMBER)?.[0] ?? null;
    case "ordinal": {
      const points = new Set(scaleRange(question.scale!));
      for (const n of reply.match(NUMBER) ?? []) if (points.has(Number(n))) return String(Number(n));
      return null;
    }
    case "binary": {
      const word = YES_NO.exec(reply)?.[1]?.toLowerCase();
      return word === undefined ? null : word === "yes" || word === "true" ? "yes" : "no";
    }
    case "categorical": {
      let best: { at: number; option: string } | undefined;
      for (const option of question.options!) {
        const escaped = option.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        const at = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "iu").exec(reply)?.index;
        if (at === undefined) continue;
        if (!best || at < best.at || (at === best.at && option.length > best.option.length))
          best = { at, option };
      }
      return best?.option ?? null;
    }
  }
}
