// Any two result sets compared metric by metric: reads Dramaturg's own `dramaturg.experiment-result/v1` or a
// TinyTroupe experiment results file (`experiments.<arm>.results.<metric>: [numbers]`, what TinyTroupe's
// InPlaceExperimentRunner saves), picks the control and treatment arms, and compares each metric with
// compareArms into a `dramaturg.experiment-comparison/v1` document.
import { z } from "zod";
import {
  firstIssue,
  InputError,
  issuePath,
  parseJsonText,
  parsePythonJson,
  readInputFile,
  validateInput,
} from "../core/index.ts";
import { type ArmComparison, compareArms } from "./statistics.ts";

export const EXPERIMENT_RESULT_FORMAT = "dramaturg.experiment-result/v1";
export const EXPERIMENT_COMPARISON_FORMAT = "dramaturg.experiment-comparison/v1";

const MetricValuesSchema = z.record(z.string().min(1), z.array(z.number()));

/**
 * What every `dramaturg.experiment-result/v1` document holds, and all that a comparison reads: for each arm
 * (by name: `control`, `treatment`, …), for each metric (by name: `adherence`, `ideas_quantity`, …), the
 * values measured, one per sample unit (an agent in an environment, or an environment), in a stable order.
 * The runner's document adds what else it records (scenario, environments, statistics) beside these keys
 * and inside each arm; a reader ignores what it does not know.
 */
export const ExperimentResultSchema = z.looseObject({
  format: z.literal(EXPERIMENT_RESULT_FORMAT),
  arms: z.record(
    z.string().min(1),
    z.looseObject({
      /** The values of each metric in this arm: numbers, one per sample unit. */
      metrics: MetricValuesSchema,
    }),
  ),
});
export type ExperimentResultValues = z.output<typeof ExperimentResultSchema>;

/**
 * TinyTroupe's results file as far as a comparison reads it; an arm that has not run yet has no `results`. A
 * metric is a list of numbers, or the list of what was extracted (its food-products brainstorm keeps the ideas
 * themselves, as records), which is compared by its count.
 */
const TinyTroupeResultsSchema = z.looseObject({
  experiments: z.record(
    z.string(),
    z.looseObject({
      results: z.record(z.string().min(1), z.array(z.unknown())).optional(),
    }),
  ),
});

const NumberList = z.array(z.number());
const RecordList = z.array(z.record(z.string(), z.unknown()));
const isRecord = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);

/** The arms of a results file, in file order, each with its metrics' values and where they are in the file. */
export interface ResultSets {
  source: "dramaturg" | "tinytroupe";
  arms: {
    name: string;
    path: string;
    metrics: Record<string, number[]> | undefined;
    /** The metrics given as lists of extracted records, each read as one value: how many there are. */
    counted?: string[];
  }[];
}

/** One metric's comparison, as `dramaturg.experiment-comparison/v1` lists it. */
export type MetricComparison = { metric: string } & ArmComparison;

/** The document `dramaturg experiment compare --format json` prints. */
export interface ExperimentComparison {
  format: typeof EXPERIMENT_COMPARISON_FORMAT;
  comparisons: MetricComparison[];
}

const WHAT = `a ${EXPERIMENT_RESULT_FORMAT} document or a TinyTroupe experiment results file`;

function validated<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  expected: string,
): z.output<S> {
  const parsed = validateInput(schema, value);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new InputError(`${issue.message}; expected ${expected}`, { file, place: issuePath(issue.path) });
  }
  return parsed.data;
}

/** Reads the arms of a parsed results document; `file` names it in errors (with the JSON path). */
export function parseResultSets(value: unknown, file: string): ResultSets {
  const keys = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
  const tinyTroupe = isTinyTroupeResults(value);
  if (!tinyTroupe) {
    if (!keys.includes("format") && !keys.includes("arms"))
      throw new InputError(`expected ${WHAT}: a mapping with "format" and "arms", or with "experiments"`, {
        file,
        place: "(root)",
      });
    const document = validated(ExperimentResultSchema, value, file, `a ${EXPERIMENT_RESULT_FORMAT} document`);
    return {
      source: "dramaturg",
      arms: Object.entries(document.arms).map(([name, arm]) => ({
        name,
        path: `arms.${name}.metrics`,
        metrics: arm.metrics,
      })),
    };
  }
  const document = validated(
    TinyTroupeResultsSchema,
    value,
    file,
    "a TinyTroupe experiment results file (experiments.<arm>.results.<metric>: a list of numbers)",
  );
  return {
    source: "tinytroupe",
    arms: Object.entries(document.experiments).map(([name, arm]) => {
      const path = `experiments.${name}.results`;
      if (!arm.results) return { name, path, metrics: undefined };
      const counted: string[] = [];
      const metrics: Record<string, number[]> = {};
      for (const [metric, values] of Object.entries(arm.results)) {
        const records = isRecord(values[0]);
        const parsed = validateInput(records ? RecordList : NumberList, values);
        if (!parsed.success) {
          const issue = firstIssue(parsed.error);
          throw new InputError(
            `${issue.message}; expected a TinyTroupe experiment results file (experiments.<arm>.results.<metric>: a list of numbers, or of the extracted records)`,
            { file, place: issuePath(["experiments", name, "results", metric, ...issue.path]) },
          );
        }
        if (records) counted.push(metric);
        metrics[metric] = records ? [values.length] : (parsed.data as number[]);
      }
      return { name, path, metrics, ...(counted.length > 0 ? { counted } : {}) };
    }),
  };
}

/**
 * A results file's JSON: strict, or — for a TinyTroupe results file, which Python's `json.dump` writes with
 * `NaN` for a statistic it could not compute — Python's JSON. A Dramaturg document stays strict JSON.
 */
export function readResultsJson(file: string): unknown {
  const text = readInputFile(file, "the results file");
  const python = parsePythonJson(text);
  if (isTinyTroupeResults(python)) return python;
  return parseJsonText(text, file, WHAT);
}

const isTinyTroupeResults = (value: unknown) =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  "experiments" in value &&
  !("format" in value);

/** Reads and checks a results file: a bad one is an InputError naming the file and the JSON path. */
export function readResultSets(file: string): ResultSets {
  return parseResultSets(readResultsJson(file), file);
}

export interface CompareResultSetsOptions {
  /** The control arm's name; default: the arm named `control` (any case). */
  control?: string;
  /** The treatment arm's name; default: the arm named `treatment` (any case), or the only other arm. */
  treatment?: string;
  /** Significance level (p < alpha); 0.05 by default. */
  alpha?: number;
  /** The file the sets were read from, for error messages. */
  file?: string;
}

/** One arm of a results file. */
export type ResultArm = ResultSets["arms"][number];

/**
 * The control and treatment arms: those named in `options`, else the arm named `control` (any case) and the
 * arm named `treatment` (any case) or the only other arm. An InputError lists the arms found when they
 * cannot be chosen, and names the place of a chosen arm that has no results yet.
 */
export function chooseArms(
  sets: ResultSets,
  { control, treatment, file }: Pick<CompareResultSetsOptions, "control" | "treatment" | "file"> = {},
): { control: ResultArm; treatment: ResultArm } {
  const found = sets.arms.map((a) => a.name);
  const listed = found.length > 0 ? found.map((n) => JSON.stringify(n)).join(", ") : "none";
  const byName = (name: string, flag: string) => {
    const arm = sets.arms.find((a) => a.name === name);
    if (!arm) throw new InputError(`no arm named "${name}" (${flag}); arms found: ${listed}`, { file });
    return arm;
  };
  const pick = (word: string, flag: string, others: ResultArm[]) => {
    const matches = sets.arms.filter((a) => a.name.toLowerCase() === word);
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0 && others.length === 1) return others[0]!;
    const why = matches.length > 1 ? `several are named "${word}"` : `none is named "${word}"`;
    throw new InputError(
      `cannot tell which arm is the ${word}: ${why}; arms found: ${listed}; name it with ${flag}`,
      {
        file,
      },
    );
  };
  const controlArm =
    control !== undefined
      ? byName(control, "--control")
      : pick(
          "control",
          "--control",
          sets.arms.filter((a) => a.name !== treatment && a.name.toLowerCase() !== "treatment"),
        );
  const treatmentArm =
    treatment !== undefined
      ? byName(treatment, "--treatment")
      : pick(
          "treatment",
          "--treatment",
          sets.arms.filter((a) => a !== controlArm),
        );
  if (controlArm === treatmentArm)
    throw new InputError(`the control and the treatment are the same arm ("${controlArm.name}")`, { file });
  for (const arm of [controlArm, treatmentArm])
    if (arm.metrics === undefined)
      throw new InputError(`missing: the arm "${arm.name}" has no results yet`, { file, place: arm.path });
  return { control: controlArm, treatment: treatmentArm };
}

/**
 * Compares the treatment arm with the control arm (see {@link chooseArms}) on every metric either has: the
 * control's metrics in file order, then the treatment's others. A metric only one arm has is listed, with
 * null figures and a note.
 */
export function compareResultSets(
  sets: ResultSets,
  { alpha, ...choice }: CompareResultSetsOptions = {},
): ExperimentComparison {
  const arms = chooseArms(sets, choice);
  const c = arms.control.metrics!;
  const t = arms.treatment.metrics!;
  const metrics = [...Object.keys(c), ...Object.keys(t).filter((m) => !Object.hasOwn(c, m))];
  const counted = new Set([...(arms.control.counted ?? []), ...(arms.treatment.counted ?? [])]);
  return {
    format: EXPERIMENT_COMPARISON_FORMAT,
    comparisons: metrics.map((metric) => {
      const comparison = compareArms(c[metric] ?? [], t[metric] ?? [], { alpha });
      if (!counted.has(metric)) return { metric, ...comparison };
      const said = `the file lists the extracted ${metric} themselves: each arm's value is their count`;
      return { metric, ...comparison, note: comparison.note ? `${said}; ${comparison.note}` : said };
    }),
  };
}
