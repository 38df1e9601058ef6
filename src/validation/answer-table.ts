// Reads a file of answers, one row per person (or simulated agent): CSV with a header row (TinyTroupe's
// empirical CSVs as published — `Responder #`, `Vote`, `Explanation`, demographic columns — are such
// files), a JSON array of records, or JSONL (one record per line). Each cell remembers its row, so a bad
// answer is reported at the file, row and column a person has to open.
import { createRequire } from "node:module";
import type * as CsvSync from "csv-parse/sync";
import { InputError, nearestName, parseJsonText, readInputFile } from "../core/index.ts";

export type AnswerFileFormat = "csv" | "json" | "jsonl";

/** A file's answers: its columns (in header order), each column's cells by row, and where each cell is. */
export interface AnswerTable {
  file: string;
  format: AnswerFileFormat;
  columns: string[];
  /** Rows of answers (the header not counted). */
  rows: number;
  /** A column's cells, row by row (undefined where a record has no such key). */
  cells(column: string): unknown[];
  /** Where a cell is, for a message: `row 3 (line 4), column "Vote"`, `row 3 ([2].Vote)`; `index` from 0. */
  place(index: number, column: string): string;
}

/** The format, by the file's extension (`.csv`, `.tsv`, `.json`, `.jsonl`/`.ndjson`), else by its text. */
export function answerFileFormat(file: string, text: string): AnswerFileFormat {
  const extension = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase();
  if (extension === "csv" || extension === "tsv") return "csv";
  if (extension === "jsonl" || extension === "ndjson") return "jsonl";
  if (extension === "json") return "json";
  const start = text.trimStart();
  if (start.startsWith("[")) return "json";
  if (start.startsWith("{")) return "jsonl";
  return "csv";
}

export function readAnswerTable(file: string): AnswerTable {
  return parseAnswerTable(readInputFile(file, "the answers"), file);
}

export function parseAnswerTable(text: string, file: string): AnswerTable {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const format = answerFileFormat(file, body);
  const table =
    format === "csv"
      ? parseCsv(body, file)
      : format === "jsonl"
        ? parseJsonl(body, file)
        : parseJson(body, file);
  if (table.rows === 0)
    throw new InputError("the file has no rows; expected a header and at least one answer per question", {
      file,
    });
  return table;
}

let csvModule: typeof CsvSync | undefined;
/** csv-parse is required on first use, so importing dramaturg does not load it. */
function csv(): typeof CsvSync {
  csvModule ??= createRequire(import.meta.url)("csv-parse/sync") as typeof CsvSync;
  return csvModule;
}

function parseCsv(text: string, file: string): AnswerTable {
  const delimiter = file.toLowerCase().endsWith(".tsv") ? "\t" : ",";
  const options = { bom: true, skip_empty_lines: true, relax_column_count: true, delimiter };
  let records: string[][];
  try {
    records = csv().parse(text, options) as string[][];
  } catch (error) {
    const problem = error as Error & { lines?: number };
    throw new InputError(`not valid CSV: ${problem.message.replace(/ (on|at) line \d+.*$/s, "")}`, {
      file,
      place: problem.lines !== undefined ? `line ${problem.lines}` : undefined,
      cause: error,
    });
  }
  if (records.length === 0)
    throw new InputError(
      "the file is empty; expected a header row naming the columns, then one row per answer",
      {
        file,
      },
    );
  const columns = records[0]!.map((c) => c.trim());
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column) && column !== "")
      throw new InputError(`column "${column}" is named twice`, { file, place: "header (line 1)" });
    seen.add(column);
  }
  // A row's line is only needed for a message: the file is parsed again, with csv-parse's line counts (which
  // cost four times the parse), when one is. A record's `lines` is the line it ends on; a row starts one after
  // the record before it.
  let endLines: number[] | undefined;
  const lineOf = (index: number) => {
    endLines ??= (
      csv().parse(text, { ...options, info: true }) as unknown as { info: { lines: number } }[]
    ).map((r) => r.info.lines);
    return endLines[index]! + 1;
  };
  return {
    file,
    format: "csv",
    columns,
    rows: records.length - 1,
    cells: (column) => {
      const at = columns.indexOf(column);
      return records.slice(1).map((record) => record[at] ?? "");
    },
    place: (index, column) => `row ${index + 1} (line ${lineOf(index)}), column "${column}"`,
  };
}

function recordColumns(records: readonly Record<string, unknown>[]): string[] {
  const columns = new Set<string>();
  for (const r of records) for (const key of Object.keys(r)) columns.add(key);
  return [...columns];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function recordTable(
  file: string,
  format: AnswerFileFormat,
  records: Record<string, unknown>[],
  place: AnswerTable["place"],
): AnswerTable {
  return {
    file,
    format,
    columns: recordColumns(records),
    rows: records.length,
    cells: (column) => records.map((r) => r[column]),
    place,
  };
}

function parseJson(text: string, file: string): AnswerTable {
  const expected = "a JSON array of records, one per answer (or JSONL, one record per line)";
  const data = parseJsonText(text, file, expected);
  if (!Array.isArray(data)) throw new InputError(`expected ${expected}`, { file, place: "(root)" });
  data.forEach((value, index) => {
    if (!isRecord(value))
      throw new InputError("expected a record of columns (an object)", {
        file,
        place: `row ${index + 1} ([${index}])`,
      });
  });
  const key = (column: string) =>
    /^[A-Za-z_]\w*$/.test(column) ? `.${column}` : `[${JSON.stringify(column)}]`;
  return recordTable(file, "json", data, (index, column) => `row ${index + 1} ([${index}]${key(column)})`);
}

function parseJsonl(text: string, file: string): AnswerTable {
  const records: Record<string, unknown>[] = [];
  const lines: number[] = [];
  text.split("\n").forEach((lineText, i) => {
    if (lineText.trim() === "") return;
    const line = i + 1;
    const value = parseJsonText(lineText, file, "one JSON record per line", { firstLine: line });
    if (!isRecord(value))
      throw new InputError("expected a record of columns (an object)", { file, place: `line ${line}` });
    records.push(value);
    lines.push(line);
  });
  return recordTable(
    file,
    "jsonl",
    records,
    (index, column) => `row ${index + 1} (line ${lines[index]}), column "${column}"`,
  );
}

/** Fails, naming the file and its header, when `column` is not one of the table's columns. */
export function requireColumn(table: AnswerTable, column: string, flag: string): void {
  if (table.columns.includes(column)) return;
  const near = nearestName(column, table.columns);
  const place = table.format === "csv" ? "header (line 1)" : "row 1";
  throw new InputError(
    `no column "${column}" (${flag})${near ? `; did you mean "${near}"?` : ""}; the file's columns are ${table.columns.map((c) => `"${c}"`).join(", ")}`,
    { file: table.file, place },
  );
}
