// Reads human-label files (YAML, JSON, JSONL, CSV) into one list of labels, each remembering the file and
// line it came from, so that every later complaint about it (an unknown proposition, a second rating by the
// same rater) can name the place a person has to open.
import { createRequire } from "node:module";
import type * as CsvSync from "csv-parse/sync";
import type * as Yaml from "yaml";
import type { z } from "zod";
// The typo helper is not (yet) exported by core's index; switch to it there once it is.
import {
  InputError,
  issuePath,
  nearestName,
  parseJsonText,
  readInputFile,
  validateInput,
} from "../core/index.ts";
import { LABEL_COLUMNS, LABELS_FORMAT, type Label, LabelSchema, LabelsHeaderSchema } from "./labels.ts";

/** Where a label was written: its file and the (1-based) line of its entry, JSONL line or CSV record. */
export interface LabelSource {
  file: string;
  line: number;
}

/** A validated label and where it came from. */
export type SourcedLabel = Label & { source: LabelSource };

/** Every label of some files, in file order then line order. */
export interface LabelSet {
  files: string[];
  labels: SourcedLabel[];
}

/** The label formats, told apart by the file's extension, else by its first line. */
export type LabelsFileKind = "yaml" | "json" | "jsonl" | "csv";

/** Reads and validates each file; any problem is an `InputError` naming the file and line. */
export function readLabels(files: readonly string[]): LabelSet {
  const labels: SourcedLabel[] = [];
  for (const file of files) labels.push(...parseLabels(readInputFile(file, "the labels"), file));
  return { files: [...files], labels };
}

/** Parses the text of one labels file; `file` names it in messages and in each label's source. */
export function parseLabels(text: string, file: string, kind = labelsFileKind(text, file)): SourcedLabel[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  switch (kind) {
    case "csv":
      return parseCsv(body, file);
    case "jsonl":
      return parseJsonl(body, file);
    case "json":
      // The JSON reader first, for its precise syntax errors; then the YAML reader (JSON is YAML) for lines.
      parseJsonText(body, file, EXPECTED_DOCUMENT);
      return parseDocument(body, file);
    default:
      return parseDocument(body, file);
  }
}

export function labelsFileKind(text: string, file: string): LabelsFileKind {
  const extension = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  if (extension === "csv") return "csv";
  if (extension === "jsonl" || extension === "ndjson") return "jsonl";
  if (extension === "json") return "json";
  if (extension === "yaml" || extension === "yml") return "yaml";
  const first = text
    .replace(/^\uFEFF/, "")
    .trimStart()
    .split("\n", 1)[0]!
    .trim();
  if (first.startsWith("{") && first.endsWith("}") && text.trim().includes("\n")) return "jsonl";
  if (first.startsWith("{") || first.startsWith("[")) return "json";
  if (/^"?dimension"?\s*,|,\s*"?dimension"?\s*(,|$)/.test(first)) return "csv";
  return "yaml";
}

const EXPECTED_DOCUMENT = `a ${LABELS_FORMAT} document (format, note, labels)`;

/** A raw label object and where it starts; `lineOf` finds a field's own line where the format knows it. */
interface RawLabel {
  value: unknown;
  line: number;
  lineOf?: (field: PropertyKey) => number | undefined;
}

/** Validates one raw label; a problem names the field and the line of the field (or of the label). */
function validateLabel({ value, line, lineOf }: RawLabel, file: string): SourcedLabel {
  const result = validateInput(LabelSchema, value);
  if (result.success) return { ...result.data, source: { file, line } };
  const issue = result.error.issues[0]!;
  // An unknown key is reported at the key, which zod gives as the issue's keys rather than its path.
  const field = issue.code === "unrecognized_keys" ? issue.keys[0] : issue.path[0];
  const at = (field !== undefined ? lineOf?.(field) : undefined) ?? line;
  const where = issue.path.length > 0 ? `${issuePath(issue.path)}: ` : "";
  throw new InputError(`${where}${unknownKeyHint(issue) ?? issue.message}`, { file, place: String(at) });
}

function unknownKeyHint(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== "unrecognized_keys") return undefined;
  const key = String(issue.keys[0]);
  return `unknown key "${key}"${didYouMean(key, LABEL_COLUMNS)}; expected any of ${LABEL_COLUMNS.join(", ")}`;
}

function didYouMean(name: string, known: Iterable<string>): string {
  const near = nearestName(name, known);
  return near ? ` (did you mean "${near}"?)` : "";
}

// ---------------------------------------------------------------------------------------------------------
// YAML and JSON: `{ format, note?, labels: [...] }`, lines from the YAML parser's node ranges.

let yamlModule: typeof Yaml | undefined;
/** yaml (CommonJS) is required on first use, so importing dramaturg does not load it. */
function yaml(): typeof Yaml {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof Yaml;
  return yamlModule;
}

function parseDocument(text: string, file: string): SourcedLabel[] {
  const y = yaml();
  const lineCounter = new y.LineCounter();
  const doc = y.parseDocument(text, { lineCounter, prettyErrors: false });
  const lineAt = (offset: number) => lineCounter.linePos(offset).line;
  const syntaxError = doc.errors[0];
  if (syntaxError)
    throw new InputError(`not valid YAML: ${syntaxError.message}; expected ${EXPECTED_DOCUMENT}`, {
      file,
      place: String(lineAt(syntaxError.pos[0])),
    });
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new InputError(`not valid YAML: ${(error as Error).message}`, { file, cause: error });
  }
  const lineOfPath = (path: readonly PropertyKey[]): number | undefined => {
    const node = path.length === 0 ? doc.contents : doc.getIn(path as unknown[], true);
    if (y.isNode(node) && node.range) return lineAt(node.range[0]);
    // A key whose value is empty has no value node: find the pair's key instead.
    const parent = doc.getIn(path.slice(0, -1) as unknown[], true);
    if (y.isMap(parent)) {
      const pair = parent.items.find((p) => y.isScalar(p.key) && String(p.key.value) === String(path.at(-1)));
      if (pair && y.isNode(pair.key) && pair.key.range) return lineAt(pair.key.range[0]);
    }
    return undefined;
  };

  if (raw === null || raw === undefined)
    throw new InputError(`the file is empty; expected ${EXPECTED_DOCUMENT}`, { file });
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new InputError(`expected ${EXPECTED_DOCUMENT}, got ${Array.isArray(raw) ? "a list" : "a value"}`, {
      file,
      place: "1",
    });
  const { labels, ...header } = raw as Record<string, unknown>;
  const headerResult = validateInput(LabelsHeaderSchema, header);
  if (!headerResult.success) {
    const issue = headerResult.error.issues[0]!;
    const key = issue.code === "unrecognized_keys" ? String(issue.keys[0]) : String(issue.path[0] ?? "");
    const message =
      issue.code === "unrecognized_keys"
        ? `unknown key "${key}"; expected format, note and labels`
        : `${issuePath(issue.path)}: ${issue.message}`;
    throw new InputError(message, {
      file,
      place: String((key ? lineOfPath([key]) : undefined) ?? 1),
    });
  }
  if (!Array.isArray(labels))
    throw new InputError(
      labels === undefined
        ? "labels: missing; expected a list of labels"
        : "labels: expected a list of labels",
      { file, place: String(lineOfPath(["labels"]) ?? 1) },
    );
  return labels.map((value, index) =>
    validateLabel(
      {
        value,
        line: lineOfPath(["labels", index]) ?? 1,
        lineOf: (field) => lineOfPath(["labels", index, field]),
      },
      file,
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------
// JSONL: one label per line, an optional first line `{"format": "dramaturg.labels/v1", "note": …}`.

function parseJsonl(text: string, file: string): SourcedLabel[] {
  const out: SourcedLabel[] = [];
  const lines = text.split("\n");
  let first = true;
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === "") continue;
    const line = i + 1;
    const value = parseJsonText(lines[i]!, file, "a label object", { firstLine: line });
    const isHeader = first && typeof value === "object" && value !== null && "format" in value;
    first = false;
    if (isHeader) {
      const header = validateInput(LabelsHeaderSchema, value);
      if (!header.success) {
        const issue = header.error.issues[0]!;
        throw new InputError(`header ${issuePath(issue.path)}: ${issue.message}`, {
          file,
          place: String(line),
        });
      }
      continue;
    }
    out.push(validateLabel({ value, line }, file));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// CSV: a header row naming the columns (any order, any subset of LABEL_COLUMNS); an empty cell is absent.
// Lines starting with # are comments, so a file can say who wrote it.

let csvModule: typeof CsvSync | undefined;
/** csv-parse is required on first use, so importing dramaturg does not load it. */
function csv(): typeof CsvSync {
  csvModule ??= createRequire(import.meta.url)("csv-parse/sync") as typeof CsvSync;
  return csvModule;
}

function parseCsv(text: string, file: string): SourcedLabel[] {
  let records: { record: string[]; raw: string }[];
  try {
    records = csv().parse(text, {
      info: true,
      raw: true,
      comment: "#",
      comment_no_infix: true,
      skip_empty_lines: true,
      trim: true,
    }) as unknown as { record: string[]; raw: string }[];
  } catch (error) {
    const problem = error as Error & { lines?: number; code?: string };
    throw new InputError(`not valid CSV: ${problem.message.replace(/ (on|at) line \d+.*$/s, "")}`, {
      file,
      place: problem.lines !== undefined ? String(problem.lines) : undefined,
      cause: error,
    });
  }
  if (records.length === 0)
    throw new InputError(
      `the file is empty; expected a header row naming columns among ${LABEL_COLUMNS.join(", ")}`,
      {
        file,
      },
    );

  // A record's own line: the lines of every record before it, plus its leading blank and comment lines.
  let linesBefore = 0;
  const startLines = records.map(({ raw }) => {
    const rawLines = raw.split("\n");
    let skip = 0;
    while (skip < rawLines.length - 1 && /^\s*(#.*)?\r?$/.test(rawLines[skip]!)) skip++;
    const start = linesBefore + skip + 1;
    linesBefore += raw.endsWith("\n") ? rawLines.length - 1 : rawLines.length;
    return start;
  });

  const headerLine = startLines[0]!;
  const columns = records[0]!.record;
  const seen = new Set<string>();
  for (const column of columns) {
    if (!(LABEL_COLUMNS as readonly string[]).includes(column))
      throw new InputError(
        `unknown column "${column}"${didYouMean(column, LABEL_COLUMNS)}; expected any of ${LABEL_COLUMNS.join(", ")}`,
        { file, place: String(headerLine) },
      );
    if (seen.has(column))
      throw new InputError(`column "${column}" is named twice`, { file, place: String(headerLine) });
    seen.add(column);
  }
  for (const required of ["dimension", "proposition_id"])
    if (!seen.has(required))
      throw new InputError(`missing column "${required}"; the header row names ${columns.join(", ")}`, {
        file,
        place: String(headerLine),
      });

  return records.slice(1).map(({ record }, index) => {
    const value: Record<string, unknown> = {};
    columns.forEach((column, c) => {
      const cell = record[c] ?? "";
      if (cell === "") return;
      // A number only where it reads as one: "high" stays a string, so the message quotes what was written.
      value[column] = column === "score" && /^[+-]?\d+(\.\d+)?$/.test(cell) ? Number(cell) : cell;
    });
    return validateLabel({ value, line: startLines[index + 1]! }, file);
  });
}
