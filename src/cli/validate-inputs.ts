// What \`dramaturg validate\` takes: its flags, the questions and thresholds they (or a spec file) give, the reasons
// of both sides for \`--reasons\`, and the reasons' themes compared through the judge. Everything here is checked
// before any judge call or write.
import { InputError } from "../core/index.ts";
import type { AnswerTable, QuestionSpec, Validation, ValidationThresholds } from "../validation/index.ts";

type ValidationModule = typeof import("../validation/index.ts");

export interface ValidateFlags {
  column?: string;
  simulatedColumn?: string;
  kind?: string;
  scale?: string;
  options?: string[];
  spec?: string;
  alpha?: string;
  collapseSdRatio?: string;
  collapseEntropyRatio?: string;
  seed?: string;
  format: "table" | "markdown" | "json";
  out?: string;
  svg?: string;
  name?: string;
  experiment?: string;
  arm?: string;
  reasons?: string;
  simulatedReasons?: string;
  judge?: string;
  judgeBaseUrl?: string;
  judgeApiKeyEnv?: string;
  db?: string;
  config?: string;
}

/** A threshold flag as a number in (low, high), or an InputError naming the flag. */
function numberFlag(value: string | undefined, flag: string, low: number, high: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n <= low || n >= high)
    throw new InputError(
      `expected a number above ${low}${Number.isFinite(high) ? ` and below ${high}` : ""}, got "${value}"`,
      {
        place: flag,
      },
    );
  return n;
}

/** The questions (from the flags or \`--spec\`) and the thresholds (the spec's, overridden by the flags). */
export function validationQuestions(
  v: ValidationModule,
  flags: ValidateFlags,
): { questions: QuestionSpec[]; thresholds: Partial<ValidationThresholds> } {
  if (flags.spec !== undefined && flags.column !== undefined)
    throw new InputError("give either --spec or --column, not both", { place: "--spec" });
  let questions: QuestionSpec[];
  let thresholds: Partial<ValidationThresholds> = {};
  if (flags.spec !== undefined) {
    const spec = v.readValidationSpec(flags.spec);
    questions = spec.questions;
    thresholds = spec.thresholds;
  } else {
    if (flags.column === undefined)
      throw new InputError("which question? give --column NAME --kind KIND (or --spec FILE)", {
        place: "--column",
      });
    if (flags.kind === undefined)
      throw new InputError(`expected one of ${v.ANSWER_KINDS.join(", ")}`, { place: "--kind" });
    questions = [v.questionFromFlags({ ...flags, column: flags.column, kind: flags.kind })];
  }
  const seed = flags.seed === undefined ? undefined : Number(flags.seed);
  if (seed !== undefined && !Number.isInteger(seed))
    throw new InputError(`expected a whole number, got "${flags.seed}"`, { place: "--seed" });
  const overrides = Object.fromEntries(
    Object.entries({
      alpha: numberFlag(flags.alpha, "--alpha", 0, 1),
      collapse_sd_ratio: numberFlag(
        flags.collapseSdRatio,
        "--collapse-sd-ratio",
        0,
        Number.POSITIVE_INFINITY,
      ),
      collapse_entropy_ratio: numberFlag(
        flags.collapseEntropyRatio,
        "--collapse-entropy-ratio",
        0,
        Number.POSITIVE_INFINITY,
      ),
      seed,
    }).filter(([, value]) => value !== undefined),
  );

  return { questions, thresholds: { ...thresholds, ...overrides } };
}

/**
 * The reasons of both sides (`--reasons`) from the answer tables already read, checked before any judge call;
 * undefined without the flag. `simulated` is undefined when the answers come from an experiment.
 */
export function readReasons(
  v: ValidationModule,
  tables: { real: AnswerTable; simulated: AnswerTable | undefined },
  flags: ValidateFlags,
): { real: string[]; simulated: string[] } | undefined {
  if (flags.reasons === undefined) {
    if (flags.simulatedReasons !== undefined)
      throw new InputError("--simulated-reasons goes with --reasons COLUMN", {
        place: "--simulated-reasons",
      });
    return undefined;
  }
  if (tables.simulated === undefined)
    throw new InputError(
      "an experiment's survey keeps the answers, not the replies' reasons; compare reasons from files",
      {
        place: "--reasons",
      },
    );
  if (flags.judge === undefined)
    throw new InputError("the reasons' themes are listed and matched by a judge: give --judge", {
      place: "--reasons",
    });
  const texts = (table: AnswerTable, column: string, flag: string) => {
    v.requireColumn(table, column, flag);
    return table.cells(column).map((c) => (c === null || c === undefined ? "" : String(c)));
  };
  return {
    real: texts(tables.real, flags.reasons, "--reasons"),
    simulated: texts(tables.simulated, flags.simulatedReasons ?? flags.reasons, "--simulated-reasons"),
  };
}

/** The validation with the themes of both sides' reasons compared through \`--judge\` (\`reason_themes\`). */
export async function withReasonThemes(
  v: ValidationModule,
  computed: Validation,
  reasons: { real: string[]; simulated: string[] },
  flags: ValidateFlags,
): Promise<Validation> {
  const { createJudge } = await import("../judge/index.ts");
  const judge = createJudge(flags.judge!, { baseUrl: flags.judgeBaseUrl, apiKeyEnv: flags.judgeApiKeyEnv });
  try {
    const themes = await v.compareReasonThemes({ question: flags.reasons!, ...reasons, judge });
    if (themes.errored > 0)
      process.stderr.write(
        `dramaturg: ${themes.errored} judge request(s) for the reasons' themes failed; their figures are null\n`,
      );
    const { summary, ...rest } = computed;
    return { ...rest, reason_themes: themes, summary };
  } finally {
    await judge.close?.();
  }
}
