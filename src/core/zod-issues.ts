// Turns zod issues into plain sentences: one error map says what was expected and what was found, and
// the formatters give the JSON path of the first problem. Never zod's defaults ("Too small: expected …").
import type { z } from "zod";

/** `messages[3].sender` style path of a zod issue. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || "(root)";
}

/** The first issue of a zod error as `{ path, message }`. */
export function firstIssue(error: z.ZodError): { path: readonly PropertyKey[]; message: string } {
  const issue = error.issues[0];
  if (!issue) return { path: [], message: "invalid value" };
  return { path: issue.path, message: issue.message };
}

/**
 * Validates `value` with `schema`, every issue worded by {@link plainIssueMessage} unless the schema
 * gives its own. The one way our readers validate input, so no zod default reaches a user.
 */
export function validateInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
): z.ZodSafeParseResult<z.output<S>> {
  return schema.safeParse(value, { error: plainIssueMessage });
}

/**
 * The error map of every input we read: `expected a number of 1 or more, got 0`, `missing; expected a
 * string`, `unknown key "modle"`. A message a schema gives itself takes precedence over this one.
 */
export function plainIssueMessage(issue: z.core.$ZodRawIssue): string {
  const input = issue.input;
  const got = input === undefined ? "" : `, got ${describeValue(input)}`;
  switch (issue.code) {
    case "invalid_type":
      if (input === undefined) return `missing; expected ${nounForType(issue.expected)}`;
      return `expected ${nounForType(issue.expected)}${got}`;
    case "too_small":
    case "too_big":
      return `expected ${boundNoun(issue)}${got}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `expected ${JSON.stringify(issue.values[0])}${got}`
        : `expected one of ${issue.values.map((v) => String(v)).join(", ")}${got}`;
    case "unrecognized_keys":
      return `unknown key ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    case "invalid_format":
      return `expected ${formatNoun(issue)}${got}`;
    case "not_multiple_of":
      return `expected a multiple of ${String(issue.divisor)}${got}`;
    case "invalid_union":
      return `expected one of the accepted forms${got}`;
    case "invalid_key":
      return `has a key that is not valid${got}`;
    case "invalid_element":
      return `has an item that is not valid${got}`;
    default:
      return `not a valid value${got}`;
  }
}

/** `a whole number`, `a list`… for zod's type names. */
export function nounForType(expected: string): string {
  switch (expected) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "int":
      return "a whole number";
    case "boolean":
      return "true or false";
    case "array":
      return "a list";
    case "object":
    case "record":
      return "a mapping (key: value lines)";
    default:
      return `a value of type ${expected}`;
  }
}

/** `a number of 1 or more`, `a non-empty list`… for a too_small or too_big issue. */
export function boundNoun(issue: {
  code: "too_small" | "too_big";
  origin: string;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: boolean;
}): string {
  const small = issue.code === "too_small";
  const bound = Number(small ? issue.minimum : issue.maximum);
  const inclusive = issue.inclusive ?? true;
  switch (issue.origin) {
    case "string":
      if (small && bound === 1) return "a non-empty string";
      return `a string of ${small ? "at least" : "at most"} ${bound} characters`;
    case "array":
    case "set":
      if (small && bound === 1) return "a non-empty list";
      return `a list of ${small ? "at least" : "at most"} ${bound} items`;
    default:
      if (small) return inclusive ? `a number of ${bound} or more` : `a number greater than ${bound}`;
      return inclusive ? `a number of ${bound} or less` : `a number less than ${bound}`;
  }
}

function formatNoun(issue: { format: string; pattern?: string }): string {
  switch (issue.format) {
    case "datetime":
      return "an ISO 8601 date and time such as 2026-03-01T09:00:00Z";
    case "date":
      return "a date such as 2026-03-01";
    case "url":
      return "a URL such as http://127.0.0.1:11434/v1";
    case "regex":
      return issue.pattern ? `a string matching ${issue.pattern}` : "a string in the expected form";
    default:
      return `a string in ${issue.format} format`;
  }
}

/** A value as a message shows it: `0`, `the string "many"` (cut at 40 characters), `a list`. */
export function describeValue(value: unknown): string {
  if (value === null) return "an empty value";
  if (typeof value === "string")
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "number" && Number.isNaN(value)) return "something that is not a number";
  return String(value);
}
