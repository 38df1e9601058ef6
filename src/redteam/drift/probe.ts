// The drift probe format `dramaturg.drift-probes/v1`: a probe is a question asked in a fork of the
// conversation, an optional standing instruction the target is given at the start (what the probe tests it
// still follows), and a checker of the answer. One zod schema; a mistake is reported at its line.
import { z } from "zod";
import { celJs, InputError, parseLocatedYaml, readInputFile } from "../../core/index.ts";
import { exampleMismatch } from "./checkers.ts";
import { LANGUAGES } from "./language.ts";

export const DRIFT_PROBES_FORMAT = "dramaturg.drift-probes/v1";

/** The kinds of probe the persona-drift literature names (Li et al. 2024, arXiv:2402.10962). */
export const PROBE_KINDS = ["pattern", "multiple_choice", "persona", "memorisation", "language"] as const;

const text = z.string().trim().min(1);

export const RegexCheckerSchema = z
  .object({
    type: z.literal("regex"),
    pattern: text.describe("A JavaScript regular expression; {{agent_name}} is the persona's name, escaped"),
    flags: z
      .string()
      .regex(/^[imsu]*$/, "flags among i, m, s, u")
      .default("i"),
    match: z.boolean().default(true).describe("false: the answer passes when the pattern is NOT found"),
  })
  .strict();

export const LanguageCheckerSchema = z
  .object({
    type: z.literal("language"),
    language: z.enum(LANGUAGES).describe("The language the answer must be in (ISO 639-1)"),
  })
  .strict();

export const WordsCheckerSchema = z
  .object({
    type: z.literal("words"),
    words: z.array(text).min(1).describe("Whole words or phrases, case aside"),
    mode: z.enum(["any", "all", "none"]).describe("any: one of them; all: every one; none: not one"),
  })
  .strict();

export const JsonFieldCheckerSchema = z
  .object({
    type: z.literal("json_field"),
    path: text.describe("A dotted path into the answer's JSON object (`status.ready`, `items.0`)"),
    equals: z.unknown().optional().describe("The value the field must have (deep equality)"),
    is: z
      .enum(["string", "number", "boolean", "object", "array", "null"])
      .optional()
      .describe("The JSON type the field must have"),
  })
  .strict();

export const CelCheckerSchema = z
  .object({
    type: z.literal("cel"),
    expression: text.describe(
      "A CEL expression that must be true; it sees answer (string), words (list of words), lines (list), json (the parsed answer or null)",
    ),
  })
  .strict();

export const JudgeCheckerSchema = z
  .object({
    type: z.literal("judge"),
    proposition: text.describe("A claim about the answer that the judge checks (true passes)"),
  })
  .strict();

export const CheckerSchema = z.discriminatedUnion("type", [
  RegexCheckerSchema,
  LanguageCheckerSchema,
  WordsCheckerSchema,
  JsonFieldCheckerSchema,
  CelCheckerSchema,
  JudgeCheckerSchema,
]);

export const ProbeSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]*$/, "lowercase letters, digits, - and _")
      .describe("Stable id, unique in the suite"),
    kind: z.enum(PROBE_KINDS),
    instruction: text
      .optional()
      .describe(
        "A standing rule added to the target's system prompt at the start; probes with the same one share a conversation",
      ),
    text: text.describe("The question asked in the fork"),
    checker: CheckerSchema,
    examples: z
      .object({ pass: z.array(z.string()).default([]), fail: z.array(z.string()).default([]) })
      .strict()
      .optional()
      .describe("Answers the checker must pass and fail ({{agent_name}} filled): a probe's own test"),
  })
  .strict();

export const DriftProbesFileSchema = z
  .object({
    format: z.literal(DRIFT_PROBES_FORMAT),
    probes: z.array(ProbeSchema).min(1),
  })
  .strict();

export type Checker = z.output<typeof CheckerSchema>;
export type Probe = z.output<typeof ProbeSchema>;
export type ProbeKind = (typeof PROBE_KINDS)[number];

/** The one template variable of a probe. */
const VARIABLE = /\{\{\s*(\w+)\s*\}\}/g;

/** The strings of a probe that may name `{{agent_name}}`, with their paths in the probe. */
function templated(probe: Probe): [string, (string | number)[]][] {
  const c = probe.checker;
  const out: [string, (string | number)[]][] = [[probe.text, ["text"]]];
  if (probe.instruction) out.push([probe.instruction, ["instruction"]]);
  if (c.type === "regex") out.push([c.pattern, ["checker", "pattern"]]);
  if (c.type === "words") for (const [i, w] of c.words.entries()) out.push([w, ["checker", "words", i]]);
  if (c.type === "judge") out.push([c.proposition, ["checker", "proposition"]]);
  return out;
}

/**
 * What is wrong with one probe beyond its shape (an unknown variable, a regex or CEL expression that does
 * not compile, a json_field checker that checks nothing), as the path of the value and the message; or none.
 */
export function probeProblem(probe: Probe): { path: (string | number)[]; message: string } | undefined {
  for (const [value, path] of templated(probe))
    for (const m of value.matchAll(VARIABLE))
      if (m[1] !== "agent_name")
        return { path, message: `unknown variable {{${m[1]}}}: expected {{agent_name}}` };
  const c = probe.checker;
  if (c.type === "regex")
    try {
      new RegExp(c.pattern.replace(VARIABLE, "x"), c.flags);
    } catch (error) {
      return {
        path: ["checker", "pattern"],
        message: `not a valid regular expression: ${(error as Error).message}`,
      };
    }
  if (c.type === "cel")
    try {
      celJs().parse(c.expression);
    } catch (error) {
      return {
        path: ["checker", "expression"],
        message: `not a valid CEL expression: ${(error as Error).message.split("\n")[0]}`,
      };
    }
  if (c.type === "json_field" && c.equals === undefined && c.is === undefined)
    return { path: ["checker"], message: "a json_field checker needs equals, is, or both" };
  return undefined;
}

/** Parses a probe file's text; every problem an InputError with the file, line and column. */
export function parseProbeFile(textOfFile: string, file: string): Probe[] {
  const located = parseLocatedYaml(textOfFile, file, DriftProbesFileSchema);
  const seen = new Set<string>();
  located.data.probes.forEach((probe, i) => {
    if (seen.has(probe.id))
      throw new InputError(`probes[${i}].id: "${probe.id}" is used twice; expected unique probe ids`, {
        file,
        place: located.placeOf(["probes", i, "id"]),
      });
    seen.add(probe.id);
    const problem = probeProblem(probe) ?? exampleMismatch(probe);
    if (problem)
      throw new InputError(`probes[${i}].${problem.path.join(".")}: ${problem.message}`, {
        file,
        place: located.placeOf(["probes", i, ...problem.path]),
      });
  });
  return located.data.probes;
}

/** Reads and checks a probe file (YAML or JSON). */
export function loadProbeFile(file: string): Probe[] {
  return parseProbeFile(readInputFile(file, "the probe file"), file);
}

/** The JSON Schema of a probe file, for `dramaturg schema drift-probes`. */
export function driftProbesJsonSchema(): unknown {
  return z.toJSONSchema(DriftProbesFileSchema, { io: "input", unrepresentable: "any" });
}
