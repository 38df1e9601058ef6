// `dramaturg.validation/v1`: simulated answers held against real people's, question by question — each
// side's n, mean, sd, entropy and counts, the tests (Welch, χ², KS), Wasserstein-1, the sd ratio, and a
// verdict with its reasons. One zod schema: the type, the validator and the JSON Schema (`dramaturg schema
// validation`).
import { z } from "zod";
import { ReasonThemesSchema } from "./reason-themes.ts";

export const VALIDATION_FORMAT = "dramaturg.validation/v1";

export const ANSWER_KINDS = ["numeric", "ordinal", "categorical", "ranking", "binary"] as const;
export type AnswerKind = (typeof ANSWER_KINDS)[number];

export const VERDICTS = ["consistent", "shifted", "collapsed", "different"] as const;
export type Verdict = (typeof VERDICTS)[number];

const Count = z.number().int().nonnegative();
const Figure = z.number().nullable();

export const ValidationSideSchema = z
  .object({
    n: Count.describe("answers counted"),
    missing: Count.describe("rows left out: an empty cell, N/A"),
    mean: Figure.describe("null for categorical answers and for a ranking's first choice"),
    sd: Figure.describe("sample standard deviation (n − 1); null with fewer than 2 answers"),
    entropy_bits: Figure.describe("Shannon entropy of the answers' shares in bits; null for numeric answers"),
    counts: z
      .record(z.string(), Count)
      .nullable()
      .describe("answers per category, scale point or first choice; null for numeric answers"),
  })
  .strict();
export type ValidationSide = z.infer<typeof ValidationSideSchema>;

export const ValidationThresholdsSchema = z
  .object({
    alpha: z.number().gt(0).lt(1).describe("significance level of every test"),
    collapse_sd_ratio: z
      .number()
      .positive()
      .describe("simulated sd / real sd below this, with the distributions differing: collapsed"),
    collapse_entropy_ratio: z
      .number()
      .positive()
      .describe("simulated entropy / real entropy below this, with the distributions differing: collapsed"),
    small_expected: z
      .number()
      .positive()
      .describe("an expected χ² count below this makes the χ² p approximate"),
    monte_carlo_samples: Count.describe(
      "tables drawn for the Monte-Carlo χ² p when expected counts are small",
    ),
    seed: z.number().int().describe("seed of the Monte-Carlo draws"),
  })
  .strict();
export type ValidationThresholds = z.infer<typeof ValidationThresholdsSchema>;

/** The documented defaults (docs/validation.md says why each). */
export const DEFAULT_THRESHOLDS: ValidationThresholds = {
  alpha: 0.05,
  collapse_sd_ratio: 0.6,
  collapse_entropy_ratio: 0.75,
  small_expected: 5,
  monte_carlo_samples: 10_000,
  seed: 49,
};

const Shares = z.record(z.string(), z.number());

export const ValidationQuestionSchema = z
  .object({
    question: z
      .string()
      .describe("the question (its column), or `QUESTION: rank of OPTION` for a ranking's option"),
    kind: z.enum(ANSWER_KINDS),
    of: z.string().optional().describe("a ranking option's rank: the ranking question it belongs to"),
    real: ValidationSideSchema,
    simulated: ValidationSideSchema,
    welch: z
      .object({ t: z.number(), df: z.number(), p: z.number() })
      .strict()
      .nullable()
      .describe("Welch's t-test of simulated − real; null for categorical answers or when undefined"),
    chi2: z
      .object({
        statistic: z.number(),
        df: z.number().int(),
        p: z.number(),
        min_expected: z.number(),
        small_expected_cells: Count,
        cells: Count,
        monte_carlo: z
          .object({ p: z.number(), samples: Count, seed: z.number().int() })
          .strict()
          .optional()
          .describe("only when an expected count is small"),
      })
      .strict()
      .nullable()
      .describe("Pearson's χ² on category × source (no continuity correction); null for numeric answers"),
    ks: z
      .object({ d: z.number(), p: z.number(), method: z.enum(["exact", "asymptotic"]) })
      .strict()
      .nullable()
      .describe("two-sample Kolmogorov–Smirnov, two-sided; numeric and ordinal answers"),
    wasserstein_1: Figure,
    sd_ratio: Figure.describe("simulated sd / real sd"),
    entropy_ratio: Figure.describe("simulated entropy / real entropy"),
    first_choice: z
      .object({ real: Shares, simulated: Shares })
      .strict()
      .optional()
      .describe("a ranking: each option's share of first choices"),
    mean_rank: z
      .object({ real: Shares, simulated: Shares })
      .strict()
      .optional()
      .describe("a ranking: each option's mean rank (1 = first)"),
    verdict: z.enum(VERDICTS),
    reasons: z.array(z.string()),
  })
  .strict();
export type ValidationQuestion = z.infer<typeof ValidationQuestionSchema>;

export const ValidationSchema = z
  .object({
    format: z.literal(VALIDATION_FORMAT),
    real: z.object({ file: z.string() }).strict(),
    simulated: z.object({ file: z.string() }).strict(),
    experiment: z
      .string()
      .optional()
      .describe("the stored experiment (its evaluation id) whose simulated answers these are, when named"),
    thresholds: ValidationThresholdsSchema,
    questions: z.array(ValidationQuestionSchema),
    reason_themes: ReasonThemesSchema.optional().describe(
      "the themes of the reasons people gave, real and simulated, compared through the judge (--reasons)",
    ),
    summary: z
      .object({
        questions: Count,
        failed: Count.describe("questions whose verdict is not consistent"),
        verdicts: z.record(z.enum(VERDICTS), Count),
      })
      .strict(),
  })
  .strict();
export type Validation = z.infer<typeof ValidationSchema>;

/** The JSON Schema of the format, as `dramaturg schema validation` prints it. */
export function validationJsonSchema(): unknown {
  return z.toJSONSchema(ValidationSchema, { io: "input" });
}
