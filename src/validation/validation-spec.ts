// Which columns to compare and how: one question from flags (`--column Vote --kind ordinal --scale 1-5`),
// or several from a small YAML spec, with the verdict's thresholds if they differ from the defaults:
//
//   questions:
//     - column: Vote               # the real answers' column
//       simulated_column: response # the simulated answers' column, when it is named differently
//       kind: ordinal              # numeric, ordinal, categorical, ranking, binary
//       scale: 1-5                 # ordinal: a range of integers, or labels from low to high
//   thresholds:
//     alpha: 0.05

import { z } from "zod";
import { InputError, parseLocatedYaml, readInputFile, scaleRange } from "../core/index.ts";
import { ANSWER_KINDS, type AnswerKind, ValidationThresholdsSchema } from "./validation-format.ts";

export { scaleRange };

/** One question to compare: its columns on each side, its kind and what its answers may be. */
export interface QuestionSpec {
  /** The name in the report; the real column's by default. */
  question: string;
  column: string;
  simulated_column: string;
  kind: AnswerKind;
  /** Ordinal: the scale's points as numbers, and the labels a cell may hold for each (1…K for labels). */
  scale?: { points: number[]; labels?: string[] };
  /** Categorical: the allowed categories (default: whatever either side gave). Ranking: the options. */
  options?: string[];
}

const ScaleSchema = z.union([
  z.string().refine((s) => scaleRange(s) !== undefined, {
    message: "expected a range of integers such as 1-5",
  }),
  z.array(z.string().min(1)).min(2).describe("labels from the lowest point to the highest (1…K)"),
]);

const QuestionSpecSchema = z
  .object({
    column: z.string().min(1),
    simulated_column: z.string().min(1).optional(),
    question: z.string().min(1).optional(),
    kind: z.enum(ANSWER_KINDS),
    scale: ScaleSchema.optional(),
    options: z.array(z.string().min(1)).min(2).optional(),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.scale !== undefined && q.kind !== "ordinal")
      ctx.addIssue({
        code: "custom",
        path: ["scale"],
        message: `a scale is for ordinal answers, not ${q.kind}`,
      });
    if (q.options !== undefined && q.kind !== "categorical" && q.kind !== "ranking")
      ctx.addIssue({
        code: "custom",
        path: ["options"],
        message: `options are for categorical or ranking answers, not ${q.kind}`,
      });
  });

export const ValidationSpecSchema = z
  .object({
    questions: z.array(QuestionSpecSchema).min(1),
    thresholds: ValidationThresholdsSchema.partial().optional(),
  })
  .strict();
export type ValidationSpecFile = z.infer<typeof ValidationSpecSchema>;

/** The questions and thresholds of a spec file. */
export interface ValidationSpec {
  questions: QuestionSpec[];
  thresholds: Partial<z.infer<typeof ValidationThresholdsSchema>>;
}

/** Reads a spec file; a problem is an `InputError` naming the file, its line and what was expected. */
export function readValidationSpec(file: string): ValidationSpec {
  const { data } = parseLocatedYaml(readInputFile(file, "the validation spec"), file, ValidationSpecSchema);
  return { questions: data.questions.map(questionSpec), thresholds: data.thresholds ?? {} };
}

/** A question from its written form (a spec entry, or the command's flags). */
export function questionSpec(entry: z.infer<typeof QuestionSpecSchema>): QuestionSpec {
  const spec: QuestionSpec = {
    question: entry.question ?? entry.column,
    column: entry.column,
    simulated_column: entry.simulated_column ?? entry.column,
    kind: entry.kind,
  };
  if (entry.scale !== undefined) {
    spec.scale =
      typeof entry.scale === "string"
        ? { points: scaleRange(entry.scale)! }
        : { points: entry.scale.map((_, i) => i + 1), labels: entry.scale };
  }
  if (entry.options !== undefined) spec.options = entry.options;
  return spec;
}

/** The one question of `--column … --kind … [--scale …]`. */
export function questionFromFlags(flags: {
  column: string;
  simulatedColumn?: string;
  kind: string;
  scale?: string;
  options?: string[];
}): QuestionSpec {
  const parsed = QuestionSpecSchema.safeParse({
    column: flags.column,
    simulated_column: flags.simulatedColumn,
    kind: flags.kind,
    scale: flags.scale,
    options: flags.options,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = `--${String(issue.path[0] ?? "column").replace("simulated_column", "simulated-column")}`;
    throw new InputError(
      issue.path[0] === "kind"
        ? `expected one of ${ANSWER_KINDS.join(", ")}, got "${flags.kind}"`
        : issue.message,
      { place: flag },
    );
  }
  return questionSpec(parsed.data);
}
