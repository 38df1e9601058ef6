// Parses a YAML document and validates it with a zod schema, reporting any problem as
// `file:line:col: what: expected …` — the line a user has to open, not a JSON path.
import { createRequire } from "node:module";
import type * as Yaml from "yaml";
import type { Document } from "yaml";
import type { z } from "zod";
import { InputError } from "./errors.ts";
import { boundNoun, describeValue, nounForType, validateInput } from "./zod-issues.ts";

/** yaml (a CommonJS package) is required by the first parse, so importing dramaturg does not load it. */
let yamlModule: typeof Yaml | undefined;
function yaml(): typeof Yaml {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
  return yamlModule;
}

/** A path into the parsed document: object keys and array indexes, as zod reports them. */
export type DocumentPath = readonly PropertyKey[];

/** A validated document that can still say where each of its parts was written. */
export interface LocatedYaml<T> {
  data: T;
  /**
   * `line:col` (1-based) of the value at `path`; with `key: true`, of its key instead. A path that
   * is not in the document falls back to its nearest enclosing mapping or list.
   */
  placeOf(path: DocumentPath, options?: { key?: boolean }): string;
}

/** Parses `text` (read from `file`) and validates it; throws `InputError` with line and column. */
export function parseLocatedYaml<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
): LocatedYaml<z.output<S>> {
  const lineCounter = new (yaml().LineCounter)();
  const doc = yaml().parseDocument(text, { lineCounter, prettyErrors: false });
  const placeAt = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${line}:${col}`;
  };

  const syntaxError = doc.errors[0];
  if (syntaxError) {
    throw new InputError(`not valid YAML: ${syntaxError.message}`, {
      file,
      place: placeAt(syntaxError.pos[0]),
    });
  }

  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Unresolvable aliases and alias bombs surface here rather than as parse errors.
    throw new InputError(`not valid YAML: ${(error as Error).message}`, {
      file,
      place: placeAt(firstAliasOffset(doc)),
      cause: error,
    });
  }

  const placeOf = (path: DocumentPath, options: { key?: boolean } = {}): string =>
    placeAt(offsetOf(doc, path, options.key ?? false));

  const result = validateInput(schema, raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => describeIssue(issue, doc, raw, schema));
    // Report the problem nearest the top of the file: it is the one a reader meets first.
    problems.sort((a, b) => a.offset - b.offset);
    const first = problems[0]!;
    throw new InputError(first.message, { file, place: placeAt(first.offset) });
  }
  return { data: result.data, placeOf };
}

interface Problem {
  offset: number;
  message: string;
}

function describeIssue(issue: z.core.$ZodIssue, doc: Document, raw: unknown, schema: z.ZodType): Problem {
  const path = issue.path as PropertyKey[];
  const label = labelOf(path);
  const value = valueAt(raw, path);
  const present = value !== undefined;
  const got = present ? `, got ${describeValue(value)}` : "";
  const prefix = label ? `${label}: ` : "";

  switch (issue.code) {
    case "unrecognized_keys": {
      const key = String(issue.keys[0]);
      const allowed = knownKeys(schema, path);
      const expected = allowed.length > 0 ? `; expected one of ${allowed.join(", ")}` : "";
      return { offset: offsetOf(doc, [...path, key], true), message: `unknown key "${key}"${expected}` };
    }
    case "invalid_type": {
      const expected = nounForType(issue.expected);
      if (!present && path.length > 0) {
        return { offset: offsetOf(doc, path, false), message: `${prefix}missing; expected ${expected}` };
      }
      if (path.length === 0 && (value === null || value === undefined)) {
        return { offset: offsetOf(doc, path, false), message: `the file is empty; expected ${expected}` };
      }
      return { offset: offsetOf(doc, path, false), message: `${prefix}expected ${expected}${got}` };
    }
    case "too_small":
    case "too_big": {
      return { offset: offsetOf(doc, path, false), message: `${prefix}expected ${boundNoun(issue)}${got}` };
    }
    case "invalid_value": {
      const options = issue.values.map((v) => String(v)).join(", ");
      return { offset: offsetOf(doc, path, false), message: `${prefix}expected one of ${options}${got}` };
    }
    default: {
      // A schema gives its own expectation as a noun phrase ("an id of letters, …"); the core error map
      // words the rest whole ("expected a URL …, got …").
      const own = !/^(expected|missing|unknown|not a valid|has an?) /.test(issue.message);
      return {
        offset: offsetOf(doc, path, false),
        message: own ? `${prefix}expected ${issue.message}${got}` : `${prefix}${issue.message}`,
      };
    }
  }
}

/** `weight`, or `propositions[2]` when the path ends in a list index; "" for the whole document. */
function labelOf(path: readonly PropertyKey[]): string {
  let start = path.length;
  while (start > 0 && typeof path[start - 1] === "number") start--;
  if (start > 0) start--;
  let out = "";
  for (const part of path.slice(start)) out += typeof part === "number" ? `[${part}]` : String(part);
  return out;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let current = raw;
  for (const part of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

/** Source offset of the node at `path` (or its key); falls back to the nearest ancestor that exists. */
function offsetOf(doc: Document, path: readonly PropertyKey[], key: boolean): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const prefix = path.slice(0, depth);
    if (key && depth === path.length && depth > 0) {
      const parent = nodeAt(doc, prefix.slice(0, -1));
      const name = prefix[prefix.length - 1];
      if (yaml().isMap(parent)) {
        const pair = parent.items.find((p) => yaml().isScalar(p.key) && String(p.key.value) === String(name));
        if (pair && yaml().isNode(pair.key) && pair.key.range) return pair.key.range[0];
      }
      continue;
    }
    const node = nodeAt(doc, prefix);
    if (yaml().isNode(node) && node.range) return node.range[0];
  }
  return 0;
}

function firstAliasOffset(doc: Document): number {
  let offset = 0;
  yaml().visit(doc, {
    Alias(_, node) {
      offset = node.range?.[0] ?? 0;
      return yaml().visit.BREAK;
    },
  });
  return offset;
}

function nodeAt(doc: Document, path: readonly PropertyKey[]): unknown {
  if (path.length === 0) return doc.contents;
  return doc.getIn(path as unknown[], true);
}

/** The keys a strict object schema accepts at `path`, in the order the schema declares them. */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.core.$ZodType | undefined = unwrap(schema);
  for (const part of path) {
    if (!current) return [];
    const def = current._zod.def as {
      type: string;
      shape?: Record<string, z.core.$ZodType>;
      element?: z.core.$ZodType;
    };
    if (def.type === "object" && typeof part === "string") current = unwrap(def.shape?.[part]);
    else if (def.type === "array" && typeof part === "number") current = unwrap(def.element);
    else return [];
  }
  const def = current?._zod.def as { type: string; shape?: Record<string, unknown> } | undefined;
  return def?.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

function unwrap(schema: z.core.$ZodType | undefined): z.core.$ZodType | undefined {
  let current = schema;
  for (let i = 0; i < 10 && current; i++) {
    const def = current._zod.def as { type: string; innerType?: z.core.$ZodType; in?: z.core.$ZodType };
    if (def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else break;
  }
  return current;
}
